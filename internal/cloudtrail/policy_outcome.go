package cloudtrail

import (
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy"
)

// outcome says what an event proves about the caller's permissions.
type outcome int

const (
	// exercised: the call passed authorization, so the caller holds the
	// permission, whether or not the call then succeeded.
	exercised outcome = iota
	// refused: authorization denied the call; the caller lacks the
	// permission, and granting it would widen what the caller has.
	refused
	// unauthenticated: the request never reached authorization (a bad
	// signature, an unknown or expired key), so it proves nothing.
	unauthenticated
)

// refusedCodes are the error codes AWS services give when authorization
// denies a request. IAM's "The difference between explicit and implicit
// denies" and each service's error reference name them: AccessDenied for
// the query and REST protocols (IAM, STS, S3), AccessDeniedException for
// the JSON protocol (KMS, DynamoDB, Lambda, CloudWatch Logs...),
// UnauthorizedOperation for EC2 (which CloudTrail records with the
// "Client." prefix of EC2's error type), AuthorizationError for SNS.
var refusedCodes = map[string]bool{
	"AccessDenied":                 true,
	"AccessDeniedException":        true,
	"UnauthorizedOperation":        true,
	"Client.UnauthorizedOperation": true,
	"AuthorizationError":           true,
}

// unauthenticatedCodes are the error codes of requests AWS rejected before
// authorization, from the common errors of the AWS APIs and STS/EC2's error
// references: the signature or the credentials were not accepted, so no
// policy was evaluated.
var unauthenticatedCodes = map[string]bool{
	"InvalidClientTokenId":        true,
	"SignatureDoesNotMatch":       true,
	"IncompleteSignature":         true,
	"MissingAuthenticationToken":  true,
	"ExpiredToken":                true,
	"ExpiredTokenException":       true,
	"InvalidAccessKeyId":          true,
	"UnrecognizedClientException": true,
	"AuthFailure":                 true,
	"Client.AuthFailure":          true,
}

// eventOutcome sorts an event into what it proves. leash local records the
// engine's decision, which settles it; CloudTrail records only the error
// code. Every error other than a refusal or an authentication failure
// (NoSuchKey, NoSuchEntity, ThrottlingException, EC2's DryRunOperation,
// validation errors) comes from a request that was authorized first, so it
// exercised the permission: AWS evaluates a request's policies before the
// service acts on it (IAM User Guide, "Understanding how IAM works":
// authentication, then authorization, then the operation).
func eventOutcome(e *audit.Event) outcome {
	switch e.Decision() {
	case policy.Allowed.String():
		return exercised
	case policy.ImplicitDeny.String(), policy.ExplicitDeny.String():
		return refused
	}
	switch {
	case e.ErrorCode == "":
		return exercised
	case refusedCodes[e.ErrorCode]:
		return refused
	case unauthenticatedCodes[e.ErrorCode]:
		return unauthenticated
	}
	return exercised
}
