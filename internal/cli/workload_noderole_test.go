package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestCheckWorkloadReadsNodeRoleFromIAM pins that --node-role reads the
// node role's policies from IAM (leash local here): the CCM's metadata
// profile passes while the role only describes EC2, and fails with
// LEASH-WL-011 once the role carries one statement more; a role IAM does not
// have, or endpoint flags without --node-role, are refused with exit 2.
func TestCheckWorkloadReadsNodeRoleFromIAM(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("eks-node"), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
		t.Fatal(err)
	}
	put := func(name, doc string) {
		t.Helper()
		if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("eks-node"), PolicyName: aws.String(name), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	put("describe", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}`)
	ccm := filepath.Join("..", "..", "examples", "ccm")
	live := []string{"check", "workload", ccm, "--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath()}

	if out, stderr, code := run(t, append(live, "--node-role", "eks-node")...); code != 0 || !strings.Contains(out, "no findings in 1 pod") {
		t.Errorf("a node role that only describes EC2: exit %d\n%s%s", code, out, stderr)
	}
	put("ecr", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ecr:GetAuthorizationToken","Resource":"*"}]}`)
	out, stderr, code := run(t, append(live, "--node-role", "arn:aws:iam::000000000000:role/eks-node")...)
	if code != 1 || !strings.Contains(out, "critical LEASH-WL-011") || !strings.Contains(out, "ecr:GetAuthorizationToken") {
		t.Errorf("a node role with one statement more: exit %d, want LEASH-WL-011 naming the extra action\n%s%s", code, out, stderr)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a role IAM does not have", append(live, "--node-role", "no-such-role"), "--node-role no-such-role"},
		{"an ARN that is not a role's", append(live, "--node-role", "arn:aws:iam::000000000000:instance-profile/eks-node"), "not an IAM role ARN"},
		{"endpoint flags without --node-role", live, "--node-role NAME"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q\n%s%s", code, tt.want, out, stderr)
			}
		})
	}
}
