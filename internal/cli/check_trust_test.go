package cli

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// TestCheckRoleTrust pins that leash check --role reviews the role's trust
// policy as IAM holds it: a web identity trust with the subject pinned by
// StringEquals and the audience pinned has no finding; a StringLike
// subject, a missing audience, a wildcard principal and a whole account
// are each found, named after the trust policy.
func TestCheckRoleTrust(t *testing.T) {
	ctx := context.Background()
	l, err := localaws.StartLoopback(localaws.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Stop() })
	creds := l.AdminCredentialsPath()
	key, err := iamclient.KeyFromFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	admin := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(l.URL), Credentials: key.Provider()})
	const issuer = "oidc.example.com/prod"
	provider, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://" + issuer), ClientIDList: []string{"sts.amazonaws.com"}})
	if err != nil {
		t.Fatal(err)
	}
	fed := `"Principal":{"Federated":"` + aws.ToString(provider.OpenIDConnectProviderArn) + `"},"Action":"sts:AssumeRoleWithWebIdentity"`
	sub := `"` + issuer + `:sub"`
	aud := `"` + issuer + `:aud":"sts.amazonaws.com"`
	tests := []struct {
		name, trust string
		want        []string // finding IDs on the trust policy
	}{
		{"subject and audience pinned with StringEquals: no finding",
			`{"Effect":"Allow",` + fed + `,"Condition":{"StringEquals":{` + sub + `:"system:serviceaccount:kube-system:cloud-controller-manager",` + aud + `}}}`, nil},
		{"StringLike on the subject accepts every service account it matches",
			`{"Effect":"Allow",` + fed + `,"Condition":{"StringLike":{` + sub + `:"system:serviceaccount:kube-system:*"},"StringEquals":{` + aud + `}}}`, []string{"LEASH-TRUST-002"}},
		{"an unpinned audience accepts tokens minted for anything",
			`{"Effect":"Allow",` + fed + `,"Condition":{"StringEquals":{` + sub + `:"system:serviceaccount:kube-system:cloud-controller-manager"}}}`, []string{"LEASH-TRUST-003"}},
		{"no subject condition lets every token of the issuer in",
			`{"Effect":"Allow",` + fed + `,"Condition":{"StringEquals":{` + aud + `}}}`, []string{"LEASH-TRUST-001"}},
		{"a wildcard principal lets anyone assume the role",
			`{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole"}`, []string{"LEASH-TRUST-005"}},
		{"a whole account is trusted",
			`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + l.AccountID() + `:root"},"Action":"sts:AssumeRole"}`, []string{"LEASH-TRUST-004"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			role := "trust-" + string(rune('a'+i))
			if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(role),
				AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[` + tt.trust + `]}`)}); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String("describe"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)}); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := run(t, "check", "--role", role, "--endpoint", l.URL, "--credentials-file", creds, "--output", "json", "--fail-on", "medium")
			got := trustFindings(t, out)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("trust findings %v, want %v\n%s%s", got, tt.want, out, stderr)
			}
			if wantCode := map[bool]int{true: 0, false: 1}[len(tt.want) == 0]; code != wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, wantCode, out, stderr)
			}
		})
	}
}

// trustFindings lists the IDs of leash check's JSON findings on a role's
// trust policy.
func trustFindings(t *testing.T, out string) []string {
	t.Helper()
	var report struct {
		Findings []struct{ ID, Policy string }
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var ids []string
	for _, f := range report.Findings {
		if f.Policy == trustPolicyName {
			ids = append(ids, f.ID)
		}
	}
	return ids
}
