package simulate

import (
	"bytes"
	"encoding/json"
	"testing"

	"leash.dev/leash/policy"
)

var (
	describeAllow = policy.StatementRef{PolicyType: "identity", Policy: "ccm", Index: 0, Sid: "CCM", Effect: policy.Allow}
	selfDeny      = policy.StatementRef{PolicyType: "identity", Policy: "self-deny", Index: 1, Effect: policy.Deny}
)

func TestWriteTable(t *testing.T) {
	outcomes := []Outcome{
		{Action: "ec2:DescribeVpcs", Resource: "*", Decision: "Allowed", Statements: []policy.StatementRef{describeAllow, describeAllow}},
		{Action: "iam:PutRolePolicy", Resource: "arn:aws:iam::120392301094:role/krops-ci-e2e", Decision: "ExplicitDeny",
			Statements: []policy.StatementRef{selfDeny},
			Reasons:    []policy.Reason{{Code: policy.ReasonExplicitDeny, Message: "explicitly denied by X", Statement: &selfDeny}}},
		{Action: "ec2:CreateTags", Decision: "ImplicitDeny", Statements: []policy.StatementRef{describeAllow},
			Reasons: []policy.Reason{{Code: policy.ReasonBoundaryNoAllow, Message: "the permissions boundary does not allow the action on the resource"}}},
	}
	tests := []struct {
		name     string
		outcomes []Outcome
		explain  bool
		want     string
	}{
		{
			name:     "columns align, the last has no padding, and an empty resource shows as *",
			outcomes: outcomes,
			want: "" +
				"DECISION      ACTION             RESOURCE\n" +
				"Allowed       ec2:DescribeVpcs   *\n" +
				"ExplicitDeny  iam:PutRolePolicy  arn:aws:iam::120392301094:role/krops-ci-e2e\n" +
				"ImplicitDeny  ec2:CreateTags     *\n",
		},
		{
			name:     "explain lists unquoted statements once, then reasons, under each row",
			outcomes: outcomes,
			explain:  true,
			want: "" +
				"DECISION      ACTION             RESOURCE\n" +
				"Allowed       ec2:DescribeVpcs   *\n" +
				"    allowed by identity policy \"ccm\" Statement[0] (Sid \"CCM\")\n" +
				"ExplicitDeny  iam:PutRolePolicy  arn:aws:iam::120392301094:role/krops-ci-e2e\n" +
				"    explicitly denied by X\n" +
				"ImplicitDeny  ec2:CreateTags     *\n" +
				"    allowed by identity policy \"ccm\" Statement[0] (Sid \"CCM\"), but that is not enough:\n" +
				"    the permissions boundary does not allow the action on the resource\n",
		},
		{
			name:     "a principal adds the PRINCIPAL column, blank where a request has none",
			outcomes: []Outcome{{Action: "s3:GetObject", Resource: "*", Decision: "Allowed", Principal: "arn:aws:iam::111122223333:user/alice"}, {Action: "s3:PutObject", Resource: "*", Decision: "ImplicitDeny"}},
			want: "" +
				"DECISION      ACTION        RESOURCE  PRINCIPAL\n" +
				"Allowed       s3:GetObject  *         arn:aws:iam::111122223333:user/alice\n" +
				"ImplicitDeny  s3:PutObject  *         \n",
		},
		{
			name: "no outcomes is a header alone",
			want: "DECISION  ACTION  RESOURCE\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, tt.outcomes, tt.explain); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestWriteJSONAlwaysHasStatementsAndReasons(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, []Outcome{{Action: "s3:GetObject", Decision: "ImplicitDeny"}}); err != nil {
		t.Fatal(err)
	}
	var got []map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"statements", "reasons"} {
		if string(got[0][key]) != "[]" {
			t.Errorf("%s = %s, want []", key, got[0][key])
		}
	}
	if string(got[0]["decision"]) != `"ImplicitDeny"` {
		t.Errorf("decision = %s", got[0]["decision"])
	}
}
