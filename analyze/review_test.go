package analyze

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

func named(t *testing.T, name, doc string) policy.Named {
	t.Helper()
	return policy.Named{Name: name, Document: docOf(t, policy.Identity, doc)}
}

// The seed's pruned node role: only what the node calls, which --only
// 'ec2:Describe*' asserts.
const prunedNodeRole = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}`

func TestOnlyPrunedNodeRolePasses(t *testing.T) {
	if fs := Only([]policy.Named{named(t, "node", prunedNodeRole)}, []string{"ec2:Describe*"}, nil); len(fs) != 0 {
		t.Errorf("pruned node role: %v, want no finding", fs)
	}
}

// The node role as it was, with attach and load balancer rights besides
// the Describe actions, fails the assertion on its second statement.
func TestOnlyOriginalNodeRoleFails(t *testing.T) {
	original := named(t, "node", `{"Version":"2012-10-17","Statement":[
	  {"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"},
	  {"Effect":"Allow","Action":["ec2:AttachVolume","elasticloadbalancing:*"],"Resource":"*"}]}`)
	fs := Only([]policy.Named{original}, []string{"ec2:Describe*"}, nil)
	if len(fs) != 1 {
		t.Fatalf("got %v, want one finding", fs)
	}
	f := fs[0]
	if f.ID != "LEASH-ONLY-001" || f.Severity != High || f.Policy != "node" || f.Path != "Statement[1]" {
		t.Errorf("got %v, want LEASH-ONLY-001 high at node Statement[1]", f)
	}
	elb := len(catalog.Default().Expand("elasticloadbalancing:*"))
	for _, want := range []string{"ec2:AttachVolume, elasticloadbalancing:", "outside ec2:Describe*", " more"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q lacks %q", f.Message, want)
		}
	}
	if n := strings.Count(f.Message, ", ") + 1; n != 10 {
		t.Errorf("message lists %d actions, want the first 10: %s", n, f.Message)
	}
	if !strings.Contains(f.Message, "allows "+strconv.Itoa(elb+1)+" actions") {
		t.Errorf("message %q does not count %d actions", f.Message, elb+1)
	}
}

func TestOnlyRules(t *testing.T) {
	cases := []struct {
		name     string
		policies []string
		allowed  []string
		// path is where the one finding is, "" for none; want is in its
		// message.
		path, want string
	}{
		{"an extra action is named", []string{v12(allow(`["ec2:DescribeInstances","ec2:TerminateInstances"]`, `"*"`))},
			[]string{"ec2:Describe*"}, "Statement[0].Action[1]", "1 actions outside ec2:Describe*: ec2:TerminateInstances"},
		{"allowed patterns ignore case", []string{v12(allow(`"EC2:describeinstances"`, `"*"`))},
			[]string{"ec2:Describe*"}, "", ""},
		{"several allowed patterns", []string{v12(allow(`["s3:GetObject","s3:ListBucket"]`, `"*"`))},
			[]string{"s3:Get*", "s3:List*"}, "", ""},
		{"NotAction allows the rest of the catalog", []string{v12(`{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}`)},
			[]string{"ec2:Describe*"}, "Statement[0].NotAction", "every action AWS adds later"},
		{"Action * allows the whole catalog", []string{v12(allow(`"*"`, `"*"`))},
			[]string{"ec2:Describe*"}, "Statement[0].Action", "a2c:"},
		{"an action unknown to the catalog inside the allowed patterns", []string{v12(allow(`"ec2:DescribeNextYear"`, `"*"`))},
			[]string{"ec2:Describe*"}, "", ""},
		{"an action unknown to the catalog outside them", []string{v12(allow(`["ec2:DescribeInstances","ec2:LaunchNextYear"]`, `"*"`))},
			[]string{"ec2:Describe*"}, "Statement[0].Action[1]", "ec2:LaunchNextYear"},
		{"unconditional Deny takes actions away", []string{v12(allow(`"ec2:*Instances"`, `"*"`)),
			v12(`{"Effect":"Deny","NotAction":"ec2:Describe*","Resource":"*"}`)},
			[]string{"ec2:Describe*"}, "", ""},
		{"conditional Deny does not", []string{v12(allow(`["ec2:DescribeInstances","ec2:TerminateInstances"]`, `"*"`)),
			v12(`{"Effect":"Deny","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"Bool":{"aws:MultiFactorAuthPresent":"false"}}}`)},
			[]string{"ec2:Describe*"}, "Statement[0].Action[1]", "ec2:TerminateInstances"},
		{"Deny statements grant nothing", []string{v12(deny(`"iam:*"`, `"*"`))},
			[]string{"ec2:Describe*"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ps []policy.Named
			for i, d := range c.policies {
				ps = append(ps, named(t, "p"+string(rune('0'+i)), d))
			}
			fs := Only(ps, c.allowed, nil)
			if c.path == "" {
				if len(fs) != 0 {
					t.Errorf("want no finding, got %v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != "LEASH-ONLY-001" || fs[0].Severity != High || fs[0].Path != c.path ||
				!strings.Contains(fs[0].Message, c.want) || fs[0].Fix == "" {
				t.Errorf("got %v, want one LEASH-ONLY-001 at %s saying %q", fs, c.path, c.want)
			}
		})
	}
}

// Statements that name a principal grant to others: Only leaves them out.
func TestOnlySkipsTrustStatements(t *testing.T) {
	trust := policy.Named{Name: "trust", Document: docFile(t, policy.Trust, "krops-ci-e2e/trust.json")}
	if fs := Only([]policy.Named{trust, named(t, "node", prunedNodeRole)}, []string{"ec2:Describe*"}, nil); len(fs) != 0 {
		t.Errorf("got %v, want no finding", fs)
	}
}

func kropsReview(t *testing.T, files ...string) []Finding {
	t.Helper()
	var ps []policy.Named
	for _, f := range files {
		kind := policy.Identity
		if f == "trust" {
			kind = policy.Trust
		}
		ps = append(ps, policy.Named{Name: "krops-ci-e2e-" + f, Document: docFile(t, kind, "krops-ci-e2e/"+f+".json")})
	}
	return Review(ps, kropsRole, nil)
}

// The seed's krops-ci-e2e role with its self-deny guard has no critical
// finding; without the guard it can escalate itself.
func TestReviewKropsCIE2E(t *testing.T) {
	for _, files := range [][]string{{"ack-mgmt", "self-deny"}, {"ack-mgmt", "self-deny", "sweep", "trust"}} {
		fs := kropsReview(t, files...)
		for _, f := range fs {
			if f.AtLeast(Critical) {
				t.Errorf("%v: critical finding %v", files, f)
			}
		}
		if len(withID(fs, "LEASH-ESC-SELF-GUARD")) != 1 {
			t.Errorf("%v: no LEASH-ESC-SELF-GUARD in %v", files, fs)
		}
	}
	fs := kropsReview(t, "ack-mgmt")
	self := withID(fs, "LEASH-ESC-SELF")
	if len(self) == 0 || !slices.ContainsFunc(self, func(f Finding) bool { return f.Severity == Critical }) {
		logFindings(t, fs)
		t.Fatal("without self-deny: want a critical LEASH-ESC-SELF")
	}
	if fs[0].ID != "LEASH-ESC-SELF" || fs[0].Severity != Critical {
		t.Errorf("first finding %v, want the critical LEASH-ESC-SELF first", fs[0])
	}
}

// Every check runs where it applies: identity policies get the catalog,
// least-privilege and escalation checks, trust policies the trust checks.
func TestReviewRunsEachCheck(t *testing.T) {
	identity := named(t, "app", `{"Statement":[
	  {"Effect":"Allow","Action":["s3:GetObjekt","iam:PassRole"],"Resource":"*"},
	  {"Effect":"Allow","Action":"s3:Get*","Resource":"*"},
	  {"Effect":"Allow","Action":"iam:CreatePolicyVersion","Resource":"*"}]}`)
	trust := policy.Named{Name: "trust", Document: docOf(t, policy.Trust, v12(
		`{"Effect":"Allow","Principal":{"Federated":"`+githubProvider+`"},"Action":"sts:AssumeRoleWithWebIdentity"}`))}
	fs := Review([]policy.Named{trust, identity}, "", nil)
	want := map[string]string{
		"LEASH-VAL-002": "app", "LEASH-VAL-006": "app", "LEASH-LP-005": "app", "LEASH-LP-006": "app",
		"LEASH-LP-007": "app", "LEASH-ESC-001": "app", "LEASH-TRUST-001": "trust", "LEASH-TRUST-003": "trust",
	}
	for id, policyName := range want {
		got := withID(fs, id)
		if len(got) == 0 || got[0].Policy != policyName {
			t.Errorf("%s: got %v, want one in %s", id, got, policyName)
		}
	}
	for _, f := range fs {
		if f.Policy == "trust" && !strings.HasPrefix(f.ID, "LEASH-TRUST-") {
			t.Errorf("identity check on the trust policy: %v", f)
		}
	}
	if !slices.IsSortedFunc(fs, func(a, b Finding) int { return int(b.Severity) - int(a.Severity) }) {
		t.Errorf("not sorted by severity: %v", fs)
	}
}

func TestKindOf(t *testing.T) {
	cases := []struct {
		kind policy.Kind
		doc  string
		want policy.Kind
	}{
		{policy.Identity, prunedNodeRole, policy.Identity},
		{policy.Trust, v12(`{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}`), policy.Trust},
		{policy.Trust, v12(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":["sts:TagSession","sts:Assume*"]}`), policy.Trust},
		{policy.Resource, v12(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::krops/*"}`), policy.Resource},
		{policy.Resource, v12(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"*","Resource":"*"}`), policy.Resource},
	}
	for _, c := range cases {
		if got := KindOf(docOf(t, c.kind, c.doc)); got != c.want {
			t.Errorf("%s: %v, want %v", c.doc, got, c.want)
		}
	}
}

func TestSortFindings(t *testing.T) {
	fs := []Finding{
		{ID: "B", Severity: Medium, Policy: "a", Path: "Statement[10]"},
		{ID: "A", Severity: Medium, Policy: "a", Path: "Statement[2].Action[10]"},
		{ID: "C", Severity: Medium, Policy: "a", Path: "Statement[2].Action[9]"},
		{ID: "D", Severity: Critical, Policy: "z", Path: "Statement[0]"},
		{ID: "E", Severity: Medium, Policy: "", Path: ""},
		{ID: "F", Severity: Low, Policy: "a", Path: "Version"},
	}
	SortFindings(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.ID)
	}
	if want := "D E C A B F"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

func TestAtLeast(t *testing.T) {
	f := Finding{Severity: High}
	if !f.AtLeast(Medium) || !f.AtLeast(High) || f.AtLeast(Critical) {
		t.Errorf("AtLeast is wrong for %v", f.Severity)
	}
}

// benchPolicy is a ten-statement policy of the kind leash check reviews:
// named actions and resources, wildcards, conditions and a Deny.
const benchPolicy = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::krops-*/*"},
  {"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::krops-*","Condition":{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}},
  {"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"},
  {"Effect":"Allow","Action":["ec2:AttachVolume","ec2:DetachVolume"],"Resource":["arn:aws:ec2:*:*:instance/*","arn:aws:ec2:*:*:volume/*"],"Condition":{"StringEquals":{"aws:ResourceTag/team":"krops"}}},
  {"Effect":"Allow","Action":["iam:GetRole","iam:PassRole"],"Resource":"arn:aws:iam::*:role/krops-*","Condition":{"StringEquals":{"iam:PassedToService":"ec2.amazonaws.com"}}},
  {"Effect":"Allow","Action":["logs:CreateLogStream","logs:PutLogEvents"],"Resource":"arn:aws:logs:*:*:log-group:/krops/*"},
  {"Effect":"Allow","Action":["kms:Decrypt","kms:GenerateDataKey"],"Resource":"arn:aws:kms:eu-north-1:123456789012:key/*","Condition":{"StringEquals":{"kms:ViaService":"s3.eu-north-1.amazonaws.com"}}},
  {"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"*"},
  {"Effect":"Allow","Action":["eks:DescribeCluster","eks:ListClusters"],"Resource":"*"},
  {"Effect":"Deny","Action":["iam:PutRolePolicy","iam:AttachRolePolicy"],"Resource":"arn:aws:iam::123456789012:role/krops-ci-e2e"}]}`

func BenchmarkReview(b *testing.B) {
	doc, err := policy.Parse([]byte(benchPolicy), policy.Identity)
	if err != nil {
		b.Fatal(err)
	}
	ps := []policy.Named{{Name: "bench", Document: doc}}
	cat := catalog.Default()
	Review(ps, kropsRole, cat) // decode the catalog outside the loop
	b.ReportAllocs()
	for b.Loop() {
		Review(ps, kropsRole, cat)
	}
}
