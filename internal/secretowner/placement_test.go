package secretowner

import (
	"strings"
	"testing"
)

func TestPlacementRefusals(t *testing.T) {
	reserved := []string{"kube-system/aws-creds"}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"the operator's root Secret is refused", ReservedRefusal(reserved, "kube-system", "aws-creds"), "Secret kube-system/aws-creds is the operator's own"},
		{"a Secret of the same name elsewhere is not", ReservedRefusal(reserved, "team-a", "aws-creds"), ""},
		{"with no served namespaces every namespace may be named", NamespaceRefusal(nil, "team-c"), ""},
		{"a served namespace may be named", NamespaceRefusal([]string{"team-a"}, "team-a"), ""},
		{"another namespace is refused with the list and the flag", NamespaceRefusal([]string{"team-a", "team-b"}, "team-c"), "(team-a, team-b); name a Secret in one of them, or ask the cluster's administrator to add team-c to --secret-namespaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if (tc.want == "") != (tc.got == "") || !strings.Contains(tc.got, tc.want) {
				t.Errorf("got %q, want it to hold %q", tc.got, tc.want)
			}
		})
	}
}
