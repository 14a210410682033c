package credfile

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

const (
	exampleID     = "AKIAIOSFODNN7EXAMPLE"
	exampleTempID = "ASIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func TestInspectFile(t *testing.T) {
	tests := []struct {
		name, text, mode, class string
		keys                    []string
		problem                 string
	}{
		{"static", Static(exampleID, exampleSecret, ""), ModeStatic, KeyIDLongTerm,
			[]string{"aws_access_key_id", "aws_secret_access_key"}, ""},
		{"temporary", Static(exampleTempID, exampleSecret, "tok"), ModeTemporary, KeyIDTemporary,
			[]string{"aws_access_key_id", "aws_secret_access_key", "aws_session_token"}, ""},
		{"web identity", WebIdentity("arn:aws:iam::111122223333:role/r", "/token"), ModeWebIdentity, "",
			[]string{"role_arn", "sts_regional_endpoints", "web_identity_token_file"}, ""},
		{"empty", "# nothing\n", ModeEmpty, "", []string{}, ""},
		{"malformed names the line", "[default]\naws_access_key_id\n", ModeMalformed, "", []string{}, "line 2:"},
		{"half pair", "[default]\naws_access_key_id = " + exampleID + "\n", ModeMalformed, KeyIDLongTerm,
			[]string{"aws_access_key_id"}, "without aws_secret_access_key"},
		{"token without key", "[default]\naws_session_token = tok\n", ModeMalformed, "",
			[]string{"aws_session_token"}, "without a key pair"},
		{"temporary id without token", Static(exampleTempID, exampleSecret, ""), ModeMalformed, KeyIDTemporary,
			[]string{"aws_access_key_id", "aws_secret_access_key"}, "without aws_session_token"},
		{"role without token file", "[default]\nrole_arn = arn:aws:iam::111122223333:role/r\n", ModeMalformed, "",
			[]string{"role_arn"}, "without web_identity_token_file"},
		{"no default profile", "[a]\nx = 1\n[b]\n", ModeMalformed, "", []string{}, "no [default] profile"},
		{"only profile is used", "[profile ci]\naws_access_key_id = x\naws_secret_access_key = y\n", ModeStatic, KeyIDUnknown,
			[]string{"aws_access_key_id", "aws_secret_access_key"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Inspect(tt.text)
			if r.Mode != tt.mode || r.KeyIDClass != tt.class || !slices.Equal(r.Keys, tt.keys) {
				t.Errorf("got mode %q class %q keys %v, want %q %q %v", r.Mode, r.KeyIDClass, r.Keys, tt.mode, tt.class, tt.keys)
			}
			if got := strings.Join(r.Problems, "\n"); tt.problem == "" && got != "" || !strings.Contains(got, tt.problem) {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
			if r.Usable() != (tt.problem == "" && tt.mode != ModeEmpty) {
				t.Errorf("Usable() = %v", r.Usable())
			}
		})
	}
}

func TestInspectSecret(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, manifest, mode, class, problem string
	}{
		{"base64 data", "kind: Secret\ndata:\n  aws_access_key_id: " + b64(exampleID) + "\n  aws_secret_access_key: " + b64(exampleSecret) +
			"\n  credentials: " + b64(Static(exampleID, exampleSecret, "")) + "\n", ModeStatic, KeyIDLongTerm, ""},
		{"stringData file only", "kind: Secret\nstringData:\n  credentials: |\n    [default]\n    aws_access_key_id = " + exampleTempID +
			"\n    aws_secret_access_key = " + exampleSecret + "\n    aws_session_token = tok\n", ModeTemporary, KeyIDTemporary, ""},
		{"keys and file disagree", "kind: Secret\nstringData:\n  aws_access_key_id: " + exampleID + "\n  aws_secret_access_key: s\n  credentials: |\n    [default]\n    aws_access_key_id = AKIAOTHER\n    aws_secret_access_key = s\n",
			ModeMalformed, KeyIDLongTerm, "differ"},
		{"half pair", "kind: Secret\nstringData:\n  aws_secret_access_key: " + exampleSecret + "\n", ModeMalformed, "", "without aws_access_key_id"},
		{"malformed file", "kind: Secret\nstringData:\n  credentials: \"[default\\n\"\n", ModeMalformed, "", "credentials file: line 1:"},
		{"bad base64", "kind: Secret\ndata:\n  aws_access_key_id: '***'\n", ModeMalformed, "", "data.aws_access_key_id is not base64"},
		{"empty", "kind: Secret\nmetadata:\n  name: x\n", ModeEmpty, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := InspectSecret([]byte(tt.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if r.Mode != tt.mode || r.KeyIDClass != tt.class {
				t.Errorf("got mode %q class %q, want %q %q (%v)", r.Mode, r.KeyIDClass, tt.mode, tt.class, r.Problems)
			}
			if got := strings.Join(r.Problems, "\n"); tt.problem == "" && got != "" || !strings.Contains(got, tt.problem) {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
			for _, p := range r.Problems {
				if strings.Contains(p, exampleSecret) || strings.Contains(p, exampleID) {
					t.Errorf("a problem shows a value: %s", p)
				}
			}
		})
	}
	for _, bad := range []string{"kind: ConfigMap\n", "a: [\n"} {
		if _, err := InspectSecret([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
