package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

const githubProvider = "arn:aws:iam::120392301094:oidc-provider/token.actions.githubusercontent.com"

// github writes a GitHub OIDC trust policy with the given Condition block.
func github(condition string) string {
	s := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` + githubProvider + `"},"Action":"sts:AssumeRoleWithWebIdentity"`
	if condition != "" {
		s += `,"Condition":` + condition
	}
	return s + `}]}`
}

func TestTrustRules(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		id   string
		// severity is the want; -1 wants no finding with the ID.
		severity Severity
		path     string
	}{
		{"web identity without sub", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"}}`),
			"LEASH-TRUST-001", Critical, "Statement[0].Principal.Federated"},
		{"web identity with sub", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":"repo:o/r:ref:refs/heads/main"}}`),
			"LEASH-TRUST-001", -1, ""},
		{"sub under a negated operator pins nothing", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},"StringNotEquals":{"token.actions.githubusercontent.com:sub":"repo:o/evil:ref:refs/heads/main"}}`),
			"LEASH-TRUST-001", Critical, "Statement[0].Principal.Federated"},
		{"sub StringLike * pins nothing", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},"StringLike":{"token.actions.githubusercontent.com:sub":"*"}}`),
			"LEASH-TRUST-001", Critical, "Statement[0].Principal.Federated"},
		{"web identity through sts:*", `{"Statement":[{"Effect":"Allow","Principal":{"Federated":"` + githubProvider + `"},"Action":"sts:*"}]}`,
			"LEASH-TRUST-001", Critical, "Statement[0].Principal.Federated"},
		{"SAML federation is not web identity", `{"Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::1:saml-provider/corp"},"Action":"sts:AssumeRoleWithSAML"}]}`,
			"LEASH-TRUST-001", -1, ""},
		{"StringLike sub with a wildcard", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},"StringLike":{"token.actions.githubusercontent.com:sub":["repo:o/r:ref:refs/heads/main","repo:o/*"]}}`),
			"LEASH-TRUST-002", Medium, "Statement[0].Condition.StringLike.token.actions.githubusercontent.com:sub[1]"},
		{"StringLike sub without a wildcard", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},"StringLike":{"token.actions.githubusercontent.com:sub":"repo:o/r:environment:prod"}}`),
			"LEASH-TRUST-002", -1, ""},
		{"aud not pinned", github(`{"StringEquals":{"token.actions.githubusercontent.com:sub":"repo:o/r:ref:refs/heads/main"}}`),
			"LEASH-TRUST-003", High, "Statement[0].Principal.Federated"},
		{"aud only StringLike with a wildcard", github(`{"StringEquals":{"token.actions.githubusercontent.com:sub":"repo:o/r:ref:refs/heads/main"},"StringLike":{"token.actions.githubusercontent.com:aud":"sts.*"}}`),
			"LEASH-TRUST-003", High, "Statement[0].Principal.Federated"},
		{"aud pinned", github(`{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":"repo:o/r:ref:refs/heads/main"}}`),
			"LEASH-TRUST-003", -1, ""},
		{"EKS provider aud pinned", `{"Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::1:oidc-provider/oidc.eks.eu-north-1.amazonaws.com/id/ABC"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"oidc.eks.eu-north-1.amazonaws.com/id/ABC:aud":"sts.amazonaws.com","oidc.eks.eu-north-1.amazonaws.com/id/ABC:sub":"system:serviceaccount:ns:sa"}}}]}`,
			"LEASH-TRUST-003", -1, ""},
		{"account root ARN", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-004", Medium, "Statement[0].Principal.AWS"},
		{"bare account ID", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:role/ci","111122223333"]},"Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-004", Medium, "Statement[0].Principal.AWS[1]"},
		{"account root narrowed by aws:PrincipalArn", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sts:AssumeRole","Condition":{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::111122223333:role/ci-*"}}}]}`,
			"LEASH-TRUST-004", -1, ""},
		{"named role", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:role/ci"},"Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-004", -1, ""},
		{"Principal * without conditions", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-005", Critical, "Statement[0].Principal"},
		{"Principal AWS * without conditions", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-005", Critical, "Statement[0].Principal.AWS"},
		{"Principal * with a condition", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole","Condition":{"StringEquals":{"aws:PrincipalOrgID":"o-abc"}}}]}`,
			"LEASH-TRUST-005", -1, ""},
		{"Deny statements are not trust", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sts:AssumeRole"}]}`,
			"LEASH-TRUST-005", -1, ""},
	}
	rules := make([]ruleCase, len(cases))
	for i, c := range cases {
		rules[i] = ruleCase{name: c.name, kind: policy.Trust, doc: c.doc, id: c.id, severity: c.severity, path: c.path}
	}
	checkRuleCases(t, rules, func(doc *policy.Document) []Finding { return Trust(doc, "app-policy") })
}

// The seed's krops-ci-e2e trust policy: GitHub OIDC, aud sts.amazonaws.com,
// StringLike sub repo:polarsquad/krops:*.
func TestKropsCIE2ETrust(t *testing.T) {
	fs := Trust(docFile(t, policy.Trust, "krops-ci-e2e/trust.json"), "krops-ci-e2e")
	if len(fs) != 1 || fs[0].ID != "LEASH-TRUST-002" || fs[0].Severity != Medium {
		t.Fatalf("got %v, want only the medium StringLike-sub finding", fs)
	}
	for _, want := range []string{"repo:polarsquad/krops:*", "any branch, tag, pull request and environment"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message %q does not say %q", fs[0].Message, want)
		}
	}
	if !strings.Contains(fs[0].Fix, "repo:polarsquad/krops:ref:refs/heads/main") {
		t.Errorf("fix %q does not give an exact subject", fs[0].Fix)
	}
}

// The seed's per-cluster reader roles trust the account root.
func TestKropsReaderTrust(t *testing.T) {
	fs := Trust(docFile(t, policy.Trust, "krops-reader/trust.json"), "krops-eu-north-1-workload-reader")
	if len(fs) != 1 || fs[0].ID != "LEASH-TRUST-004" || fs[0].Severity != Medium || !strings.Contains(fs[0].Message, "120392301094") {
		t.Fatalf("got %v, want only the medium account-root finding", fs)
	}
}
