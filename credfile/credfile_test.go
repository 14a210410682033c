package credfile

import (
	"strings"
	"testing"
)

func TestRenderThenParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[string]string
	}{
		{"static key", Static("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""),
			map[string]string{"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		{"temporary key carries its session token", Static("ASIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "token"),
			map[string]string{"aws_access_key_id": "ASIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_session_token": "token"}},
		{"web identity", WebIdentity("arn:aws:iam::111122223333:role/ccm", "/var/run/secrets/openshift/serviceaccount/token"),
			map[string]string{"role_arn": "arn:aws:iam::111122223333:role/ccm", "web_identity_token_file": "/var/run/secrets/openshift/serviceaccount/token", "sts_regional_endpoints": "regional"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.HasPrefix(tt.text, "[default]\n") {
				t.Errorf("rendered file does not start with [default]:\n%s", tt.text)
			}
			f, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(f["default"]) != len(tt.want) {
				t.Errorf("settings %v, want %v", f["default"], tt.want)
			}
			for k, v := range tt.want {
				if f["default"][k] != v {
					t.Errorf("%s = %q, want %q", k, f["default"][k], v)
				}
			}
		})
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"setting before any profile", "aws_access_key_id = x\n", "line 1: setting before the first [profile]"},
		{"unclosed header", "# keys\n[default\n", "line 2: a profile header must end with ']'"},
		{"line without =", "[default]\naws_access_key_id\n", "line 2: expected key = value"},
		{"empty profile name", "[ ]\n", "line 1: empty profile name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestStaticKeyNeedsBothHalves(t *testing.T) {
	f, err := Parse("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n[profile other]\nAWS_ACCESS_KEY_ID = a\naws_secret_access_key = b\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := f.StaticKey("default"); ok {
		t.Error("a profile with only the key ID has a static key")
	}
	if id, secret, _, ok := f.StaticKey("other"); !ok || id != "a" || secret != "b" {
		t.Errorf("[profile other] with upper-case key names: %q %v", id, ok)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Static("AKIAIOSFODNN7EXAMPLE", "secret", ""))
	f.Add(WebIdentity("arn:aws:iam::111122223333:role/r", "/token"))
	f.Add("[a]\n; c\n#d\nk=v=w\n[b]\n")
	f.Fuzz(func(t *testing.T, text string) {
		file, err := Parse(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "token too long") {
				t.Errorf("error without a line: %v", err)
			}
			return
		}
		// What parses renders and parses back to the same settings.
		var profiles []Profile
		for name, settings := range file {
			p := Profile{Name: name}
			for k, v := range settings {
				p.Settings = append(p.Settings, [2]string{k, v})
			}
			profiles = append(profiles, p)
		}
		again, err := Parse(Render(profiles...))
		if err != nil {
			t.Fatalf("rendered file does not parse: %v", err)
		}
		for name, settings := range file {
			for k, v := range settings {
				if again[name][k] != v {
					t.Fatalf("[%s] %s = %q after a round trip, want %q", name, k, again[name][k], v)
				}
			}
		}
	})
}
