package operator

import (
	"testing"

	leashv1 "leash.dev/leash/api/v1"
)

func TestFolderPrincipal(t *testing.T) {
	made := userName("c1", "apps", "ccm", "uid-ccm")
	cases := []struct {
		name, mode, annotation, roleARN string
		wantMode                        leashv1.CredentialsMode
		want                            string
	}{
		{name: "Mint is the minted user's name", mode: "Mint", wantMode: leashv1.ModeMint, want: made},
		{name: "STS without a role is the made role's name", mode: "STS", wantMode: leashv1.ModeSTS, want: made},
		{name: "STS by annotation is the made role's name", mode: "Mint", annotation: "STS", wantMode: leashv1.ModeSTS, want: made},
		{name: "Manual with a role is that role", mode: "Manual", roleARN: "arn:aws:iam::111122223333:role/ccm", wantMode: leashv1.ModeSTS, want: "arn:aws:iam::111122223333:role/ccm"},
		{name: "Passthrough has none", mode: "Passthrough", wantMode: leashv1.ModePassthrough},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr := mintRequest(t, "ccm", allow("*", "ec2:DescribeInstances"))
			if c.roleARN != "" {
				setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = c.roleARN })
			}
			if c.annotation != "" {
				cr.Annotations = map[string]string{AnnotationMode: c.annotation}
			}
			mode, principal, err := FolderPrincipal(cr, "c1", leashv1.CredentialsMode(c.mode))
			if err != nil || mode != c.wantMode || principal != c.want {
				t.Errorf("FolderPrincipal = %s, %q, %v; want %s, %q", mode, principal, err, c.wantMode, c.want)
			}
		})
	}
}
