package revoke

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

func TestRequestPrincipal(t *testing.T) {
	for _, tt := range []struct {
		name      string
		mode      leashv1.CredentialsMode
		principal string
		kind      Kind
		refusal   string
	}{
		{"a minted user is revoked as a user", leashv1.ModeMint, "arn:aws:iam::120392301094:user/leash/e2e/e2e-apps-ccm-1a2b", User, ""},
		{"an STS request's role is revoked as a role", leashv1.ModeSTS, "arn:aws:iam::120392301094:role/ccm", Role, ""},
		{"a Passthrough request would revoke the root credentials: refused", leashv1.ModePassthrough, "arn:aws:iam::120392301094:user/root-creds", "", "passes through the operator's root credentials"},
		{"a request not provisioned yet has nothing to revoke", "", "", "", "has no principal in its status"},
		{"a principal that is not a user or role is refused", leashv1.ModeManual, "arn:aws:iam::120392301094:root", "", "is not an IAM user or role"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "ccm"},
				Status: leashv1.CredentialsRequestStatus{Mode: tt.mode, Principal: tt.principal}}
			kind, name, err := RequestPrincipal(cr)
			if tt.refusal != "" {
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.refusal) {
					t.Fatalf("err = %v, want a refusal saying %q", err, tt.refusal)
				}
				return
			}
			if err != nil || kind != tt.kind || name != tt.principal {
				t.Errorf("= %s %s %v; want %s %s", kind, name, err, tt.kind, tt.principal)
			}
		})
	}
}
