package operator

import (
	"strings"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// testCeiling allows reading IAM users and listing, but never reading the
// users named protected-*: a Deny narrower than a request for
// iam:GetUser on "*", which the engine's check accepts and only the
// boundary can enforce.
const testCeiling = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":["iam:GetUser","iam:ListUsers","ec2:Describe*"],"Resource":"*"},
 {"Effect":"Deny","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/protected-*"}]}`

func TestGuardrailsRefuse(t *testing.T) {
	ceiling := Config{Guardrails: Guardrails{Ceiling: testCeiling}}
	limited := Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"apps": {"ec2:Describe*"}}}}
	checkRefusals(t, []refusal{
		{"an action above the ceiling is refused naming it, and no user is made", ceiling, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "above", allow("*", "iam:GetUser", "iam:CreateUser"))
		}, "AboveCeiling", []string{"the cluster's ceiling does not allow iam:CreateUser on *", "raise the ceiling"}},
		{"a resource above the ceiling's Deny is refused", ceiling, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "denied", allow("arn:aws:iam::123456789012:user/protected-db", "iam:GetUser"))
		}, "AboveCeiling", []string{"iam:GetUser on arn:aws:iam::123456789012:user/protected-db"}},
		{"many actions above the ceiling spell out five and count the rest", ceiling, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "many", allow("*", "s3:GetObject", "s3:PutObject", "s3:ListBucket", "s3:DeleteObject", "s3:GetBucketTagging", "s3:GetBucketPolicy", "s3:GetBucketAcl"))
		}, "AboveCeiling", []string{"s3:GetObject on *", "; and 2 more"}},
		{"an action outside the namespace's allow-list is refused naming it", limited, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "outside", allow("*", "ec2:DescribeInstances", "s3:GetObject"))
		}, "ActionNotAllowed", []string{"namespace apps may ask only for ec2:Describe*", "s3:GetObject", "namespaceActions"}},
		{"the \"*\" allow-list limits the namespaces not listed", Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"*": {"s3:Get*"}}}}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "star", allow("*", "ec2:DescribeInstances"))
		}, "ActionNotAllowed", []string{"namespace apps may ask only for s3:Get*", "ec2:DescribeInstances"}},
		{"action * on resource * is refused by default as a critical escalation", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "admin", allow("*", "*"))
		}, "PrivilegeEscalation", []string{"critical LEASH-ESC-", "escalationNamespaces"}},
		{"iam:PassRole with ec2:RunInstances on any role is refused by default", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "passrole", allow("*", "iam:PassRole", "ec2:RunInstances"))
		}, "PrivilegeEscalation", []string{"critical LEASH-ESC-"}},
		{"a high escalation is refused when refuseEscalation is high", Config{Guardrails: Guardrails{RefuseEscalation: "high"}}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "high", allow("arn:aws:iam::*:role/app-*", "iam:PassRole"), allow("*", "ec2:RunInstances"))
		}, "PrivilegeEscalation", []string{"high LEASH-ESC-"}},
		{"a namespace allowed escalations is still held to the ceiling", Config{Guardrails: Guardrails{Ceiling: testCeiling, EscalationNamespaces: []string{"apps"}}}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "trusted", allow("*", "*"))
		}, "AboveCeiling", []string{"the cluster's ceiling does not allow", "raise the ceiling"}},
		{"another namespace's escalation allowance does not cover this one", Config{Guardrails: Guardrails{EscalationNamespaces: []string{"platform"}}}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "elsewhere", allow("*", "*"))
		}, "PrivilegeEscalation", []string{"namespace apps"}},
	})
}

func TestGuardrailsAllow(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		entries []leashv1.StatementEntry
	}{
		{"a request within the ceiling is minted", Config{Guardrails: Guardrails{Ceiling: testCeiling}}, []leashv1.StatementEntry{allow("*", "ec2:DescribeInstances", "iam:GetUser")}},
		{"a request within its namespace's allow-list is minted", Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"apps": {"ec2:Describe*", "s3:*"}}}}, []leashv1.StatementEntry{allow("*", "ec2:DescribeInstances", "s3:GetObject")}},
		{"an unlisted namespace is limited by the ceiling only", Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"team-b": {"s3:*"}}}}, []leashv1.StatementEntry{allow("*", "ec2:DescribeInstances")}},
		{"action * on resource * is minted in a namespace allowed escalations", Config{Guardrails: Guardrails{EscalationNamespaces: []string{"apps"}}}, []leashv1.StatementEntry{allow("*", "*")}},
		{"action * on resource * is minted with the gate off", Config{Guardrails: Guardrails{RefuseEscalation: "off"}}, []leashv1.StatementEntry{allow("*", "*")}},
		{"a high escalation passes the default critical gate", Config{}, []leashv1.StatementEntry{allow("arn:aws:iam::*:role/app-*", "iam:PassRole"), allow("*", "ec2:RunInstances")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{cfg: tt.cfg})
			e.ready(t, mintRequest(t, "ok", tt.entries...))
		})
	}
}

// TestCeilingIsTheBoundary pins that IAM enforces the ceiling: the minted
// user carries the ceiling policy as its permissions boundary, so the key
// is denied what the ceiling denies although its own policy allows it.
func TestCeilingIsTheBoundary(t *testing.T) {
	e := newEnv(t, envOptions{cfg: Config{Guardrails: Guardrails{Ceiling: testCeiling}}})
	for _, name := range []string{"protected-db", "open-db"} {
		if _, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	cr := mintRequest(t, "reader", allow("*", "iam:GetUser"))
	out := e.ready(t, cr)
	ceilingARN := "arn:aws:iam::" + e.account + ":policy" + ceilingPath("unit") + ceilingPolicyName("unit")
	user, err := e.admin.GetUser(e.ctx, out.User)
	if err != nil {
		t.Fatal(err)
	}
	if user.Boundary != ceilingARN {
		t.Fatalf("the minted user's boundary is %q, want the ceiling policy %s", user.Boundary, ceilingARN)
	}
	key := e.admin.WithKey(e.publishedKey(t, cr))
	if _, err := key.GetUser(e.ctx, "open-db"); err != nil {
		t.Errorf("iam:GetUser open-db with the key: %v, want allowed by the request and the ceiling", err)
	}
	if _, err := key.GetUser(e.ctx, "protected-db"); !iamclient.IsAccessDenied(err) {
		t.Errorf("iam:GetUser protected-db with the key: %v, want AccessDenied by the ceiling boundary", err)
	}

	// A changed ceiling becomes the policy's default version at the next
	// start, and the sweep leaves the policy alone.
	changed := strings.Replace(testCeiling, `"iam:ListUsers",`, "", 1)
	p := e.provisioner(t, Config{Guardrails: Guardrails{Ceiling: changed}})
	if out, err := e.sync(t, p, cr); err != nil || !out.Provisioned {
		t.Fatalf("sync under the changed ceiling: %v, %+v", err, out.Failure)
	}
	doc, err := e.admin.ManagedPolicyDocument(e.ctx, ceilingARN)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc, "iam:ListUsers") || !strings.Contains(doc, "ec2:Describe*") {
		t.Errorf("the ceiling policy still allows iam:ListUsers after the ceiling dropped it: %s", doc)
	}
	if _, err := p.Sweep(e.ctx, map[string]bool{string(cr.UID): true}, 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.ManagedPolicyDocument(e.ctx, ceilingARN); err != nil {
		t.Errorf("the ceiling policy after a sweep: %v, want it kept", err)
	}
}

func TestGuardrailSettingsRefused(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"a ceiling that is not JSON", Config{Guardrails: Guardrails{Ceiling: "{"}}, "ceiling: "},
		{"a ceiling without an Allow", Config{Guardrails: Guardrails{Ceiling: `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`}}, "has no Allow statement"},
		{"a ceiling and a permissions boundary at once", Config{Boundary: "arn:aws:iam::123456789012:policy/b", Guardrails: Guardrails{Ceiling: testCeiling}}, "give one of them"},
		{"an unknown severity", Config{Guardrails: Guardrails{RefuseEscalation: "severe"}}, "--refuse-escalation"},
		{"a namespace with an empty allow-list", Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"apps": {}}}}, `namespace "apps" lists no action patterns`},
		{"an allow-list entry that is not an action", Config{Guardrails: Guardrails{NamespaceActions: map[string][]string{"apps": {"s3"}}}}, `"s3" of namespace "apps" is not an action pattern`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Mode, cfg.ClusterName = leashv1.ModeMint, "unit"
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
