package cli

import (
	"strings"
	"testing"

	"leash.dev/leash/internal/operator"
)

// TestAccountChecksFromConfigMap pins the ConfigMap keys accountCheckRoles
// (a YAML map of account ID to check role ARN) and uncheckedAccounts, and
// that a bad entry is refused naming the ConfigMap, the key and the form.
func TestAccountChecksFromConfigMap(t *testing.T) {
	const ref = "leash-system/leash-config"
	var a operator.AccountChecks
	err := accountChecksFromConfigMap(ref, map[string]string{
		"accountCheckRoles": "\"111122223333\": arn:aws:iam::111122223333:role/leash-check\n\"444455556666\": arn:aws-us-gov:iam::444455556666:role/leash-check\n",
		"uncheckedAccounts": "refuse",
	}, &a)
	if err != nil {
		t.Fatal(err)
	}
	if a.Roles["111122223333"] != "arn:aws:iam::111122223333:role/leash-check" || a.Roles["444455556666"] != "arn:aws-us-gov:iam::444455556666:role/leash-check" || len(a.Roles) != 2 || a.Unchecked != "refuse" {
		t.Fatalf("read %+v; want both check roles and refuse", a)
	}
	for _, tt := range []struct{ name, value, says string }{
		{"a list, not a map", "- arn:aws:iam::111122223333:role/leash-check", "accountCheckRoles is not a map of account ID to role ARN"},
		{"an account ID of letters", "abcdefghijkl: arn:aws:iam::111122223333:role/leash-check", `account "abcdefghijkl" is not an AWS account ID`},
		{"a check role of another account", "\"111122223333\": arn:aws:iam::444455556666:role/leash-check", "the check role is in account 444455556666, not 111122223333"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a operator.AccountChecks
			err := accountChecksFromConfigMap(ref, map[string]string{"accountCheckRoles": tt.value}, &a)
			if err == nil || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), "accountCheckRoles") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v; want one naming %s accountCheckRoles and saying %q", err, ref, tt.says)
			}
		})
	}
}
