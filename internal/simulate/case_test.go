package simulate

import (
	"strings"
	"testing"
)

func TestCaseInputErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"context key repeated in another spelling", `{"action":"s3:GetObject","context":{"aws:PrincipalTag/team":"a","AWS:PrincipalTag/team":"b"}}`,
			"in.json: context.", /* either spelling may be reported */
		},
		{"JSON Lines errors name the line", "{\"action\":\"s3:GetObject\"}\n{\"action\":\"s3:GetObject\"}\n{\"action\":\"s3\"}\n",
			"in.json: line 3: action: must be one action"},
		{"array errors name the index", `[{"action":"s3:GetObject"},{"action":"s3:Get*"}]`, "in.json: [1].action: must be one action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := ReadCases([]byte(tt.input), "in.json")
			if err == nil {
				_, err = Run(cases, "in.json")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.name == "context key repeated in another spelling" && !strings.Contains(err.Error(), "case-insensitive") {
				t.Errorf("error %v does not say why", err)
			}
		})
	}
}

func TestCaseFillsPrincipalKeys(t *testing.T) {
	cases, err := ReadCases([]byte(`{"principal":"arn:aws:iam::111122223333:user/alice","action":"s3:GetObject","resource":"arn:aws:s3:::home/alice/notes.txt",
		"identityPolicies":[{"name":"home","document":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::home/${aws:username}/*"}}}]}`), "in.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(cases, "in.json")
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Decision != "Allowed" {
		t.Errorf("aws:username should come from the principal: %+v", out[0])
	}
}
