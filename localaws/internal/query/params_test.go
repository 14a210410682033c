package query_test

import (
	"testing"

	"leash.dev/leash/localaws/internal/query"
)

const head = "Action=Test&Version=2010-05-08&"

func TestString(t *testing.T) {
	req := mustParse(t, head+"Path=&UserName=alice")
	tests := []struct {
		name, param, want string
		wantOK            bool
	}{
		{"a sent value is returned", "UserName", "alice", true},
		{"an empty value was sent", "Path", "", true},
		{"an absent value was not sent", "PermissionsBoundary", "", false},
		{"names are case-sensitive, as AWS's are", "username", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := req.String(tt.param)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("String(%q) = %q, %v; want %q, %v", tt.param, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestRequired(t *testing.T) {
	req := mustParse(t, head+"UserName=alice&PolicyName=")
	tests := []struct {
		name, param, want, wantMessage string
	}{
		{name: "a sent value is returned", param: "UserName", want: "alice"},
		{
			name: "an absent value is IAM's must-not-be-null ValidationError", param: "PolicyDocument",
			wantMessage: "1 validation error detected: Value null at 'policyDocument' failed to satisfy constraint: Member must not be null",
		},
		{
			name: "an empty value is IAM's minimum-length ValidationError", param: "PolicyName",
			wantMessage: "1 validation error detected: Value '' at 'policyName' failed to satisfy constraint: Member must have length greater than or equal to 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := req.Required(tt.param)
			if tt.wantMessage == "" {
				if err != nil || got != tt.want {
					t.Fatalf("Required(%q) = %q, %v; want %q", tt.param, got, err, tt.want)
				}
				return
			}
			checkError(t, err, 400, "ValidationError", tt.wantMessage)
		})
	}
}

func TestInt(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		want        int
		wantPresent bool
		wantCode    string
		wantMessage string
	}{
		{name: "absent is not present and no error", body: "", want: 0, wantPresent: false},
		{name: "an integer in range is returned", body: "MaxItems=100", want: 100, wantPresent: true},
		{name: "the bounds are inclusive", body: "MaxItems=1000", want: 1000, wantPresent: true},
		{
			name: "below the minimum is IAM's ValidationError", body: "MaxItems=0", wantPresent: true, wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value '0' at 'maxItems' failed to satisfy constraint: Member must have value greater than or equal to 1",
		},
		{
			name: "above the maximum is IAM's ValidationError", body: "MaxItems=1001", wantPresent: true, wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value '1001' at 'maxItems' failed to satisfy constraint: Member must have value less than or equal to 1000",
		},
		{
			name: "too large for 64 bits is above the maximum", body: "MaxItems=99999999999999999999", wantPresent: true, wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value '99999999999999999999' at 'maxItems' failed to satisfy constraint: Member must have value less than or equal to 1000",
		},
		{
			name: "too small for 64 bits is below the minimum", body: "MaxItems=-99999999999999999999", wantPresent: true, wantCode: "ValidationError",
			wantMessage: "1 validation error detected: Value '-99999999999999999999' at 'maxItems' failed to satisfy constraint: Member must have value greater than or equal to 1",
		},
		{
			name: "not an integer is MalformedInput naming the parameter", body: "MaxItems=ten", wantPresent: true, wantCode: "MalformedInput",
			wantMessage: "MaxItems is 'ten', not an integer: send a decimal integer such as 100",
		},
		{
			name: "an empty value is not an integer", body: "MaxItems=", wantPresent: true, wantCode: "MalformedInput",
			wantMessage: "MaxItems is '', not an integer: send a decimal integer such as 100",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mustParse(t, head+tt.body)
			got, present, err := req.Int("MaxItems", 1, 1000)
			if present != tt.wantPresent {
				t.Errorf("present = %v; want %v", present, tt.wantPresent)
			}
			if tt.wantCode != "" {
				checkError(t, err, 400, tt.wantCode, tt.wantMessage)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Int = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestBool(t *testing.T) {
	tests := []struct {
		name                 string
		body                 string
		want, wantPresent    bool
		wantMalformedMessage string
	}{
		{name: "absent is not present", body: ""},
		{name: "true is true", body: "OnlyAttached=true", want: true, wantPresent: true},
		{name: "false is false", body: "OnlyAttached=false", wantPresent: true},
		{name: "case does not matter", body: "OnlyAttached=TRUE", want: true, wantPresent: true},
		{
			name: "anything else is MalformedInput naming the parameter", body: "OnlyAttached=1", wantPresent: true,
			wantMalformedMessage: "OnlyAttached is '1', not a boolean: send true or false",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mustParse(t, head+tt.body)
			got, present, err := req.Bool("OnlyAttached")
			if present != tt.wantPresent {
				t.Errorf("present = %v; want %v", present, tt.wantPresent)
			}
			if tt.wantMalformedMessage != "" {
				checkError(t, err, 400, "MalformedInput", tt.wantMalformedMessage)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Bool = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestInvalidWordsTheViolationAsIAMDoes(t *testing.T) {
	req := mustParse(t, head+"RoleSessionName=a/b&Tags.member.1.Key=team&Tags.member.1.Value=x")
	tests := []struct {
		name string
		err  *query.Error
		want string
	}{
		{
			name: "a sent value is quoted, with the name in lower camel case",
			err:  req.Invalid("RoleSessionName", `Member must satisfy regular expression pattern: [\w+=,.@-]*`),
			want: `1 validation error detected: Value 'a/b' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@-]*`,
		},
		{
			name: "an absent value is null",
			err:  req.Invalid("DurationSeconds", "Member must not be null"),
			want: "1 validation error detected: Value null at 'durationSeconds' failed to satisfy constraint: Member must not be null",
		},
		{
			name: "a member's field is named by its path, index before member",
			err:  members(t, req, "Tags")[0].Invalid("Value", "Member must have length greater than or equal to 2"),
			want: "1 validation error detected: Value 'x' at 'tags.1.member.value' failed to satisfy constraint: Member must have length greater than or equal to 2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, tt.err, 400, "ValidationError", tt.want)
		})
	}
}

func members(t *testing.T, req *query.Request, name string) []query.Params {
	t.Helper()
	m, err := req.Members(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkError fails the test unless err is a Sender error with the given
// status, code and message ("" for any message).
func checkError(t *testing.T, err *query.Error, status int, code, message string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %d %s", status, code)
	}
	if err.Status != status || err.Code != code || err.Type != query.Sender {
		t.Errorf("error = %d %s %s; want %d Sender %s", err.Status, err.Type, err.Code, status, code)
	}
	if message != "" && err.Message != message {
		t.Errorf("message = %q\n        want %q", err.Message, message)
	}
}
