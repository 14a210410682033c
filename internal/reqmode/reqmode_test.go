package reqmode

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

func TestOf(t *testing.T) {
	withRole := &leashv1.AWSProviderSpec{STSIAMRoleARN: "arn:aws:iam::111122223333:role/r"}
	for _, c := range []struct {
		name       string
		annotation string
		cluster    leashv1.CredentialsMode
		spec       *leashv1.AWSProviderSpec
		want       leashv1.CredentialsMode
		wantErr    string
	}{
		{"no annotation takes the cluster's mode", "", leashv1.ModeMint, &leashv1.AWSProviderSpec{}, leashv1.ModeMint, ""},
		{"the cluster may be in Broker mode", "", leashv1.ModeBroker, &leashv1.AWSProviderSpec{}, leashv1.ModeBroker, ""},
		{"the annotation may ask for Broker", "Broker", leashv1.ModeMint, &leashv1.AWSProviderSpec{}, leashv1.ModeBroker, ""},
		{"the annotation may ask for STS", "STS", leashv1.ModeBroker, &leashv1.AWSProviderSpec{}, leashv1.ModeSTS, ""},
		{"Manual with a role is STS", "Manual", leashv1.ModeMint, withRole, leashv1.ModeSTS, ""},
		{"Broker with a role stays Broker, for the operator to refuse", "Broker", leashv1.ModeMint, withRole, leashv1.ModeBroker, ""},
		{"an unknown mode is refused listing every mode", "broker", leashv1.ModeMint, &leashv1.AWSProviderSpec{}, "", `"broker" is not a mode; use Mint, Passthrough, Manual, STS or Broker`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "apps"}}
			if c.annotation != "" {
				cr.Annotations = map[string]string{Annotation: c.annotation}
			}
			got, err := Of(cr, c.spec, c.cluster)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), Annotation) {
					t.Fatalf("Of: %v; want an error naming %s and holding %q", err, Annotation, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Of = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
