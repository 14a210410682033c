package operator

import (
	"errors"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/upgrade"
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

// UpgradeRequests are the next release's requests crs as the upgrade check
// asks them: each one's CheckedPolicy, with a manifest that cannot be
// provisioned as written kept, to fail with the reason.
func UpgradeRequests(crs []*leashv1.CredentialsRequest) []upgrade.Request {
	out := make([]upgrade.Request, len(crs))
	for i, cr := range crs {
		doc, ignored, err := CheckedPolicy(cr)
		out[i] = upgrade.Request{Namespace: cr.Namespace, Name: cr.Name, Policy: doc, Ignored: ignored}
		if err != nil {
			out[i].Invalid = err.Error()
		}
	}
	return out
}
