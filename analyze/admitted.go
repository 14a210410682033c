package analyze

import (
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/policy"
)

// Admitted asks the engine, over the whole trust policy of role, whether a
// session can be issued to value: an AWS principal ARN (or account)
// calling sts:AssumeRole, or a web identity token whose sub is value
// calling sts:AssumeRoleWithWebIdentity. It returns the Allow statements
// through which one can, named by Sid or index; none means proven closed.
//
// A trust policy answers for requests, not for values, so each Allow
// statement yields a witness request: value in the place it is asked
// about, the keys of fixed as given (a token's audience, by the key's
// name after the provider: "aud"), and every other key set to a value the
// statement's own conditions accept, so that a statement admitting value
// under conditions a real caller can meet is found. The whole policy then
// decides the witness, its Deny statements included. For an AWS principal,
// its own policies are taken to allow the call, as a holder of stolen
// credentials may well have made them.
func Admitted(trust, role, value string, fixed map[string]string) ([]string, error) {
	doc, err := policy.ParseString(trust, policy.Trust)
	if err != nil {
		return nil, fmt.Errorf("the role's trust policy: %v", err)
	}
	set := policy.Set{ResourcePolicy: &policy.Named{Name: role, Document: doc}}
	aws := isAWSPrincipal(value)
	if aws {
		allow, _ := policy.ParseString(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:*","Resource":"*"}]}`, policy.Identity) // a fixed document
		set.Identity = []policy.Named{{Name: "the caller's own policies", Document: allow}}
	}
	ps, err := policy.Compile(set)
	if err != nil {
		return nil, fmt.Errorf("the role's trust policy: %v", err)
	}
	var by []string
	for i, st := range doc.Statements {
		if st.Effect != policy.Allow {
			continue
		}
		for _, r := range witnesses(st, role, value, aws, fixed) {
			if ps.Decide(&r) == policy.Allowed {
				name := fmt.Sprintf("Statement[%d]", i)
				if st.Sid != "" {
					name += " (" + st.Sid + ")"
				}
				by = append(by, name+describeMatch(st, value))
				break
			}
		}
	}
	return by, nil
}

// isAWSPrincipal says whether a value is an AWS principal (an ARN
// or an account ID) rather than an OIDC sub value.
func isAWSPrincipal(v string) bool { return strings.HasPrefix(v, "arn:") || policy.IsAccountID(v) }

// witnesses are the requests a statement is asked about for value.
func witnesses(st policy.Statement, role, value string, aws bool, fixed map[string]string) []policy.Request {
	if aws {
		caller := value
		if account, ok := wholeAccount(value); ok {
			caller = "arn:aws:iam::" + account + ":role/leash-trust-probe"
		}
		r := policy.Request{Principal: caller, Action: "sts:AssumeRole", Resource: role}
		r.Context.AddPrincipalKeys(caller)
		fill(&r.Context, st)
		return []policy.Request{r}
	}
	if st.Principal == nil {
		return nil
	}
	var out []policy.Request
	for _, fed := range st.Principal.Federated {
		provider := fed
		if _, after, ok := strings.Cut(fed, ":oidc-provider/"); ok {
			provider = after
		}
		r := policy.Request{Principal: fed, Action: "sts:AssumeRoleWithWebIdentity", Resource: role}
		r.Context.Set(provider+":sub", value)
		r.Context.Set("aws:FederatedProvider", fed)
		for k, v := range fixed {
			r.Context.Set(provider+":"+k, v)
		}
		fill(&r.Context, st)
		if _, ok := r.Context.Get(provider + ":aud"); !ok {
			r.Context.Set(provider+":aud", "leash-trust-probe")
		}
		out = append(out, r)
	}
	return out
}

// wholeAccount is the account a value trusts as a whole: its root ARN or
// its ID.
func wholeAccount(v string) (string, bool) {
	if policy.IsAccountID(v) {
		return v, true
	}
	if parts := strings.Split(v, ":"); len(parts) == 6 && parts[2] == "iam" && parts[5] == "root" {
		return parts[4], true
	}
	return "", false
}

// fill sets every key of the statement's conditions the request does not
// have yet to a value the condition accepts. Negated conditions are left:
// they accept a key that is absent.
func fill(c *policy.Context, st policy.Statement) {
	for _, cond := range st.Conditions {
		if _, ok := c.Get(cond.Key); ok || len(cond.Values) == 0 {
			continue
		}
		v, ok := acceptedValue(cond)
		if !ok {
			continue
		}
		if strings.HasPrefix(cond.Operator, "ForAnyValue:") || strings.HasPrefix(cond.Operator, "ForAllValues:") {
			c.SetList(cond.Key, []string{v})
		} else {
			c.Set(cond.Key, v)
		}
	}
}

// acceptedValue is a value that meets one positive condition.
func acceptedValue(cond policy.Condition) (string, bool) {
	op := cond.Operator
	if _, after, ok := strings.Cut(op, ":"); ok {
		op = after
	}
	op = strings.TrimSuffix(op, "IfExists")
	v := cond.Values[0]
	switch op {
	case "StringEquals", "StringEqualsIgnoreCase", "ArnEquals", "Bool",
		"NumericEquals", "NumericLessThanEquals", "NumericGreaterThanEquals",
		"DateEquals", "DateLessThanEquals", "DateGreaterThanEquals":
		return v, true
	case "StringLike", "ArnLike":
		return strings.NewReplacer("*", "x", "?", "x").Replace(v), true
	case "Null":
		return "x", v == "false"
	}
	return "", false
}

// describeMatch names the sub pattern through which a statement admits a
// value, when it has one: the wildcard that a responder should remove too.
func describeMatch(st policy.Statement, value string) string {
	for _, c := range st.Conditions {
		if !strings.HasSuffix(strings.ToLower(c.Key), ":sub") || slices.Contains(c.Values, value) {
			continue
		}
		return fmt.Sprintf(": %s %s %s", c.Operator, c.Key, strings.Join(c.Values, ", "))
	}
	return ""
}
