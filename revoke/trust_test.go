package revoke

import (
	"errors"
	"strings"
	"testing"

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
		name     string
		trust    string
		remove   []string
		want     string // the statements left, as RemoveTrust writes them
		wantErr  string
		refusing bool
	}{
		{"a sub among two leaves the other, as a string",
			doc(oidc("StringEquals", `["`+mainSub+`","`+devSub+`"]`)), []string{mainSub},
			doc(oidc("StringEquals", `"`+devSub+`"`)), "", false},
		{"a StringLike sub is removed like a StringEquals one",
			doc(oidc("StringLike", `["repo:polarsquad/krops:*","`+devSub+`"]`)), []string{"repo:polarsquad/krops:*"},
			doc(oidc("StringLike", `"`+devSub+`"`)), "", false},
		{"a statement whose only sub goes is removed, not widened to every sub",
			doc(oidc("StringEquals", `"`+mainSub+`"`), users(`"`+alice+`"`)), []string{mainSub},
			doc(users(`"` + alice + `"`)), "", false},
		{"an AWS principal among two leaves the other",
			doc(users(`["` + alice + `","` + bob + `"]`)), []string{alice},
			doc(users(`"` + bob + `"`)), "", false},
		{"a statement whose only AWS principal goes is removed",
			doc(users(`"`+alice+`"`), oidc("StringEquals", `"`+mainSub+`"`)), []string{alice},
			doc(oidc("StringEquals", `"`+mainSub+`"`)), "", false},
		{"a sub and a principal in one call",
			doc(users(`["`+alice+`","`+bob+`"]`), oidc("StringEquals", `["`+mainSub+`","`+devSub+`"]`)), []string{bob, devSub},
			doc(users(`"`+alice+`"`), oidc("StringEquals", `"`+mainSub+`"`)), "", false},
		{"a single Statement object is read as a list of one",
			`{"Version":"2012-10-17","Statement":` + users(`["`+alice+`","`+bob+`"]`) + `}`, []string{alice},
			doc(users(`"` + bob + `"`)), "", false},
		{"a value the policy does not hold is bad input listing what it holds",
			doc(oidc("StringEquals", `"`+mainSub+`"`)), []string{devSub},
			"", `"` + devSub + `" is not in the role's trust policy; it names ` + mainSub, false},
		{"the aud value is not a sub and cannot be removed",
			doc(oidc("StringEquals", `"`+mainSub+`"`)), []string{"sts.amazonaws.com"},
			"", "is not in the role's trust policy", false},
		{"removing the last statement is refused",
			doc(oidc("StringEquals", `"`+mainSub+`"`)), []string{mainSub},
			"", "no statement, which IAM refuses", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RemoveTrust(tt.trust, tt.remove)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.refusing != errors.Is(err, ErrLastTrustStatement) {
					t.Errorf("err = %v; refusal of the last statement: %v", err, tt.refusing)
				}
				if !tt.refusing && !errors.As(err, new(*inputerr.Error)) {
					t.Errorf("err = %T, want bad input", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
	s, err := RemoveTrust(doc, nil)
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
		got, err := RemoveTrust(doc, []string{value})
		if err != nil {
			return
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
