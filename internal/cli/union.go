package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"leash.dev/leash/analyze"
	"leash.dev/leash/policy"
)

func newUnion() *cobra.Command {
	const short = "Merge the policies of several requests into one for a shared principal"
	return &cobra.Command{
		Use:   "union FILE|DIR...",
		Short: short,
		Long: long(short, `union merges policy documents and CredentialsRequests (their statementEntries)
meant for one principal, such as several controllers behind one key, into one
policy that grants what they grant together and nothing more. Allow statements
with the same resources and conditions become one statement; repeated actions,
and actions another pattern of the same statement matches, are dropped. Deny
statements are kept as they are: note that a Deny of one input then applies to
what the others allow.

The result is printed as JSON. Exit status: 0, or 2 on bad input.`),
		Example: example(
			"# The seed runbook's union: the S3, RDS and IAM controllers on one principal",
			"leash union examples/ack-s3 examples/ack-rds examples/ack-iam > ack-union.json",
			"",
			"# Check it grants nothing the requests did not",
			"leash diff examples/ack-s3 examples/ack-rds examples/ack-iam ack-union.json",
		),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			named, err := loadPolicies(args)
			if err != nil {
				return err
			}
			docs := make([]*policy.Document, len(named))
			for i, n := range named {
				docs[i] = n.Doc
			}
			data, err := analyze.Union(docs)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(data))
			return err
		},
	}
}
