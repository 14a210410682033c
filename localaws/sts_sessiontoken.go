package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// sessionTokenLimits refuses what GetSessionToken's credentials cannot do
// when they were issued without MFA, which is always in leash local (it has
// no MFA devices). The STS API reference for GetSessionToken
// (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html)
// says such credentials cannot call any IAM operation, and can call no STS
// operation but AssumeRole and GetCallerIdentity.
//
// AWS does not document the error. Reports of the behaviour all show IAM
// answering InvalidClientTokenId, "The security token included in the
// request is invalid" (github.com/99designs/aws-vault issues 15 and 1056,
// github.com/aws/aws-sdk-js issue 460), so IAM's refusal here is that. For
// STS the one other signed operation is GetSessionToken itself, which
// answers AccessDenied "Cannot call GetSessionToken with session
// credentials"; any other STS action gets AccessDenied in the same words.
func sessionTokenLimits(service, action string) error {
	switch service {
	case "iam":
		return store.InvalidClientToken()
	case "sts":
		switch action {
		case "AssumeRole", "GetCallerIdentity":
			return nil
		}
		return query.AccessDenied("Cannot call " + action + " with session credentials")
	}
	return nil
}
