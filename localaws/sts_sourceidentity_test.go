package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
)

// TestSourceIdentityNeedsSetSourceIdentity pins the trust-policy rule for a
// source identity: "To allow users to set source identity, you must include
// the sts:SetSourceIdentity action in the role trust policy", and the
// sts:SourceIdentity key a trust policy can test (IAM User Guide, "Monitor
// and control actions taken with assumed roles",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html).
// AssumeRoleWithWebIdentity takes no SourceIdentity parameter (a token
// claim carries it in AWS, which leash local does not read), so the rule is
// AssumeRole's alone.
func TestSourceIdentityNeedsSetSourceIdentity(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	aliceARN := "arn:aws:iam::" + stsAccount + ":user/alice"
	assumeOnly := e.role(t, "assume-only", trustPrincipal(aliceARN), "", 0)
	withSource := e.role(t, "with-source", trustPrincipal(aliceARN, "sts:AssumeRole", "sts:SetSourceIdentity"), "", 0)
	onlyAlice := e.role(t, "only-alice", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"`+aliceARN+`"},"Action":"sts:AssumeRole"},
		{"Effect":"Allow","Principal":{"AWS":"`+aliceARN+`"},"Action":"sts:SetSourceIdentity","Condition":{"StringEquals":{"sts:SourceIdentity":"alice"}}}]}`, "", 0)

	tests := []struct {
		name, role, source string
		// denied is the action AccessDenied names; "" when the call succeeds.
		denied string
	}{
		{"a trust policy allowing only sts:AssumeRole refuses a source identity", assumeOnly, "alice", "sts:SetSourceIdentity"},
		{"a trust policy allowing only sts:AssumeRole allows the call without one", assumeOnly, "", ""},
		{"a trust policy allowing sts:SetSourceIdentity too allows a source identity", withSource, "alice", ""},
		{"sts:SourceIdentity in the trust policy allows the value it names", onlyAlice, "alice", ""},
		{"sts:SourceIdentity in the trust policy refuses another value", onlyAlice, "mallory", "sts:SetSourceIdentity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := sts.AssumeRoleInput{RoleArn: aws.String(tt.role), RoleSessionName: aws.String("s1")}
			if tt.source != "" {
				in.SourceIdentity = aws.String(tt.source)
			}
			out, err := e.stsAs(alice).AssumeRole(ctx, &in)
			if tt.denied != "" {
				wantError(t, "AssumeRole", err, "AccessDenied", "User: "+aliceARN+" is not authorized to perform: "+tt.denied+" on resource: "+tt.role)
				return
			}
			if err != nil {
				t.Fatalf("AssumeRole: %v", err)
			}
			if got := aws.ToString(out.SourceIdentity); got != tt.source {
				t.Errorf("the session's SourceIdentity is %q, want %q", got, tt.source)
			}
		})
	}
}
