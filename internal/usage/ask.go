package usage

import (
	"fmt"
	"strings"

	"leash.dev/leash/policy"
)

// asker asks the engine about calls under one identity policy. A call on a
// KMS key is asked with the key's default key policy beside it: a key
// always has a key policy, and the default one lets the account's IAM
// policies decide ("Default key policy", AWS KMS Developer Guide,
// https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#key-policy-default-allow-root-enable-iam),
// which is the question a request's statements can answer.
type asker struct {
	name string
	doc  *policy.Document
	// compiled is the policy alone under "", and with the default key
	// policy of each account asked about.
	compiled map[string]*policy.Policies
}

func newAsker(name string, doc *policy.Document) *asker {
	return &asker{name: name, doc: doc, compiled: map[string]*policy.Policies{}}
}

// decide asks about one call of principal, with what a trail tells of
// every call: the keys AWS derives from the caller, and the region the
// call was made in ("" for none).
func (a *asker) decide(principal, action, resource, region string) (policy.Decision, error) {
	account := KeyAccount(action, resource)
	p := a.compiled[account]
	if p == nil {
		var set policy.Set
		set.Add(policy.Identity, policy.Named{Name: a.name, Document: a.doc})
		if account != "" {
			kp, err := policy.Parse([]byte(DefaultKeyPolicy(account)), policy.Resource)
			if err != nil {
				return 0, err
			}
			set.Add(policy.Resource, policy.Named{Name: "default key policy", Document: kp})
		}
		var err error
		if p, err = policy.Compile(set); err != nil {
			return 0, fmt.Errorf("%s: %w", a.name, err)
		}
		a.compiled[account] = p
	}
	req := &policy.Request{Principal: principal, Action: action, Resource: resource}
	req.Context.AddPrincipalKeys(principal)
	if region != "" {
		req.Context.Set("aws:RequestedRegion", region)
	}
	return p.Decide(req), nil
}

// KeyAccount is the account of the KMS key a kms: call names, "" for any
// other call.
func KeyAccount(action, resource string) string {
	svc, _, _ := strings.Cut(action, ":")
	parts := strings.SplitN(resource, ":", 6)
	if !strings.EqualFold(svc, "kms") || len(parts) != 6 || parts[2] != "kms" || !strings.HasPrefix(parts[5], "key/") {
		return ""
	}
	return parts[4]
}

// DefaultKeyPolicy is the statement of AWS's default key policy that
// gives the account's IAM policies control of the key.
func DefaultKeyPolicy(account string) string {
	return `{"Version":"2012-10-17","Statement":[{"Sid":"Enable IAM User Permissions","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` +
		account + `:root"},"Action":"kms:*","Resource":"*"}]}`
}
