package analyze

import (
	"strings"
	"sync"

	"leash.dev/leash/policy"
)

// A KMS key always has a key policy, and leash's engine, as AWS, allows
// nothing on a key its key policy does not ("Key policies in AWS KMS",
// https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html).
// Questions about what identity policies grant on a key are asked under
// AWS's default key policy, whose first statement lets the account's IAM
// policies decide
// (https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#key-policy-default-allow-root-enable-iam):
// the key's own policy is not what a request's statements, or a diff of
// them, can answer for.

// KeyAccount is the account of the KMS key a kms: question names, "" for
// any other question.
func KeyAccount(action, resource string) string {
	svc, _, _ := strings.Cut(action, ":")
	parts := strings.SplitN(resource, ":", 6)
	if !strings.EqualFold(svc, "kms") || len(parts) != 6 || parts[2] != "kms" || !strings.HasPrefix(parts[5], "key/") {
		return ""
	}
	return parts[4]
}

// DefaultKeyPolicy is the statement of AWS's default key policy that
// gives the account's IAM policies control of its keys.
func DefaultKeyPolicy(account string) string {
	return `{"Version":"2012-10-17","Statement":[{"Sid":"Enable IAM User Permissions","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` +
		account + `:root"},"Action":"kms:*","Resource":"*"}]}`
}

var keyPolicies sync.Map // account -> *policy.Compiled

// UnderKeyPolicy is p for a question about action on resource: under the
// key's default key policy when it is a KMS key and p has none of its own.
func UnderKeyPolicy(p *policy.Policies, hasResourcePolicy bool, action, resource string) *policy.Policies {
	account := KeyAccount(action, resource)
	if account == "" || hasResourcePolicy {
		return p
	}
	c, ok := keyPolicies.Load(account)
	if !ok {
		doc, err := policy.Parse([]byte(DefaultKeyPolicy(account)), policy.Resource)
		if err != nil {
			return p // a 12-digit account always parses; any other asks as given
		}
		compiled, err := policy.CompileOne(policy.Named{Name: "default key policy", Document: doc}, policy.Resource)
		if err != nil {
			return p
		}
		c, _ = keyPolicies.LoadOrStore(account, compiled)
	}
	return p.WithResource(c.(*policy.Compiled))
}
