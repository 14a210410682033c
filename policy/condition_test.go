package policy

import (
	"testing"
)

// ctxOf builds a context: a string value is single-valued, a []string is
// multivalued.
func ctxOf(kv map[string]any) Context {
	var c Context
	for k, v := range kv {
		switch x := v.(type) {
		case string:
			c.Set(k, x)
		case []string:
			c.SetList(k, x)
		}
	}
	return c
}

func TestConditions(t *testing.T) {
	tests := []struct {
		name string
		cond string
		ctx  map[string]any
		want bool
	}{
		// String family.
		{"StringEquals matches", `{"StringEquals":{"aws:username":"alice"}}`, map[string]any{"aws:username": "alice"}, true},
		{"StringEquals is case-sensitive", `{"StringEquals":{"aws:username":"Alice"}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringEquals treats * literally", `{"StringEquals":{"aws:username":"a*"}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringEquals with missing key does not match", `{"StringEquals":{"aws:username":"alice"}}`, nil, false},
		{"several values OR together", `{"StringEquals":{"aws:username":["bob","alice"]}}`, map[string]any{"aws:username": "alice"}, true},
		{"several keys AND together", `{"StringEquals":{"aws:username":"alice","aws:RequestedRegion":"eu-west-1"}}`, map[string]any{"aws:username": "alice", "aws:RequestedRegion": "us-east-1"}, false},
		{"several operators AND together", `{"StringEquals":{"aws:username":"alice"},"Bool":{"aws:SecureTransport":"true"}}`, map[string]any{"aws:username": "alice", "aws:SecureTransport": "true"}, true},
		{"StringNotEquals with other value matches", `{"StringNotEquals":{"aws:username":"bob"}}`, map[string]any{"aws:username": "alice"}, true},
		{"StringNotEquals with several values is NOR", `{"StringNotEquals":{"aws:username":["bob","alice"]}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringNotEquals with missing key matches", `{"StringNotEquals":{"aws:username":"bob"}}`, nil, true},
		{"StringEqualsIgnoreCase", `{"StringEqualsIgnoreCase":{"aws:username":"ALICE"}}`, map[string]any{"aws:username": "alice"}, true},
		{"StringNotEqualsIgnoreCase", `{"StringNotEqualsIgnoreCase":{"aws:username":"ALICE"}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringEqualsIgnoreCase with an upper-case context value", `{"StringEqualsIgnoreCase":{"aws:username":"Alice"}}`, map[string]any{"aws:username": "ALICE"}, true},
		{"StringLike is case-sensitive", `{"StringLike":{"aws:username":"Al*"}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringLike star", `{"StringLike":{"s3:prefix":"home/*"}}`, map[string]any{"s3:prefix": "home/alice/x"}, true},
		{"StringLike question mark matches exactly one character", `{"StringLike":{"aws:username":"al?ce"}}`, map[string]any{"aws:username": "alice"}, true},
		{"StringLike question mark needs a character", `{"StringLike":{"aws:username":"alice?"}}`, map[string]any{"aws:username": "alice"}, false},
		{"StringNotLike", `{"StringNotLike":{"s3:prefix":"home/*"}}`, map[string]any{"s3:prefix": "tmp/x"}, true},
		{"StringNotLike with missing key matches", `{"StringNotLike":{"s3:prefix":"home/*"}}`, nil, true},
		// Numeric family.
		{"NumericEquals", `{"NumericEquals":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "10"}, true},
		{"NumericEquals compares numbers not strings", `{"NumericEquals":{"s3:max-keys":"10"}}`, map[string]any{"s3:max-keys": "10.0"}, true},
		{"NumericNotEquals", `{"NumericNotEquals":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "11"}, true},
		{"NumericLessThan", `{"NumericLessThan":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "9"}, true},
		{"NumericLessThan equal is false", `{"NumericLessThan":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "10"}, false},
		{"NumericLessThanEquals", `{"NumericLessThanEquals":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "10"}, true},
		{"NumericGreaterThan", `{"NumericGreaterThan":{"aws:MultiFactorAuthAge":3600}}`, map[string]any{"aws:MultiFactorAuthAge": "3601"}, true},
		{"NumericGreaterThanEquals", `{"NumericGreaterThanEquals":{"aws:MultiFactorAuthAge":3600}}`, map[string]any{"aws:MultiFactorAuthAge": "3599"}, false},
		{"Numeric with a non-number context value does not match", `{"NumericLessThan":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "ten"}, false},
		// Date family.
		{"DateLessThan ISO 8601", `{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"}}`, map[string]any{"aws:CurrentTime": "2026-11-29T12:00:00Z"}, true},
		{"DateGreaterThan ISO 8601", `{"DateGreaterThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"}}`, map[string]any{"aws:CurrentTime": "2026-11-29T12:00:00Z"}, false},
		{"DateEquals epoch against ISO", `{"DateEquals":{"aws:TokenIssueTime":"2026-01-01T00:00:00Z"}}`, map[string]any{"aws:TokenIssueTime": "1767225600"}, true},
		{"DateNotEquals", `{"DateNotEquals":{"aws:CurrentTime":"2026-01-01T00:00:00Z"}}`, map[string]any{"aws:CurrentTime": "2026-01-02T00:00:00Z"}, true},
		{"DateLessThanEquals at the instant", `{"DateLessThanEquals":{"aws:CurrentTime":"2026-01-01T00:00:00Z"}}`, map[string]any{"aws:CurrentTime": "2026-01-01T00:00:00Z"}, true},
		{"DateGreaterThanEquals with offset", `{"DateGreaterThanEquals":{"aws:CurrentTime":"2026-01-01T01:00:00+01:00"}}`, map[string]any{"aws:CurrentTime": "2026-01-01T00:00:00Z"}, true},
		{"DateLessThan with fractional seconds", `{"DateLessThan":{"aws:CurrentTime":"2026-01-01T00:00:00.5Z"}}`, map[string]any{"aws:CurrentTime": "2026-01-01T00:00:00.25Z"}, true},
		{"DateLessThan epoch policy value", `{"DateLessThan":{"aws:EpochTime":1767225600}}`, map[string]any{"aws:EpochTime": "1767225599"}, true},
		// Bool, Binary.
		{"Bool true", `{"Bool":{"aws:SecureTransport":true}}`, map[string]any{"aws:SecureTransport": "true"}, true},
		{"Bool is case-insensitive", `{"Bool":{"aws:SecureTransport":"True"}}`, map[string]any{"aws:SecureTransport": "TRUE"}, true},
		{"Bool false against true", `{"Bool":{"aws:SecureTransport":"false"}}`, map[string]any{"aws:SecureTransport": "true"}, false},
		{"BinaryEquals", `{"BinaryEquals":{"x:blob":"QmluYXJ5VmFsdWU="}}`, map[string]any{"x:blob": "QmluYXJ5VmFsdWU="}, true},
		{"BinaryEquals differs", `{"BinaryEquals":{"x:blob":"QmluYXJ5VmFsdWU="}}`, map[string]any{"x:blob": "b3RoZXI="}, false},
		// IP family.
		{"IpAddress IPv4 CIDR", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string]any{"aws:SourceIp": "203.0.113.7"}, true},
		{"IpAddress IPv4 outside", `{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}`, map[string]any{"aws:SourceIp": "198.51.100.7"}, false},
		{"IpAddress single address", `{"IpAddress":{"aws:SourceIp":"203.0.113.7"}}`, map[string]any{"aws:SourceIp": "203.0.113.7"}, true},
		{"IpAddress IPv6 CIDR", `{"IpAddress":{"aws:SourceIp":"2001:db8::/32"}}`, map[string]any{"aws:SourceIp": "2001:db8:1234::1"}, true},
		{"IpAddress IPv6 outside", `{"IpAddress":{"aws:SourceIp":"2001:db8::/32"}}`, map[string]any{"aws:SourceIp": "2001:db9::1"}, false},
		{"IPv4 address is not in an IPv6 CIDR", `{"IpAddress":{"aws:SourceIp":"2001:db8::/32"}}`, map[string]any{"aws:SourceIp": "203.0.113.7"}, false},
		{"NotIpAddress", `{"NotIpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]}}`, map[string]any{"aws:SourceIp": "203.0.113.7"}, true},
		{"NotIpAddress with missing key matches", `{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}`, nil, true},
		// ARN family.
		{"ArnEquals", `{"ArnEquals":{"aws:SourceArn":"arn:aws:s3:::bucket"}}`, map[string]any{"aws:SourceArn": "arn:aws:s3:::bucket"}, true},
		{"ArnLike wildcard in account and resource", `{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/krops-*"}}`, map[string]any{"aws:PrincipalArn": "arn:aws:iam::111122223333:role/krops-ci"}, true},
		{"ArnLike is case-sensitive", `{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/Krops-*"}}`, map[string]any{"aws:PrincipalArn": "arn:aws:iam::111122223333:role/krops-ci"}, false},
		{"ArnLike wildcard does not span parts", `{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:topic"}}`, map[string]any{"aws:SourceArn": "arn:aws:sns:eu-west-1:111122223333:topic"}, false},
		{"ArnNotEquals", `{"ArnNotEquals":{"aws:SourceArn":"arn:aws:s3:::bucket"}}`, map[string]any{"aws:SourceArn": "arn:aws:s3:::other"}, true},
		{"ArnNotLike", `{"ArnNotLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/krops-*"}}`, map[string]any{"aws:PrincipalArn": "arn:aws:iam::111122223333:role/krops-ci"}, false},
		{"ArnLike with a non-ARN context value does not match", `{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::*"}}`, map[string]any{"aws:SourceArn": "bucket"}, false},
		// Null.
		{"Null true with missing key", `{"Null":{"aws:TokenIssueTime":"true"}}`, nil, true},
		{"Null true with present key", `{"Null":{"aws:TokenIssueTime":"true"}}`, map[string]any{"aws:TokenIssueTime": "2026-01-01T00:00:00Z"}, false},
		{"Null false with present key", `{"Null":{"aws:TokenIssueTime":false}}`, map[string]any{"aws:TokenIssueTime": "2026-01-01T00:00:00Z"}, true},
		{"Null false with missing key", `{"Null":{"aws:TokenIssueTime":"false"}}`, nil, false},
		// IfExists.
		{"IfExists with missing key matches", `{"StringEqualsIfExists":{"ec2:InstanceType":"t3.micro"}}`, nil, true},
		{"IfExists with present key compares", `{"StringEqualsIfExists":{"ec2:InstanceType":"t3.micro"}}`, map[string]any{"ec2:InstanceType": "m5.large"}, false},
		{"NumericLessThanIfExists present", `{"NumericLessThanIfExists":{"s3:max-keys":10}}`, map[string]any{"s3:max-keys": "5"}, true},
		// Set operators and multivalued keys.
		{"ForAllValues with missing key matches", `{"ForAllValues:StringEquals":{"aws:TagKeys":["a","b"]}}`, nil, true},
		{"ForAllValues with empty list matches", `{"ForAllValues:StringEquals":{"aws:TagKeys":["a","b"]}}`, map[string]any{"aws:TagKeys": []string{}}, true},
		{"ForAllValues subset matches", `{"ForAllValues:StringEquals":{"aws:TagKeys":["a","b"]}}`, map[string]any{"aws:TagKeys": []string{"a"}}, true},
		{"ForAllValues with an outside value fails", `{"ForAllValues:StringEquals":{"aws:TagKeys":["a","b"]}}`, map[string]any{"aws:TagKeys": []string{"a", "c"}}, false},
		{"ForAnyValue with missing key fails", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["a"]}}`, nil, false},
		{"ForAnyValue with empty list fails", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["a"]}}`, map[string]any{"aws:TagKeys": []string{}}, false},
		{"ForAnyValue with one match", `{"ForAnyValue:StringEquals":{"aws:TagKeys":["a"]}}`, map[string]any{"aws:TagKeys": []string{"c", "a"}}, true},
		{"ForAnyValue StringLike", `{"ForAnyValue:StringLike":{"aws:TagKeys":["krops.io/*"]}}`, map[string]any{"aws:TagKeys": []string{"x", "krops.io/run-id"}}, true},
		{"ForAllValues StringNotEquals: no value is listed", `{"ForAllValues:StringNotEquals":{"aws:TagKeys":["secret"]}}`, map[string]any{"aws:TagKeys": []string{"a", "b"}}, true},
		{"ForAllValues StringNotEquals: one value is listed", `{"ForAllValues:StringNotEquals":{"aws:TagKeys":["secret"]}}`, map[string]any{"aws:TagKeys": []string{"a", "secret"}}, false},
		{"ForAnyValue StringNotEquals with missing key fails", `{"ForAnyValue:StringNotEquals":{"aws:TagKeys":["secret"]}}`, nil, false},
		{"single-valued key tested with ForAnyValue", `{"ForAnyValue:StringEquals":{"aws:username":["alice"]}}`, map[string]any{"aws:username": "alice"}, true},
		{"multivalued key with a plain operator does not match", `{"StringEquals":{"aws:TagKeys":"a"}}`, map[string]any{"aws:TagKeys": []string{"a", "b"}}, false},
		{"multivalued key with a negated plain operator does not match", `{"StringNotEquals":{"aws:TagKeys":"z"}}`, map[string]any{"aws:TagKeys": []string{"a", "b"}}, false},
		// Key names.
		{"key names are case-insensitive", `{"IpAddress":{"AWS:SOURCEIP":"10.0.0.0/8"}}`, map[string]any{"aws:SourceIp": "10.1.2.3"}, true},
		{"operator names are case-insensitive", `{"stringequals":{"aws:username":"alice"}}`, map[string]any{"aws:username": "alice"}, true},
		{"tag keys in key names are case-insensitive", `{"StringEquals":{"aws:PrincipalTag/Team":"ops"}}`, map[string]any{"aws:principaltag/team": "ops"}, true},
		// Policy variables in condition values.
		{"variable in StringEquals", `{"StringEquals":{"s3:prefix":"home/${aws:username}"}}`, map[string]any{"s3:prefix": "home/alice", "aws:username": "alice"}, true},
		{"variable in StringLike is literal, wildcards around it", `{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}`, map[string]any{"s3:prefix": "home/alice/x", "aws:username": "alice"}, true},
		{"variable value with * is literal", `{"StringLike":{"s3:prefix":"home/${aws:username}"}}`, map[string]any{"s3:prefix": "home/bob", "aws:username": "*"}, false},
		{"tag variable", `{"StringEquals":{"aws:ResourceTag/team":"${aws:PrincipalTag/team}"}}`, map[string]any{"aws:ResourceTag/team": "ops", "aws:PrincipalTag/team": "ops"}, true},
		{"unresolvable variable fails the comparison", `{"StringEquals":{"s3:prefix":"home/${aws:username}"}}`, map[string]any{"s3:prefix": "home/"}, false},
		{"unresolvable variable in a negated operator: the value does not match, so NotEquals holds", `{"StringNotEquals":{"s3:prefix":"home/${aws:username}"}}`, map[string]any{"s3:prefix": "home/"}, true},
		{"variable default", `{"StringEquals":{"s3:prefix":"home/${aws:username, 'none'}"}}`, map[string]any{"s3:prefix": "home/none"}, true},
		{"variable default unused when the key exists", `{"StringEquals":{"s3:prefix":"home/${aws:username, 'none'}"}}`, map[string]any{"s3:prefix": "home/none", "aws:username": "alice"}, false},
		{"${*} is a literal star", `{"StringLike":{"s3:prefix":"a${*}b"}}`, map[string]any{"s3:prefix": "a*b"}, true},
		{"${*} does not match other text", `{"StringLike":{"s3:prefix":"a${*}b"}}`, map[string]any{"s3:prefix": "axb"}, false},
		{"${?} is a literal question mark", `{"StringLike":{"s3:prefix":"a${?}"}}`, map[string]any{"s3:prefix": "a?"}, true},
		{"${$} is a literal dollar", `{"StringEquals":{"s3:prefix":"${$}{x}"}}`, map[string]any{"s3:prefix": "${x}"}, true},
		{"variable in ArnLike", `{"ArnLike":{"aws:SourceArn":"arn:aws:iam::*:user/${aws:username}"}}`, map[string]any{"aws:SourceArn": "arn:aws:iam::111122223333:user/alice", "aws:username": "alice"}, true},
		{"multivalued key as a variable does not resolve", `{"StringEquals":{"s3:prefix":"${aws:TagKeys}"}}`, map[string]any{"s3:prefix": "a", "aws:TagKeys": []string{"a"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(Set{Identity: []Named{{Name: "p", Document: doc(t, Identity, `{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":`+tt.cond+`}`)}}})
			if err != nil {
				t.Fatal(err)
			}
			r := &Request{Principal: alice, Action: "s3:ListBucket", Resource: "arn:aws:s3:::bucket", Context: ctxOf(tt.ctx)}
			if got := p.Decide(r) == Allowed; got != tt.want {
				t.Errorf("condition holds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPolicyVariablesInResources(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		resource string
		ctx      map[string]any
		want     Decision
	}{
		{"username in resource", Version2012, "arn:aws:s3:::bucket/home/alice/x", map[string]any{"aws:username": "alice"}, Allowed},
		{"another user's folder", Version2012, "arn:aws:s3:::bucket/home/bob/x", map[string]any{"aws:username": "alice"}, ImplicitDeny},
		{"missing variable matches nothing", Version2012, "arn:aws:s3:::bucket/home/alice/x", nil, ImplicitDeny},
		{"Version 2008 has no variables: the text is literal", Version2008, "arn:aws:s3:::bucket/home/${aws:username}/x", map[string]any{"aws:username": "alice"}, Allowed},
		{"Version 2008 does not substitute", Version2008, "arn:aws:s3:::bucket/home/alice/x", map[string]any{"aws:username": "alice"}, ImplicitDeny},
		{"no Version is the 2008 language", "", "arn:aws:s3:::bucket/home/${aws:username}/x", map[string]any{"aws:username": "alice"}, Allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := ""
			if tt.version != "" {
				version = `"Version":"` + tt.version + `",`
			}
			d, err := Parse([]byte(`{`+version+`"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket/home/${aws:username}/*"}}`), Identity)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(Set{Identity: []Named{{Name: "p", Document: d}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Decide(&Request{Principal: alice, Action: "s3:GetObject", Resource: tt.resource, Context: ctxOf(tt.ctx)}); got != tt.want {
				t.Errorf("Decide = %v, want %v", got, tt.want)
			}
		})
	}
}
