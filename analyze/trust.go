package analyze

import (
	"fmt"
	"regexp"
	"strings"

	"leash.dev/leash/policy"
)

// Trust reviews a role's trust policy (parsed as policy.Trust) named name:
//
//   - LEASH-TRUST-001 (critical): web identity federation
//     (sts:AssumeRoleWithWebIdentity for a Federated principal) with no
//     condition pinning the token's subject (<provider>:sub): any token the
//     provider issues for the audience, from anyone's repository or
//     cluster, can assume the role.
//   - LEASH-TRUST-002 (medium): the subject is pinned with StringLike and a
//     wildcard pattern, which accepts more subjects than the one intended.
//   - LEASH-TRUST-003 (high): web identity federation without the audience
//     (<provider>:aud) pinned to exact values.
//   - LEASH-TRUST-004 (medium): an AWS account (its root ARN or ID) is
//     trusted, so any principal of that account that its own policies allow
//     to assume the role can.
//   - LEASH-TRUST-005 (critical): Principal "*" with no condition: anyone,
//     in any account, can assume the role.
//
// Only Allow statements are reviewed.
func Trust(doc *policy.Document, name string) []Finding {
	if doc == nil {
		return nil
	}
	var out []Finding
	for i, st := range doc.Statements {
		if st.Effect != policy.Allow || st.Principal == nil {
			continue
		}
		path := fmt.Sprintf("Statement[%d]", i)
		out = append(out, trustEveryone(st, name, path)...)
		out = append(out, trustAccounts(st, name, path)...)
		out = append(out, trustWebIdentity(st, name, path)...)
	}
	return out
}

func trustEveryone(st policy.Statement, name, path string) []Finding {
	if len(st.Conditions) > 0 {
		return nil
	}
	var out []Finding
	add := func(p, written string) {
		out = append(out, Finding{
			ID: "LEASH-TRUST-005", Severity: Critical, Policy: name, Path: p,
			Message: fmt.Sprintf("Principal %s with no condition lets anyone, in any AWS account, %s this role",
				written, strings.Join(trustActions(st), ", ")),
			Fix: "name the principals that may assume the role (role or user ARNs, a service, or a federated provider with sub and aud conditions) instead of \"*\"",
		})
	}
	if st.Principal.Wildcard {
		add(path+".Principal", `"*"`)
	}
	for j, v := range st.Principal.AWS {
		if v == "*" {
			add(elementPath(path+".Principal.AWS", st.Principal.AWS, j), `{"AWS": "*"}`)
		}
	}
	return out
}

