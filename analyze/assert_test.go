package analyze

import (
	"errors"
	"strings"
	"testing"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

const (
	createUserDoc = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"iam:CreateUser","Resource":"*"}]}`
	kropsUsersDoc = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"},
  {"Sid":"Users","Effect":"Allow","Action":["iam:CreateUser","iam:GetUser"],"Resource":"arn:aws:iam::*:user/krops-*"}]}`
	denyUsersDoc = `{"Version":"2012-10-17","Statement":[
  {"Sid":"NoUsers","Effect":"Deny","Action":"iam:CreateUser","Resource":"*"}]}`
	denyObjectsDoc = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops-a/*"},
  {"Sid":"NoReports","Effect":"Deny","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops-a/reports/*"}]}`
	taggedOnlyDoc = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/team":"krops"}}}]}`
	s3OnlyBoundaryDoc = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`
)

const assertPrincipal = "arn:aws:iam::123456789012:user/principal"

// TestCheckAssertions pins --must-allow and --must-deny as leash's engine
// answers them: which statement is blamed, the message and the fix.
func TestCheckAssertions(t *testing.T) {
	cat := catalog.Default()
	docs := map[string]string{"create-user.json": createUserDoc, "krops-users.json": kropsUsersDoc, "deny-users.json": denyUsersDoc,
		"deny-objects.json": denyObjectsDoc, "tagged-only.json": taggedOnlyDoc}
	type want struct{ id, policy, path, message, fix string } // message and fix: substrings
	tests := []struct {
		name      string
		files     []string
		boundary  string // a document for the permissions boundary, "" for none
		principal string // "" for assertPrincipal
		allow     []string
		deny      []string
		want      []want // nil: the assertions hold
	}{
		{name: "an Allow on * fails --must-deny", files: []string{"create-user.json"}, deny: []string{"iam:CreateUser"},
			want: []want{{"LEASH-ASSERT-DENY", "create-user.json", "Statement[0]", "--must-deny iam:CreateUser fails: allowed by", "remove iam:CreateUser from the Allow statement"}}},
		{name: "an Allow on a resource pattern fails --must-deny without a resource", files: []string{"krops-users.json"}, deny: []string{"iam:CreateUser"},
			want: []want{{"LEASH-ASSERT-DENY", "krops-users.json", "Statement[1]", `iam:CreateUser on arn:aws:iam::*:user/krops-*`, ""}}},
		{name: "the blamed statement is named with its Sid", files: []string{"krops-users.json"}, deny: []string{"iam:CreateUser"},
			want: []want{{"LEASH-ASSERT-DENY", "krops-users.json", "Statement[1]", `(Sid "Users")`, ""}}},
		{name: "--must-deny on a resource the pattern does not match holds", files: []string{"krops-users.json"},
			deny: []string{"iam:CreateUser@arn:aws:iam::123456789012:user/alice"}},
		{name: "a Deny in another policy of the set makes --must-deny hold", files: []string{"create-user.json", "deny-users.json"}, deny: []string{"iam:CreateUser"}},
		{name: "a pattern asks each action it matches, in one finding per statement", files: []string{"krops-users.json"}, deny: []string{"iam:*User"},
			want: []want{{"LEASH-ASSERT-DENY", "krops-users.json", "Statement[1]", "iam:CreateUser on arn:aws:iam::*:user/krops-*, iam:GetUser on", ""}}},
		{name: "--must-allow on the granted resource holds", files: []string{"krops-users.json"}, allow: []string{"iam:CreateUser@arn:aws:iam::123456789012:user/krops-ci"}},
		{name: "--must-allow on * of a resource-scoped grant fails with the engine's reason, on the first policy", files: []string{"krops-users.json"}, allow: []string{"iam:GetUser"},
			want: []want{{"LEASH-ASSERT-ALLOW", "krops-users.json", "", "--must-allow iam:GetUser fails: not allowed: iam:GetUser on * (no identity-based policy statement allows the action",
				"add an Allow statement for iam:GetUser on *, or give the resource the policies grant it on with iam:GetUser@RESOURCE"}}},
		{name: "an explicit Deny fails --must-allow and names the Deny", files: []string{"deny-objects.json"}, allow: []string{"s3:GetObject@arn:aws:s3:::krops-a/reports/q3.csv"},
			want: []want{{"LEASH-ASSERT-ALLOW", "deny-objects.json", "Statement[1]", `explicitly denied by identity policy "deny-objects.json" Statement[1] (Sid "NoReports")`,
				"remove s3:GetObject from the Deny statement or narrow its Resource"}}},
		{name: "an Allow whose condition needs context does not count, and is blamed", files: []string{"tagged-only.json"}, allow: []string{"ec2:TerminateInstances"},
			want: []want{{"LEASH-ASSERT-ALLOW", "tagged-only.json", "Statement[0]", "--must-allow ec2:TerminateInstances fails: not allowed: ec2:TerminateInstances on *", ""}}},
		{name: "a boundary that does not allow the action fails --must-allow, and the fix names the boundary", files: []string{"create-user.json"}, boundary: s3OnlyBoundaryDoc,
			allow: []string{"iam:CreateUser"},
			want:  []want{{"LEASH-ASSERT-ALLOW", "create-user.json", "", "--must-allow iam:CreateUser fails", "allow iam:CreateUser on * in the permissions boundary too"}}},
		{name: "a boundary makes --must-deny hold", files: []string{"create-user.json"}, boundary: s3OnlyBoundaryDoc, deny: []string{"iam:CreateUser"}},
		{name: "a user name with @ is the resource's", files: []string{"krops-users.json"}, allow: []string{"iam:GetUser@arn:aws:iam::123456789012:user/krops-a@example.com"}},
		{name: "assertions are about the principal given", files: []string{"krops-users.json"}, principal: "arn:aws:iam::123456789012:user/krops-ci",
			allow: []string{"ec2:DescribeInstances"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var identity []policy.Named
			for _, f := range tt.files {
				identity = append(identity, named(t, f, docs[f]))
			}
			var boundary *policy.Named
			if tt.boundary != "" {
				boundary = &policy.Named{Name: "boundary", Document: docOf(t, policy.Boundary, tt.boundary)}
			}
			var asserts []Assertion
			for _, spec := range tt.allow {
				a, err := ParseAssertion(cat, "--must-allow", spec, true)
				if err != nil {
					t.Fatal(err)
				}
				asserts = append(asserts, a)
			}
			for _, spec := range tt.deny {
				a, err := ParseAssertion(cat, "--must-deny", spec, false)
				if err != nil {
					t.Fatal(err)
				}
				asserts = append(asserts, a)
			}
			principal := tt.principal
			if principal == "" {
				principal = assertPrincipal
			}
			got, err := CheckAssertions(identity, boundary, principal, asserts, cat)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				f := got[i]
				if f.ID != w.id || f.Severity != High || f.Policy != w.policy || f.Path != w.path ||
					!strings.Contains(f.Message, w.message) || !strings.Contains(f.Fix, w.fix) {
					t.Errorf("got %+v\nwant %s high at %q %q, message with %q, fix with %q", f, w.id, w.policy, w.path, w.message, w.fix)
				}
			}
		})
	}
}

func TestParseAssertion(t *testing.T) {
	cat := catalog.Default()
	tests := []struct {
		name, spec   string
		wantActions  []string // with wantResource, when it parses
		wantResource string
		wantErr      string
	}{
		{name: "an action alone asks about *, given as no resource", spec: "iam:CreateUser", wantActions: []string{"iam:CreateUser"}},
		{name: "the resource follows the first @", spec: "iam:GetUser@arn:aws:iam::1:user/a@example.com", wantActions: []string{"iam:GetUser"}, wantResource: "arn:aws:iam::1:user/a@example.com"},
		{name: "a pattern is expanded with the catalog", spec: "iam:CreateAccessKey*", wantActions: []string{"iam:CreateAccessKey"}},
		{name: "a misspelt action suggests the right one", spec: "iam:CreateUsr", wantErr: "did you mean iam:CreateUser?"},
		{name: "nothing after @ is refused", spec: "s3:GetObject@", wantErr: "nothing after @"},
		{name: "an unknown service says so", spec: "nope:Thing", wantErr: `no service has the prefix "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseAssertion(cat, "--must-deny", tt.spec, false)
			if tt.wantErr != "" {
				var in *inputerr.Error
				if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "--must-deny ") {
					t.Errorf("got %v, want an input error from --must-deny saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(a.Actions, ",") != strings.Join(tt.wantActions, ",") || a.Resource != tt.wantResource || a.Allow || a.Spec != tt.spec {
				t.Errorf("got %+v, want actions %v on %q", a, tt.wantActions, tt.wantResource)
			}
		})
	}
}
