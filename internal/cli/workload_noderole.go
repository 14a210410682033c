package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// readNodeRole reads the node role's policy documents (--node-role-policy)
// and checks the allow-list (--node-role-only) names catalog actions, so
// that a misspelt pattern is refused rather than passing nothing.
func readNodeRole(files, only []string) ([]policy.Named, error) {
	if len(only) == 0 {
		return nil, &inputerr.Error{Source: "--node-role-only", Msg: "give at least one action pattern, such as 'ec2:Describe*'"}
	}
	cat := catalog.Default()
	for _, p := range only {
		if len(cat.Expand(p)) == 0 {
			return nil, &inputerr.Error{Source: "--node-role-only", Msg: analyze.NoMatch(cat, p)}
		}
	}
	var out []policy.Named
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, &inputerr.Error{Source: "--node-role-policy", Msg: fmt.Sprintf("%s: %v", f, errors.Unwrap(err))}
		}
		doc, err := policy.Parse(data, policy.Identity)
		if err != nil {
			return nil, &inputerr.Error{Source: "--node-role-policy", Msg: fmt.Sprintf("%s: %v (give an IAM policy document in JSON)", f, err)}
		}
		out = append(out, policy.Named{Name: f, Document: doc})
	}
	return out, nil
}

// readNodeRoleIAM reads the node role's identity policies from IAM
// (--node-role, with --endpoint, --credentials-file or --profile): inline
// and attached, as the instance's credentials carry them. A boundary the
// role may have is not applied, so the check is the stricter one.
func readNodeRoleIAM(ctx context.Context, access iamAccess, role string) ([]policy.Named, error) {
	if role == "" {
		if access.given() {
			return nil, &inputerr.Error{Source: "--endpoint, --credentials-file and --profile", Msg: "they read the node role from IAM; give it with --node-role NAME (or drop them)"}
		}
		return nil, nil
	}
	name := role
	if strings.HasPrefix(role, "arn:") {
		kind, short, ok := iamclient.PrincipalName(role)
		if !ok || kind != "role" {
			return nil, &inputerr.Error{Source: "--node-role " + role, Msg: "not an IAM role ARN; give the role's name or arn:aws:iam::ACCOUNT:role/NAME (the instance profile's role, not the instance profile)"}
		}
		name = short
	}
	client, err := access.client(ctx, 3)
	if err != nil {
		return nil, err
	}
	pp, err := client.LoadPolicies(ctx, "role", name)
	switch {
	case iamclient.IsNotFound(err):
		return nil, &inputerr.Error{Source: "--node-role " + role, Msg: fmt.Sprintf("IAM has no such role (%v); give the role of the nodes' instance profile", err)}
	case errors.As(err, new(*iamclient.PolicyParseError)):
		return nil, &inputerr.Error{Source: "--node-role " + role, Msg: err.Error()}
	case err != nil:
		return nil, &inputerr.Error{Source: "--node-role " + role, Msg: fmt.Sprintf("reading its policies from IAM: %v", err)}
	}
	out := make([]policy.Named, 0, len(pp.Identity))
	for _, n := range pp.Identity {
		out = append(out, policy.Named{Name: "role " + name + ": " + n.Name, Document: n.Document})
	}
	return out, nil
}
