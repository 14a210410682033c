package operator

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

// A request's status shows its principal's calls only when leash made the
// principal for it, or the request is in an administrator namespace: a
// Manual request elsewhere names its principal itself (another team's
// role), and would otherwise read that role's use.
func TestUsageShownForOwnPrincipalsOnly(t *testing.T) {
	p := &Provisioner{cfg: Config{ClusterName: "c1", AdminNamespaces: []string{"leash-system"}}}
	req := func(ns, principal string) *leashv1.CredentialsRequest {
		cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app", UID: "7d3c1f52-1111-4222-8333-944455556666"}}
		cr.Status.Principal = principal
		return cr
	}
	own := userName("c1", "team", "app", "7d3c1f52-1111-4222-8333-944455556666")
	for _, tt := range []struct {
		name, ns, principal string
		shown               bool
	}{
		{"the user leash minted for it", "team", "arn:aws:iam::111122223333:user/leash/c1/" + own, true},
		{"the role leash made for it", "team", "arn:aws:iam::111122223333:role/leash/c1/" + own, true},
		{"another request's minted user", "team", "arn:aws:iam::111122223333:user/leash/c1/" + userName("c1", "other", "app", "x"), false},
		{"a role the author named", "team", "arn:aws:iam::111122223333:role/payments-prod", false},
		{"a same-named user of another cluster's path", "team", "arn:aws:iam::111122223333:user/leash/c2/" + own, false},
		{"a role the administrator named", "leash-system", "arn:aws:iam::111122223333:role/payments-prod", true},
	} {
		if got := p.usageHidden(req(tt.ns, tt.principal)) == ""; got != tt.shown {
			t.Errorf("%s: shown %v, want %v", tt.name, got, tt.shown)
		}
	}
}
