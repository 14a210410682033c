package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
)

// accountCheckFlags are how roles and keys of accounts other than the root
// credentials' are checked, the same for leash operator and leash apply.
type accountCheckFlags struct {
	roles []string
}

func (af *accountCheckFlags) register(f *pflag.FlagSet, a *operator.AccountChecks) {
	f.StringArrayVar(&af.roles, "account-check-role", nil, "check roles and keys of another account than the root credentials' through a role of that account, which leash assumes with them: `ACCOUNT=ROLE_ARN` (repeatable)")
	f.StringVar(&a.Unchecked, "unchecked-accounts", operator.UncheckedReport, "`CHOICE` for a role of an account without --account-check-role: report (write its Secret, say in the status what was not checked) or refuse (write nothing)")
}

// apply reads the --account-check-role values into a.
func (af *accountCheckFlags) apply(a *operator.AccountChecks) error {
	for _, v := range af.roles {
		account, role, err := operator.ParseAccountCheckRole("--account-check-role", v)
		if err != nil {
			return &inputerr.Error{Msg: err.Error()}
		}
		if prev, ok := a.Roles[account]; ok && prev != role {
			return &inputerr.Error{Msg: fmt.Sprintf("--account-check-role: account %s is given twice (%s and %s); give one check role per account", account, prev, role)}
		}
		if a.Roles == nil {
			a.Roles = map[string]string{}
		}
		a.Roles[account] = role
	}
	return nil
}

// accountChecksFromConfigMap reads the ConfigMap keys accountCheckRoles (a
// YAML or JSON map of account ID to check role ARN) and uncheckedAccounts.
func accountChecksFromConfigMap(ref string, data map[string]string, a *operator.AccountChecks) error {
	if v := data["accountCheckRoles"]; strings.TrimSpace(v) != "" {
		var m map[string]string
		if err := yaml.Unmarshal([]byte(v), &m); err != nil {
			return &inputerr.Error{Msg: fmt.Sprintf(`ConfigMap %s: accountCheckRoles is not a map of account ID to role ARN (%v); write it as, e.g., "111122223333": arn:aws:iam::111122223333:role/leash-check`, ref, err)}
		}
		a.Roles = map[string]string{}
		for account, role := range m {
			if _, _, err := operator.ParseAccountCheckRole("ConfigMap "+ref+" accountCheckRoles:", account+"="+role); err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			a.Roles[account] = role
		}
	}
	if v := data["uncheckedAccounts"]; v != "" {
		a.Unchecked = v
	}
	return nil
}
