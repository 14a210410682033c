package analyze

import (
	"strings"
	"testing"
)

const (
	ghProvider = `arn:aws:iam::120392301094:oidc-provider/token.actions.githubusercontent.com`
	mainSub    = "repo:polarsquad/krops:ref:refs/heads/main"
	alice      = "arn:aws:iam::120392301094:user/alice"
	bob        = "arn:aws:iam::120392301094:user/bob"
)

func TestAdmitted(t *testing.T) {
	const role = "arn:aws:iam::120392301094:role/ci"
	oidc := func(sid, op, sub string, extra string) string {
		return `{"Sid":"` + sid + `","Effect":"Allow","Principal":{"Federated":"` + ghProvider + `"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"` + extra + `},"` + op +
			`":{"token.actions.githubusercontent.com:sub":"` + sub + `"}}}`
	}
	doc := func(statements ...string) string {
		return `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`
	}
	for _, tt := range []struct {
		name, trust, value string
		want               string // the statement named, "" for closed
	}{
		{"an exact statement admits its subject", doc(oidc("Exact", "StringEquals", mainSub, "")), mainSub, "Statement[0] (Exact)"},
		{"a wildcard statement admits the subject after the exact one is gone",
			doc(oidc("Wild", "StringLike", "repo:polarsquad/*", "")), mainSub, "Statement[0] (Wild): StringLike token.actions.githubusercontent.com:sub repo:polarsquad/*"},
		{"a wildcard of another owner does not", doc(oidc("Other", "StringLike", "repo:other/*", "")), mainSub, ""},
		{"a statement asking another claim a real token carries still admits",
			doc(oidc("Workflow", "StringEquals", mainSub, `,"token.actions.githubusercontent.com:job_workflow_ref":"polarsquad/krops/.github/workflows/e2e.yml@refs/heads/main"`)), mainSub, "Statement[0] (Workflow)"},
		{"a Deny for the subject closes a wildcard",
			doc(oidc("Wild", "StringLike", "repo:polarsquad/*", ""),
				`{"Effect":"Deny","Principal":{"Federated":"`+ghProvider+`"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"token.actions.githubusercontent.com:sub":"`+mainSub+`"}}}`),
			mainSub, ""},
		{"a user named is admitted", doc(`{"Effect":"Allow","Principal":{"AWS":"` + alice + `"},"Action":"sts:AssumeRole"}`), alice, "Statement[0]"},
		{"a user of a trusted account is admitted after its own ARN is removed",
			doc(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::120392301094:root"},"Action":"sts:AssumeRole"}`), alice, "Statement[0]"},
		{"a user the trust no longer names is not", doc(`{"Effect":"Allow","Principal":{"AWS":"` + bob + `"},"Action":"sts:AssumeRole"}`), alice, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			by, err := Admitted(tt.trust, role, tt.value, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(by, "; "); got != tt.want {
				t.Errorf("Admitted = %q, want %q", got, tt.want)
			}
		})
	}

	// A pod's token carries the audience the operator pins: a statement for
	// another audience does not admit it, however its sub matches.
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif
	const eks = "arn:aws:iam::120392301094:oidc-provider/oidc.eks.eu-north-1.amazonaws.com/id/5C0B4A"
	sa := func(op, sub, aud string) string {
		const p = "oidc.eks.eu-north-1.amazonaws.com/id/5C0B4A"
		cond := `"StringEquals":{"` + p + `:aud":"` + aud + `"},"` + op + `":{"` + p + `:sub":"` + sub + `"}`
		if op == "StringEquals" {
			cond = `"StringEquals":{"` + p + `:aud":"` + aud + `","` + p + `:sub":"` + sub + `"}`
		}
		return doc(`{"Effect":"Allow","Principal":{"Federated":"` + eks + `"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{` + cond + `}}`)
	}
	for _, tt := range []struct {
		name, trust, value, aud string
		admitted                bool
	}{
		{"the service account named, for the pinned audience", sa("StringEquals", "system:serviceaccount:kube-system:ebs-csi-controller-sa", "sts.amazonaws.com"), "system:serviceaccount:kube-system:ebs-csi-controller-sa", "sts.amazonaws.com", true},
		{"another service account of the namespace", sa("StringEquals", "system:serviceaccount:kube-system:ebs-csi-controller-sa", "sts.amazonaws.com"), "system:serviceaccount:kube-system:ebs-csi-node-sa", "sts.amazonaws.com", false},
		{"every service account of the namespace", sa("StringLike", "system:serviceaccount:kube-system:*", "sts.amazonaws.com"), "system:serviceaccount:kube-system:ebs-csi-node-sa", "sts.amazonaws.com", true},
		{"a token for another audience", sa("StringEquals", "system:serviceaccount:kube-system:ebs-csi-controller-sa", "sts.amazonaws.com"), "system:serviceaccount:kube-system:ebs-csi-controller-sa", "leash", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			by, err := Admitted(tt.trust, role, tt.value, map[string]string{"aud": tt.aud})
			if err != nil {
				t.Fatal(err)
			}
			if (len(by) > 0) != tt.admitted {
				t.Errorf("Admitted = %q, want admitted %v", by, tt.admitted)
			}
		})
	}
}
