package cli

import (
	"fmt"
	"os"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/whocan"
)

// accountCheck is the snapshot `leash check --account` reviews a principal
// of, kept to add the chain findings.
type accountCheck struct {
	model *whocan.Model
	node  int32
}

// loadAccountInput reads the principal's policies from --account instead
// of IAM: --principal ARN, or --user or --role by name or ARN.
func loadAccountInput(o checkOptions) (checkInput, error) {
	in := checkInput{sources: map[string]string{}}
	if o.given() {
		return in, &inputerr.Error{Source: "--account", Msg: "reads the principal from a snapshot file; --endpoint, --credentials-file and --profile read IAM instead: give one or the other"}
	}
	if o.boundary != "" {
		return in, &inputerr.Error{Source: "--boundary", Msg: "--account reads the principal's permissions boundary from the snapshot; drop --boundary"}
	}
	if err := loadCaps(o, &in); err != nil {
		return in, err
	}
	data, err := os.ReadFile(o.accountFile)
	if err != nil {
		return in, &inputerr.Error{Source: o.accountFile, Msg: fmt.Sprintf("cannot read (given to --account): %v", err)}
	}
	snap, err := whocan.Parse(data, o.accountFile)
	if err != nil {
		return in, err
	}
	m, err := whocan.NewModel(snap, whocan.Org{SCPs: in.scps})
	if err != nil {
		return in, &inputerr.Error{Source: o.accountFile, Msg: err.Error()}
	}
	var p *whocan.Principal
	var ok bool
	var flag string
	switch {
	case o.user != "" && o.role != "":
		return in, &inputerr.Error{Msg: "--user and --role: give one principal of the snapshot"}
	case o.user != "":
		flag = "--user " + o.user
		p, ok = m.Find(whocan.KindUser, o.user)
	case o.role != "":
		flag = "--role " + o.role
		p, ok = m.Find(whocan.KindRole, o.role)
	case o.principalGiven:
		flag = "--principal " + o.principal
		p, ok = m.Find("", o.principal)
	default:
		return in, &inputerr.Error{Source: "--account", Msg: "names no principal to check: give --principal ARN, --user NAME or --role NAME of the snapshot"}
	}
	if !ok {
		return in, &inputerr.Error{Source: flag, Msg: fmt.Sprintf("the snapshot %s has no such principal; give the name or ARN of a user or role it lists", o.accountFile)}
	}
	identity, boundary, trust := m.Policies(p)
	in.principal, in.identity, in.boundary, in.trust = p.ARN, identity, boundary, trust
	for _, n := range identity {
		in.sources[n.Name] = iamSource(n.Name, p.ARN)
	}
	if err := in.addFiles(o.files); err != nil {
		return in, err
	}
	node, _ := m.Index(p.ARN)
	in.account = &accountCheck{model: m, node: node}
	return in, nil
}

// chainFindings are the escalations the principal reaches through other
// principals of the snapshot (LEASH-ESC-CHAIN).
func (a *accountCheck) chainFindings() []analyze.Finding {
	if a == nil {
		return nil
	}
	return a.model.Graph().ChainFindings(a.node)
}