var (
	accountRootPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::([0-9]{12}):root$`)
)

func trustAccounts(st policy.Statement, name, path string) []Finding {
	// A condition on the caller's ARN narrows an account to named
	// principals.
	for _, c := range st.Conditions {
		if strings.EqualFold(c.Key, "aws:PrincipalArn") && positiveStringOperator(c.Operator) {
			return nil
		}
	}
	var out []Finding
	for j, v := range st.Principal.AWS {
		account := ""
		if policy.IsAccountID(v) {
			account = v
		} else if m := accountRootPattern.FindStringSubmatch(v); m != nil {
			account = m[1]
		}
		if account == "" {
			continue
		}
		out = append(out, Finding{
			ID: "LEASH-TRUST-004", Severity: Medium, Policy: name,
			Path: elementPath(path+".Principal.AWS", st.Principal.AWS, j),
			Message: fmt.Sprintf("the role trusts account %s (%s): any user or role in that account whose own policies allow %s on this role can assume it",
				account, v, strings.Join(trustActions(st), ", ")),
			Fix: fmt.Sprintf("name the roles or users that need the role (arn:aws:iam::%s:role/NAME) instead of the account, or add a StringEquals or ArnEquals condition on aws:PrincipalArn", account),
		})
	}
	return out
}

// trustActions names what a statement allows, for messages.
func trustActions(st policy.Statement) []string {
	if len(st.Action) > 0 {
		return st.Action
	}
	return []string{"every action except " + strings.Join(st.NotAction, ", ")}
}

// webIdentityKeys are, per provider that names its token claims
// differently, the condition keys of the subject and audience.
var webIdentityKeys = map[string][2]string{
	"graph.facebook.com": {"id", "app_id"},
	"www.amazon.com":     {"user_id", "app_id"},
}

func trustWebIdentity(st policy.Statement, name, path string) []Finding {
	if len(st.Principal.Federated) == 0 || !stmtCoversAction(st, "sts:AssumeRoleWithWebIdentity") {
		return nil
	}
	var out []Finding
	for j, fed := range st.Principal.Federated {
		provider := fed
		if strings.HasPrefix(fed, "arn:") {
			_, after, ok := strings.Cut(fed, ":oidc-provider/")
			if !ok {
				continue // a SAML provider: not web identity
			}
			provider = after
		}
		subClaim, audClaim := "sub", "aud"
		if k, ok := webIdentityKeys[provider]; ok {
			subClaim, audClaim = k[0], k[1]
		}
		subKey, audKey := provider+":"+subClaim, provider+":"+audClaim
		fedPath := elementPath(path+".Principal.Federated", st.Principal.Federated, j)

		subPinned := false
		for _, c := range st.Conditions {
			if !strings.EqualFold(c.Key, subKey) || !positiveStringOperator(c.Operator) {
				continue
			}
			condPath := path + ".Condition." + c.Operator + "." + c.Key
			like := isLikeOperator(c.Operator)
			for vi, v := range c.Values {
				if !like || !strings.ContainsAny(v, "*?") {
					subPinned = true
					continue
				}
				if strings.Trim(v, "*") == "" {
					continue // "*" pins nothing
				}
				subPinned = true
				out = append(out, Finding{
					ID: "LEASH-TRUST-002", Severity: Medium, Policy: name,
					Path:    elementPath(condPath, c.Values, vi),
					Message: fmt.Sprintf("%s %s %q %s", c.Operator, c.Key, v, describeSubjectPattern(provider, v)),
					Fix:     fmt.Sprintf("use StringEquals on %s with the exact subjects the workloads need%s", c.Key, subjectExample(provider, v)),
				})
			}
		}
		if !subPinned {
			out = append(out, Finding{
				ID: "LEASH-TRUST-001", Severity: Critical, Policy: name, Path: fedPath,
				Message: fmt.Sprintf("web identity trust of %s has no condition on %s: any identity the provider issues tokens to (any repository, workflow or service account) can assume the role", fed, subKey),
				Fix:     fmt.Sprintf("add a StringEquals condition on %s naming the subjects that may assume the role%s", subKey, subjectExample(provider, "")),
			})
		}

		audPinned := false
		for _, c := range st.Conditions {
			if !strings.EqualFold(c.Key, audKey) || !positiveStringOperator(c.Operator) {
				continue
			}
			exact := true
			if isLikeOperator(c.Operator) {
				for _, v := range c.Values {
					if strings.ContainsAny(v, "*?") {
						exact = false
					}
				}
			}
			audPinned = audPinned || exact
		}
		if !audPinned {
			aud := "the audience your tokens carry"
			if provider == "token.actions.githubusercontent.com" || strings.HasPrefix(provider, "oidc.eks.") {
				aud = "sts.amazonaws.com"
			}
			out = append(out, Finding{
				ID: "LEASH-TRUST-003", Severity: High, Policy: name, Path: fedPath,
				Message: fmt.Sprintf("web identity trust of %s does not pin the audience with StringEquals on %s: tokens minted for other audiences are accepted", fed, audKey),
				Fix:     fmt.Sprintf("add a StringEquals condition %s = %s", audKey, aud),
			})
		}
	}
	return out
}

// baseOperator strips a condition operator's set prefix and IfExists
// suffix.
func baseOperator(op string) string {
	if _, after, ok := strings.Cut(op, ":"); ok {
		op = after
	}
	return strings.TrimSuffix(op, "IfExists")
}

// positiveStringOperator reports whether op requires the key to equal or
// match its values (StringEquals, StringLike, ArnEquals...), as opposed to
// a negated or non-string test.
func positiveStringOperator(op string) bool {
	b := strings.ToLower(baseOperator(op))
	return (strings.HasPrefix(b, "string") || strings.HasPrefix(b, "arn")) && !strings.Contains(b, "not")
}

func isLikeOperator(op string) bool {
	return strings.HasSuffix(strings.ToLower(baseOperator(op)), "like")
}

// describeSubjectPattern says what a wildcard subject accepts.
func describeSubjectPattern(provider, v string) string {
	if provider == "token.actions.githubusercontent.com" && strings.HasPrefix(v, "repo:") {
		repo, rest, _ := strings.Cut(v[len("repo:"):], ":")
		switch {
		case strings.ContainsAny(repo, "*?"):
			owner, _, _ := strings.Cut(repo, "/")
			return fmt.Sprintf("accepts tokens from any repository matching %s (of owner %s), from any branch, tag, pull request and environment", repo, owner)
		case rest == "*":
			return fmt.Sprintf("accepts tokens from any branch, tag, pull request and environment of %s", repo)
		default:
			return fmt.Sprintf("accepts tokens from every %s subject matching %s", repo, rest)
		}
	}
	return "accepts every subject matching the pattern"
}

func subjectExample(provider, v string) string {
	if provider == "token.actions.githubusercontent.com" {
		repo := "OWNER/REPO"
		if strings.HasPrefix(v, "repo:") {
			if r, _, _ := strings.Cut(v[len("repo:"):], ":"); !strings.ContainsAny(r, "*?") {
				repo = r
			}
		}
		return fmt.Sprintf(", such as repo:%s:ref:refs/heads/main or repo:%s:environment:NAME", repo, repo)
	}
	if strings.HasPrefix(provider, "oidc.eks.") {
		return ", such as system:serviceaccount:NAMESPACE:SERVICEACCOUNT"
	}
	return ""
}
