package revoke

import (
	"errors"
	"strings"
	"testing"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/inputerr"
)

const (
	ghProvider = `arn:aws:iam::120392301094:oidc-provider/token.actions.githubusercontent.com`
	mainSub    = "repo:polarsquad/krops:ref:refs/heads/main"
	devSub     = "repo:polarsquad/krops:ref:refs/heads/dev"
	alice      = "arn:aws:iam::120392301094:user/alice"
	bob        = "arn:aws:iam::120392301094:user/bob"
)

func TestRemoveTrust(t *testing.T) {
	oidc := func(op, subs string) string {
		return `{"Effect":"Allow","Principal":{"Federated":"` + ghProvider + `"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"` + op +
			`":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":` + subs + `}}}`
	}
	users := func(arns string) string {
		return `{"Effect":"Allow","Principal":{"AWS":` + arns + `},"Action":"sts:AssumeRole"}`
	}
	doc := func(statements ...string) string {
		return `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`
	}
	for _, tt := range []struct {
		name    string
		trust   string
		remove  []string
		want    string // the statements left, as RemoveTrust writes them
		wantErr string
	}{
		{"a sub among two leaves the other, as a string",
			doc(oidc("StringEquals", `["`+mainSub+`","`+devSub+`"]`)), []string{mainSub},
			doc(oidc("StringEquals", `"`+devSub+`"`)), ""},
		{"a StringLike sub is removed like a StringEquals one",
			doc(oidc("StringLike", `["repo:polarsquad/krops:*","`+devSub+`"]`)), []string{"repo:polarsquad/krops:*"},
			doc(oidc("StringLike", `"`+devSub+`"`)), ""},
		{"a statement whose only sub goes is removed, not widened to every sub",
			doc(oidc("StringEquals", `"`+mainSub+`"`), users(`"`+alice+`"`)), []string{mainSub},
			doc(users(`"` + alice + `"`)), ""},
		{"an AWS principal among two leaves the other",
			doc(users(`["` + alice + `","` + bob + `"]`)), []string{alice},
			doc(users(`"` + bob + `"`)), ""},
		{"a statement whose only AWS principal goes is removed",
			doc(users(`"`+alice+`"`), oidc("StringEquals", `"`+mainSub+`"`)), []string{alice},
			doc(oidc("StringEquals", `"`+mainSub+`"`)), ""},
		{"a sub and a principal in one call",
			doc(users(`["`+alice+`","`+bob+`"]`), oidc("StringEquals", `["`+mainSub+`","`+devSub+`"]`)), []string{bob, devSub},
			doc(users(`"`+alice+`"`), oidc("StringEquals", `"`+mainSub+`"`)), ""},
		{"a single Statement object is read as a list of one",
			`{"Version":"2012-10-17","Statement":` + users(`["`+alice+`","`+bob+`"]`) + `}`, []string{alice},
			doc(users(`"` + bob + `"`)), ""},
		{"a value the policy does not hold is bad input listing what it holds",
			doc(oidc("StringEquals", `"`+mainSub+`"`)), []string{devSub},
			"", `"` + devSub + `" is not in the role's trust policy; it names ` + mainSub},
		{"the aud value is not a sub and cannot be removed",
			doc(oidc("StringEquals", `"`+mainSub+`"`)), []string{"sts.amazonaws.com"},
			"", "is not in the role's trust policy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, denied, err := RemoveTrust(tt.trust, tt.remove)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if !errors.As(err, new(*inputerr.Error)) {
					t.Errorf("err = %T, want bad input", err)
				}
				return
			}
			if err != nil || denied {
				t.Fatalf("denied %v, err %v", denied, err)
			}
			if canon(t, got) != canon(t, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// canon re-encodes a document with sorted keys, to compare two.
func canon(t *testing.T, doc string) string {
	t.Helper()
	s, _, err := RemoveTrust(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzRemoveTrust: whatever the document, RemoveTrust does not panic, and
// what it returns holds none of the removed values and reads back.
func FuzzRemoveTrust(f *testing.F) {
	f.Add(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["`+alice+`","`+bob+`"]},"Action":"sts:AssumeRole"}]}`, alice)
	f.Add(`{"Statement":{"Principal":{"Federated":"x"},"Condition":{"StringLike":{"x:sub":["a","b"]}}}}`, "a")
	f.Add(`{"Statement":[1]}`, "x")
	f.Fuzz(func(t *testing.T, doc, value string) {
		got, denied, err := RemoveTrust(doc, []string{value})
		if err != nil {
			return
		}
		if denied && !strings.Contains(got, denySid(value)) {
			t.Fatalf("no Allow statement is left and no Deny statement for %q was added: %s", value, got)
		}
		left, err := TrustValues(got)
		if err != nil {
			t.Fatalf("RemoveTrust wrote a policy it cannot read: %v\n%s", err, got)
		}
		for _, v := range left {
			if v == value {
				t.Fatalf("%q is still in %s", value, got)
			}
		}
	})
}

// When no Allow statement would be left (IAM refuses a trust policy
// without one), the statements stay and a Deny refuses the value: the
// runbook's case, a CI role trusting one branch that leaked.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
// (an explicit deny in any policy overrides an allow)
func TestRemoveTrustOfTheLastAllowAddsADeny(t *testing.T) {
	const role = "arn:aws:iam::120392301094:role/krops-ci-e2e"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` + ghProvider + `"},"Action":"sts:AssumeRoleWithWebIdentity",` +
		`"Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":"` + mainSub + `"}}}]}`
	if by, err := analyze.Admitted(trust, role, mainSub, nil); err != nil || len(by) == 0 {
		t.Fatalf("before: Admitted = %v, %v; want the statement", by, err)
	}
	got, denied, err := RemoveTrust(trust, []string{mainSub})
	if err != nil || !denied {
		t.Fatalf("denied %v, err %v", denied, err)
	}
	if by, err := analyze.Admitted(got, role, mainSub, nil); err != nil || len(by) != 0 {
		t.Errorf("after: Admitted = %v, %v; want none\n%s", by, err, got)
	}
	if left, err := TrustValues(got); err != nil || len(left) != 0 {
		t.Errorf("TrustValues = %v, %v; the denied value is removed as far as a second run is concerned", left, err)
	}
	if _, _, err := RemoveTrust(got, []string{mainSub}); err == nil {
		t.Errorf("removing the value again added a second deny")
	}
}
