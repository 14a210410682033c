package policy

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseAcceptsAWSQuirks(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		doc  string
		want func(*Document) bool
	}{
		{"Statement as a single object", Identity,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
			func(d *Document) bool { return len(d.Statements) == 1 }},
		{"Statement as an array", Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Deny","Action":"s3:PutObject","Resource":"*"}]}`,
			func(d *Document) bool { return len(d.Statements) == 2 && d.Statements[1].Effect == Deny }},
		{"Action and Resource as arrays", Identity,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":["arn:aws:s3:::a/*","arn:aws:s3:::b/*"]}}`,
			func(d *Document) bool {
				return reflect.DeepEqual(d.Statements[0].Action, []string{"s3:GetObject", "s3:PutObject"}) && len(d.Statements[0].Resource) == 2
			}},
		{"Principal star", Resource,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`,
			func(d *Document) bool { return d.Statements[0].Principal.Wildcard }},
		{"Principal of every type, string or array", Resource,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:root","444455556666"],"Service":"ec2.amazonaws.com","Federated":"accounts.google.com","CanonicalUser":"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"},"Action":"s3:GetObject","Resource":"*"}}`,
			func(d *Document) bool {
				p := d.Statements[0].Principal
				return len(p.AWS) == 2 && p.Service[0] == "ec2.amazonaws.com" && p.Federated[0] == "accounts.google.com" && len(p.CanonicalUser) == 1
			}},
		{"NotAction NotResource", Identity,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotAction":"iam:*","NotResource":"arn:aws:s3:::secret/*"}}`,
			func(d *Document) bool {
				return d.Statements[0].NotAction[0] == "iam:*" && d.Statements[0].NotResource != nil
			}},
		{"NotPrincipal with Deny", Resource,
			`{"Version":"2012-10-17","Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"s3:*","Resource":"*"}}`,
			func(d *Document) bool { return d.Statements[0].NotPrincipal != nil }},
		{"Version 2008", Identity,
			`{"Version":"2008-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`,
			func(d *Document) bool { return d.Version == Version2008 }},
		{"condition values as string, number, bool and arrays", Identity,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"NumericLessThan":{"s3:max-keys":10},"Bool":{"aws:SecureTransport":true},"StringEquals":{"aws:username":["a","b"]},"NumericEquals":{"x:n":[1.5,"2"]}}}}`,
			func(d *Document) bool {
				got := map[string][]string{}
				for _, c := range d.Statements[0].Conditions {
					got[c.Operator+" "+c.Key] = c.Values
				}
				return reflect.DeepEqual(got, map[string][]string{
					"NumericLessThan s3:max-keys": {"10"},
					"Bool aws:SecureTransport":    {"true"},
					"StringEquals aws:username":   {"a", "b"},
					"NumericEquals x:n":           {"1.5", "2"},
				})
			}},
		{"trust policy without Resource", Trust,
			`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com"},"Action":"sts:AssumeRoleWithWebIdentity"}}`,
			func(d *Document) bool { return d.Statements[0].Resource == nil }},
		{"size counts characters without whitespace", Identity,
			"{ \"Version\": \"2012-10-17\",\n \"Statement\": {\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"} }",
			func(d *Document) bool {
				return d.Size == len(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.doc), tt.kind)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !tt.want(d) {
				t.Errorf("parsed document does not hold what was expected: %+v", d)
			}
		})
	}
}

func TestParseErrorsNamePathAndFix(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		doc  string
		want string
	}{
		{"Effect with trailing space", Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"},{"Effect":"Allow","Action":"s3:*","Resource":"*"},{"Effect":"allow ","Action":"s3:*","Resource":"*"}]}`,
			`Statement[2].Effect: must be "Allow" or "Deny", got "allow "`},
		{"unknown Version", Identity, `{"Version":"2012-10-18","Statement":[]}`, `Version: must be "2012-10-17" or "2008-10-17", got "2012-10-18"`},
		{"missing Statement", Identity, `{"Version":"2012-10-17"}`, "Statement: missing"},
		{"not JSON", Identity, `{"Version":`, "not valid JSON"},
		{"not an object", Identity, `[1]`, "must be a JSON object, got an array"},
		{"unknown top-level element", Identity, `{"Version":"2012-10-17","Statements":[]}`, "Statements: unknown element"},
		{"unknown statement element", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condtion":{}}}`, "Statement.Condtion: unknown element"},
		{"Action and NotAction", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","NotAction":"s3:*","Resource":"*"}}`, "Statement: has both Action and NotAction"},
		{"no Action", Identity, `{"Statement":{"Effect":"Allow","Resource":"*"}}`, "Statement: missing Action"},
		{"no Resource in identity policy", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*"}}`, "Statement: missing Resource"},
		{"Principal in identity policy", Identity, `{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}`, "Statement.Principal: not allowed in a identity policy"},
		{"no Principal in resource policy", Resource, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`, "Statement: missing Principal"},
		{"NotPrincipal with Allow", Resource, `{"Statement":{"Effect":"Allow","NotPrincipal":"*","Action":"s3:*","Resource":"*"}}`, "NotPrincipal: can only be used with"},
		{"bad action", Identity, `{"Statement":{"Effect":"Allow","Action":["s3:GetObject","GetObject"],"Resource":"*"}}`, `Statement.Action[1]: must be "*" or "service:action"`},
		{"bad resource", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"bucket"}}`, `Statement.Resource: must be "*" or an ARN`},
		{"unclosed variable in Resource", Identity, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":["*","arn:aws:s3:::b/${aws:username"]}}`, `Statement.Resource[1]: policy variable in "b/${aws:username" has no closing }`},
		{"short ARN", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3"}}`, "fewer than six parts"},
		{"empty Action array", Identity, `{"Statement":{"Effect":"Allow","Action":[],"Resource":"*"}}`, "Statement.Action: is an empty array"},
		{"unknown principal type", Resource, `{"Statement":{"Effect":"Allow","Principal":{"User":"x"},"Action":"s3:*","Resource":"*"}}`, "Statement.Principal.User: unknown principal type"},
		{"Principal string other than star", Resource, `{"Statement":{"Effect":"Allow","Principal":"alice","Action":"s3:*","Resource":"*"}}`, `Statement.Principal: must be "*" or an object`},
		{"unknown operator", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringEqual":{"aws:username":"a"}}}}`, `Statement.Condition.StringEqual: unknown condition operator "StringEqual"`},
		{"Null with IfExists", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"NullIfExists":{"aws:username":"true"}}}}`, "Null takes no IfExists"},
		{"condition value object", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringEquals":{"aws:username":{"a":1}}}}}`, "Statement.Condition.StringEquals.aws:username: must be a string, number or boolean"},
		{"condition block not an object", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringEquals":"a"}}}`, "Statement.Condition.StringEquals: must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), tt.kind)
			if err == nil {
				t.Fatalf("Parse accepted an invalid document")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestParseErrorsPlaceStatementAndField pins ParseError's Statement and
// Field, which callers use to point at their own input (the operator maps
// them to a request's statementEntries) without reading Path.
func TestParseErrorsPlaceStatementAndField(t *testing.T) {
	ok := `{"Effect":"Allow","Action":"s3:*","Resource":"*"}`
	tests := []struct {
		name      string
		kind      Kind
		doc       string
		statement int
		field     string
	}{
		{"not JSON is outside any statement", Identity, `{"Version":`, -1, ""},
		{"a bad Version is the document's Version", Identity, `{"Version":"2012-10-18","Statement":[` + ok + `]}`, -1, "Version"},
		{"a missing Statement is the document's Statement", Identity, `{"Version":"2012-10-17"}`, -1, "Statement"},
		{"a bad Effect names its statement and Effect", Identity, `{"Statement":[` + ok + `,` + ok + `,{"Effect":"allow","Action":"s3:*","Resource":"*"}]}`, 2, "Effect"},
		{"a bad action element names Action", Identity, `{"Statement":[` + ok + `,{"Effect":"Allow","Action":["s3:*","x"],"Resource":"*"}]}`, 1, "Action"},
		{"a bad condition value names Condition", Identity, `{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"NumericLessThan":{"s3:max-keys":"ten"}}}]}`, 0, "Condition"},
		{"a statement that is no object has no field", Identity, `{"Statement":[` + ok + `,3]}`, 1, ""},
		{"a missing Action is about the whole statement", Identity, `{"Statement":[` + ok + `,{"Effect":"Allow","Resource":"*"}]}`, 1, ""},
		{"a Principal in an identity policy names Principal", Identity, `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`, 0, "Principal"},
		{"a single-object Statement is statement 0", Identity, `{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"x"}}`, 0, "Resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), tt.kind)
			pe, isParse := err.(*ParseError)
			if !isParse {
				t.Fatalf("Parse returned %v (%T), want a *ParseError", err, err)
			}
			if pe.Statement != tt.statement || pe.Field != tt.field {
				t.Errorf("%q: Statement %d, Field %q; want %d, %q", pe, pe.Statement, pe.Field, tt.statement, tt.field)
			}
		})
	}
}

func TestParseRejectsBadConditionValues(t *testing.T) {
	tests := []struct{ cond, want string }{
		{`{"NumericLessThan":{"s3:max-keys":"ten"}}`, `must be a number, got "ten"`},
		{`{"DateLessThan":{"aws:CurrentTime":"yesterday"}}`, "must be an ISO 8601 date"},
		{`{"IpAddress":{"aws:SourceIp":"10.0.0.0/33"}}`, "must be an IPv4 or IPv6 address or CIDR"},
		{`{"Bool":{"aws:SecureTransport":"yes"}}`, `must be "true" or "false"`},
		{`{"BinaryEquals":{"x:b":"%%%"}}`, "must be base64"},
		{`{"StringLike":{"aws:username":"${aws:username"}}`, "has no closing }"},
		{`{"StringLike":{"aws:username":"${aws:username, none}"}}`, "must be in single quotes"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse([]byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":`+tt.cond+`}}`), Identity)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "Statement.Condition.") {
				t.Errorf("Parse error %v, want one at Statement.Condition... containing %q", err, tt.want)
			}
		})
	}
}
