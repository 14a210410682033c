package analyze

import (
	"testing"

	"leash.dev/leash/policy"
)

func TestLeastPrivilegeRules(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		id   string
		// severity is the want; -1 wants no finding with the ID.
		severity Severity
		path     string
	}{
		{"Action *", `{"Statement":[{"Effect":"Allow","Action":["s3:GetObject","*"],"Resource":"*"}]}`,
			"LEASH-LP-001", Critical, "Statement[0].Action[1]"},
		{"Action *:*", `{"Statement":[{"Effect":"Allow","Action":"*:*","Resource":"arn:aws:s3:::b"}]}`,
			"LEASH-LP-001", Critical, "Statement[0].Action"},
		{"Deny *", `{"Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`,
			"LEASH-LP-001", -1, ""},
		{"named actions", `{"Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:Put*"],"Resource":"*"}]}`,
			"LEASH-LP-001", -1, ""},
		{"service wildcard on *", `{"Statement":[{"Effect":"Allow","Action":["iam:GetRole","iam:*"],"Resource":"*"}]}`,
			"LEASH-LP-002", High, "Statement[0].Action[1]"},
		{"service wildcard on named resources", `{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::krops-*"}]}`,
			"LEASH-LP-002", -1, ""},
		{"prefix wildcard on *", `{"Statement":[{"Effect":"Allow","Action":"s3:Get*","Resource":"*"}]}`,
			"LEASH-LP-002", -1, ""},
		{"NotAction with Allow", `{"Statement":[{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}]}`,
			"LEASH-LP-003", High, "Statement[0].NotAction"},
		{"NotAction with Deny", `{"Statement":[{"Effect":"Deny","NotAction":"iam:*","Resource":"*"}]}`,
			"LEASH-LP-003", -1, ""},
		{"NotResource with Allow", `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","NotResource":"arn:aws:s3:::secret/*"}]}`,
			"LEASH-LP-004", Medium, "Statement[0].NotResource"},
		{"NotResource with Deny", `{"Statement":[{"Effect":"Deny","Action":"s3:*","NotResource":"arn:aws:s3:::ok/*"}]}`,
			"LEASH-LP-004", -1, ""},
		{"PassRole without PassedToService", `{"Statement":[{"Effect":"Allow","Action":["iam:GetRole","iam:PassRole"],"Resource":"arn:aws:iam::*:role/app-*"}]}`,
			"LEASH-LP-005", High, "Statement[0].Action[1]"},
		{"PassRole through iam:Pass*", `{"Statement":[{"Effect":"Allow","Action":"iam:Pass*","Resource":"*"}]}`,
			"LEASH-LP-005", High, "Statement[0].Action"},
		{"PassRole through iam:*", `{"Statement":[{"Effect":"Allow","Action":["s3:GetObject","iam:*"],"Resource":"*"}]}`,
			"LEASH-LP-005", High, "Statement[0].Action[1]"},
		{"PassRole through NotAction", `{"Statement":[{"Effect":"Allow","NotAction":"s3:*","Resource":"*"}]}`,
			"LEASH-LP-005", High, "Statement[0].NotAction"},
		{"PassRole with PassedToService", `{"Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"eks.amazonaws.com"}}}]}`,
			"LEASH-LP-005", -1, ""},
		{"PassRole with an unrelated condition", `{"Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-north-1"}}}]}`,
			"LEASH-LP-005", High, "Statement[0].Action"},
		{"iam:Get* is not PassRole", `{"Statement":[{"Effect":"Allow","Action":"iam:Get*","Resource":"*"}]}`,
			"LEASH-LP-005", -1, ""},
	}
	rules := make([]ruleCase, len(cases))
	for i, c := range cases {
		rules[i] = ruleCase{name: c.name, kind: policy.Identity, doc: c.doc, id: c.id, severity: c.severity, path: c.path}
	}
	checkRuleCases(t, rules, func(doc *policy.Document) []Finding { return LeastPrivilege(doc, "app-policy") })
}

// The seed's krops-ci-e2e policies name their actions and resources: no
// least-privilege finding of these rules.
func TestKropsCIE2ELeastPrivilege(t *testing.T) {
	for _, f := range []string{"krops-ci-e2e/ack-mgmt.json", "krops-ci-e2e/sweep.json", "krops-ci-e2e/self-deny.json"} {
		if fs := LeastPrivilege(docFile(t, policy.Identity, f), f); len(fs) != 0 {
			t.Errorf("%s: %v", f, fs)
		}
	}
}
