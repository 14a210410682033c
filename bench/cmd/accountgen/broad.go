package main

import (
	"math/rand/v2"
	"slices"
)

// broadIAMWrites are the IAM actions that give a principal power over
// other principals: the broad-IAM profile grants a few of them on "*".
var broadIAMWrites = []string{
	"iam:UpdateAssumeRolePolicy", "iam:CreateAccessKey", "iam:CreateLoginProfile",
	"iam:UpdateLoginProfile", "iam:PassRole", "iam:AddUserToGroup", "iam:PutRolePolicy",
	"iam:AttachRolePolicy", "iam:CreatePolicyVersion", "iam:TagRole", "iam:CreateRole",
}

// broadIAM gives percent of the principals (one at least when percent > 0)
// an inline policy allowing three to six of broadIAMWrites, and
// sts:AssumeRole, on "*"; half of them also get a Deny on the first ten
// roles and users, as teams fence off their administrators. None may
// change its own policies (no iam:PutUserPolicy and the like), so each
// keeps its edges to every role and user rather than one edge to any
// permission: the profile that makes an escalation graph large.
func (g *generator) broadIAM(users, roles []principal, percent int) {
	if percent <= 0 {
		return
	}
	n := max(1, (len(users)+len(roles))*percent/100)
	for range n {
		var p *principal
		if i := g.r.IntN(len(users) + len(roles)); i < len(users) {
			p = &users[i]
		} else {
			p = &roles[i-len(users)]
		}
		if slices.ContainsFunc(p.inline, func(n named) bool { return n.name == "iam-writes" }) {
			continue
		}
		p.inline = append(p.inline, named{"iam-writes", g.broadDocument(g.r)})
	}
}

func (g *generator) broadDocument(r *rand.Rand) document {
	acts := append([]string(nil), broadIAMWrites...)
	r.Shuffle(len(acts), func(i, j int) { acts[i], acts[j] = acts[j], acts[i] })
	acts = append(acts[:3+r.IntN(4)], "sts:AssumeRole")
	slices.Sort(acts)
	d := document{Version: "2012-10-17", Statement: []statement{{Sid: "IAMWrites", Effect: "Allow", Action: acts, Resource: "*"}}}
	if r.IntN(2) == 0 {
		d.Statement = append(d.Statement, statement{Sid: "NotTheAdmins", Effect: "Deny", Action: []string{"iam:*", "sts:*"}, Resource: []string{
			"arn:aws:iam::" + g.account + ":role/*role-0000?", "arn:aws:iam::" + g.account + ":user/*user-0000?"}})
	}
	return d
}
