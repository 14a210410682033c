package simulate

import (
	"encoding/json"
	"strings"
	"testing"

	"leash.dev/leash/internal/inputerr"
)

func TestContextFromFlags(t *testing.T) {
	tests := []struct {
		name  string
		pairs []string
		want  string // the context as JSON
	}{
		{"no flags give no context", nil, `null`},
		{"a key given once is a JSON string", []string{"aws:SourceIp=203.0.113.7"}, `{"aws:SourceIp":"203.0.113.7"}`},
		{"a key given twice is a JSON array in flag order", []string{"aws:TagKeys=env", "aws:TagKeys=team"}, `{"aws:TagKeys":["env","team"]}`},
		{"repeats of a key in another case join the first spelling", []string{"aws:TagKeys=env", "AWS:TAGKEYS=team"}, `{"aws:TagKeys":["env","team"]}`},
		{"key= is one empty string", []string{"aws:PrincipalTag/team="}, `{"aws:PrincipalTag/team":""}`},
		{"only the first = splits key from value", []string{"k=a=b"}, `{"k":"a=b"}`},
		{"numbers and booleans stay strings, as the operators read them", []string{"aws:MultiFactorAuthAge=300", "aws:SecureTransport=true"}, `{"aws:MultiFactorAuthAge":"300","aws:SecureTransport":"true"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, err := contextFromFlags(tt.pairs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestContextFromFlagsRejects(t *testing.T) {
	tests := []struct {
		name    string
		pair    string
		wantMsg string
	}{
		{"a pair without = needs key=value", "aws:SourceIp", `has no "="`},
		{"a pair without a key needs a key", "=x", "has no key name"},
		{"a blank key needs a key", "  =x", "has no key name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := contextFromFlags([]string{tt.pair})
			ie, ok := err.(*inputerr.Error)
			if !ok || ie.Source != "--context" || !strings.Contains(ie.Msg, tt.wantMsg) {
				t.Errorf("got %v, want an --context error saying %q", err, tt.wantMsg)
			}
		})
	}
}

func FuzzContextFromFlags(f *testing.F) {
	for _, s := range []string{"aws:TagKeys=env", "k=", "=v", "k", "k=a=b", "é=\xff"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ctx, err := contextFromFlags([]string{a, b})
		if err != nil {
			return
		}
		// Whatever was accepted must compile as a Case's context.
		c := Case{Action: "s3:GetObject", Context: ctx}
		if _, err := c.Compile("fuzz", ""); err != nil {
			t.Fatalf("accepted %q, %q but the case does not compile: %v", a, b, err)
		}
	})
}

func TestFlagsCasesOrganizationLevels(t *testing.T) {
	f := Flags{
		SCP:     []string{"testdata/full-access.json", "testdata/full-access.json,testdata/deny-s3-delete-scp.json"},
		RCP:     []string{"testdata/rcp-full-access.json"},
		Actions: []string{"s3:GetObject", "s3:PutObject"},
	}
	cases, err := f.Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Action != "s3:GetObject" || cases[1].Action != "s3:PutObject" {
		t.Fatalf("want one case per action in order, got %+v", cases)
	}
	var names [][]string
	for _, level := range cases[0].SCPs {
		var l []string
		for _, d := range level {
			l = append(l, d.Name)
		}
		names = append(names, l)
	}
	if got, want := names, [][]string{{"full-access"}, {"full-access", "deny-s3-delete-scp"}}; !equalLevels(got, want) {
		t.Errorf("each --scp is one level, commas share a level, names are base names: got %q, want %q", got, want)
	}
	if len(cases[0].RCPs) != 1 || len(cases[0].RCPs[0]) != 1 {
		t.Errorf("one --rcp is one level with one policy, got %+v", cases[0].RCPs)
	}
	if cases[0].Resource != "*" {
		t.Errorf("resource defaults to *, got %q", cases[0].Resource)
	}
}

func equalLevels(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}

func TestFlagsGiven(t *testing.T) {
	tests := []struct {
		name  string
		flags Flags
		want  string
	}{
		{"nothing given", Flags{}, ""},
		{"--resource counts even when it is *", Flags{Resource: "*"}, "--resource"},
		{"flags are listed in --help order", Flags{Context: []string{"k=v"}, Identity: []string{"a.json"}, Actions: []string{"s3:GetObject"}}, "--identity,--action,--context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(tt.flags.Given(), ","); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPolicyName(t *testing.T) {
	tests := []struct{ file, want string }{
		{"ccm.json", "ccm"},
		{"policies/org/deny-regions.json", "deny-regions"},
		{"policy", "policy"},
		{"v1.2.policy.json", "v1.2.policy"},
	}
	for _, tt := range tests {
		if got := policyName(tt.file); got != tt.want {
			t.Errorf("policyName(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}
