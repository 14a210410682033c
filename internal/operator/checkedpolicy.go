package operator

import (
	"errors"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/policy"
)

// CheckedPolicy is RequestedPolicy after the checks Sync makes on the
// manifest before it reads the statements, for a review of requests not yet
// applied (leash check upgrade): a request for another cloud is left alone
// (ignored says why, as its Ignored condition would), and a manifest left a
// template is refused naming the field that holds the placeholder.
func CheckedPolicy(cr *leashv1.CredentialsRequest) (doc *policy.Document, ignored string, err error) {
	spec, err := awsSpec(cr)
	if errors.Is(err, errNotAWS) {
		return nil, notAWSMessage(cr), nil
	}
	if err != nil {
		return nil, "", err
	}
	if err := unrendered(cr, spec); err != nil {
		return nil, "", err
	}
	_, doc, err = requestedPolicy(spec)
	return doc, "", err
}
