package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// errNewAccess is diff's "no": NEW grants something OLD did not.
var errNewAccess = errors.New("new access")

func newDiff() *cobra.Command {
	var output, principal string
	const short = "List the access a new policy grants that the old one did not"
	cmd := &cobra.Command{
		Use:   "diff OLD... NEW",
		Short: short,
		Long: long(short, `diff asks leash's engine, for every action, resource and condition that NEW's
Allow statements grant, whether OLD allows it too, and lists those it does not:
the access a change adds. NEW is the last argument; every other one is OLD.
Each is a policy document (.json), a CredentialsRequest manifest (.yaml, its
statementEntries) or a folder of either; the OLD policies count together, as
policies of one principal do (a Deny in one applies to all).

Action patterns are expanded with the catalog of AWS actions, so "s3:Get*" in
NEW is new access for each Get action OLD does not allow. Resource patterns are
compared whole: arn:aws:s3:::* in OLD covers arn:aws:s3:::krops-* in NEW, and
arn:aws:s3:::krops-a does not. A condition in NEW is new access for each value
OLD does not allow (a second region, say).

Exit status: 0 when NEW grants nothing new, 1 when it does (for CI), 2 on bad
input.`),
		Example: example(
			"# Does the upgraded request grant anything the installed one did not?",
			"leash diff installed/credentialsrequest.yaml upgrade/credentialsrequest.yaml",
			"",
			"# A merged policy widens nothing",
			"leash union examples/ack-s3 examples/ack-rds examples/ack-iam > ack-union.json",
			"leash diff examples/ack-s3 examples/ack-rds examples/ack-iam ack-union.json",
		),
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text or json", output)}
			}
			olds, err := loadPolicies(args[:len(args)-1])
			if err != nil {
				return err
			}
			news, err := loadPolicies(args[len(args)-1:])
			if err != nil {
				return err
			}
			var set policy.Set
			for _, o := range olds {
				set.Add(policy.Identity, policy.Named{Name: o.Name, Document: o.Doc})
			}
			compiled, err := policy.Compile(set)
			if err != nil {
				return err
			}
			all := &policy.Document{Version: policy.Version2012}
			for _, n := range news {
				all.Statements = append(all.Statements, n.Doc.Statements...)
			}
			gaps := analyze.Ask(compiled, principal, analyze.Questions(all, analyze.ActionExpander(catalog.Default())))
			out := cmd.OutOrStdout()
			if output == "json" {
				if gaps == nil {
					gaps = []analyze.Gap{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(gaps); err != nil {
					return err
				}
			} else {
				// A grant's action, resource and condition values are the
				// new policy's words: escaped, each stays on its line.
				for _, g := range gaps {
					line := g.Action + " on " + g.Resource
					if g.Context != "" {
						line += " when " + g.Context
					}
					fmt.Fprintln(out, termsafe.Escape(line))
				}
				if len(gaps) == 0 {
					fmt.Fprintf(out, "%s grants nothing the others do not\n", termsafe.Escape(args[len(args)-1]))
				}
			}
			if len(gaps) > 0 {
				return errNewAccess
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "`FORMAT`: text (one new grant a line) or json")
	cmd.Flags().StringVar(&principal, "principal", analyze.DefaultPrincipal,
		"`ARN` of the principal both policies are for (its account is where patterns with a wildcard account point)")
	return cmd
}
