package cli

import (
	"context"
	"fmt"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/whocan"
	"leash.dev/leash/policy"
)

// checkOrgFlags refuses beside --org what it replaces: an organization
// folder holds its own SCPs and RCPs and a snapshot per account.
func checkOrgFlags(o whoCanOptions) error {
	if o.orgDir == "" {
		return nil
	}
	switch {
	case o.accountFile != "":
		return &inputerr.Error{Source: "--org", Msg: "reads every account's snapshot from DIR/snapshots; --account reads one account: give one or the other"}
	case len(o.scp) > 0 || len(o.rcp) > 0:
		return &inputerr.Error{Source: "--org", Msg: "reads the SCPs and RCPs attached in the organization from DIR/scps and DIR/rcps; leave out --scp and --rcp"}
	case o.given():
		return &inputerr.Error{Source: "--org", Msg: "reads snapshots from DIR; --endpoint, --credentials-file and --profile read a live account instead: give one or the other"}
	}
	return nil
}

// runWhoCanOrg answers over an organization folder (--org).
func runWhoCanOrg(ctx context.Context, o whoCanOptions, q whocan.Question) error {
	var org *whocan.Organization
	var m *whocan.Model
	err := untilDone(ctx, "reading the organization", func() error {
		var err error
		if org, err = whocan.LoadOrganization(o.orgDir); err != nil {
			return err
		}
		if m, err = whocan.NewOrgModelFor(org, modelAction(o, q)); err != nil {
			return &inputerr.Error{Source: o.orgDir, Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return err
	}
	warnings := org.Warnings
	if a, ok := policy.ParseARN(q.Resource); ok && a.Account == "" && q.ResourceAccount == "" {
		warnings = append(warnings, fmt.Sprintf("%s names no account: each principal is asked as if the resource were in its own account; give --resource-account ID", q.Resource))
	}
	return answerWhoCan(ctx, o, m, q, warnings)
}
