package policy

import "testing"

func TestParseARN(t *testing.T) {
	cases := []struct {
		name, in string
		want     ARN
		ok       bool
	}{
		{"an IAM user keeps its path in the resource", "arn:aws:iam::123456789012:user/ci/bot",
			ARN{"aws", "iam", "", "123456789012", "user/ci/bot"}, true},
		{"the partition is kept", "arn:aws-cn:sts::123456789012:assumed-role/r/s",
			ARN{"aws-cn", "sts", "", "123456789012", "assumed-role/r/s"}, true},
		{"colons after the fifth stay in the resource", "arn:aws:logs:us-east-1:1:log-group:x:*",
			ARN{"aws", "logs", "us-east-1", "1", "log-group:x:*"}, true},
		{"a colon inside a policy variable does not split", "arn:aws:iam::${aws:PrincipalAccount}:role/x",
			ARN{"aws", "iam", "", "${aws:PrincipalAccount}", "role/x"}, true},
		{"wildcards are parts like any other", "arn:aws:rds:*:*:db:krops-*",
			ARN{"aws", "rds", "*", "*", "db:krops-*"}, true},
		{"an empty resource is still six parts", "arn:aws:s3:::",
			ARN{"aws", "s3", "", "", ""}, true},
		{"five parts are not an ARN", "arn:aws:iam::123456789012", ARN{}, false},
		{"a wildcard is not an ARN", "*", ARN{}, false},
		{"six parts without the arn prefix are not an ARN", "urn:aws:iam::1:root", ARN{}, false},
		{"the prefix is case-sensitive", "ARN:aws:iam::1:root", ARN{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseARN(c.in)
			if got != c.want || ok != c.ok {
				t.Errorf("ParseARN(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
			}
			if ok && got.String() != c.in {
				t.Errorf("String() = %q, want %q back", got.String(), c.in)
			}
		})
	}
}

// An account ID is twelve digits:
// https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-identifiers.html
func TestIsAccountID(t *testing.T) {
	cases := []struct {
		name, in string
		want     bool
	}{
		{"twelve digits are an account ID", "123456789012", true},
		{"a leading zero is part of the ID", "012345678901", true},
		{"eleven digits are not", "12345678901", false},
		{"thirteen digits are not", "1234567890123", false},
		{"a letter is not a digit", "12345678901a", false},
		{"AWS's own account name is not an ID", "aws", false},
		{"a wildcard is not an ID", "*", false},
		{"the empty string is not an ID", "", false},
		{"non-ASCII digits are not digits", "١٢٣٤٥٦٧٨٩٠١٢", false},
		{"a trailing newline is not part of an ID", "12345678901\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsAccountID(c.in); got != c.want {
				t.Errorf("IsAccountID(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}
