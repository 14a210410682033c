package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/buildinfo"
	"leash.dev/leash/internal/inputerr"
)

func newVersion() *cobra.Command {
	var output string
	const short = "Print leash's version, the commit it was built from, and its Go version"
	cmd := &cobra.Command{
		Use:   "version",
		Short: short,
		Long: long(short, `The version is the release's (set when it was built with make release), or
(devel) for a binary built from a clone; the commit and its time are what the
Go toolchain recorded at build time, with "modified" when the work tree had
changes. leash --version prints the same line.`),
		Example: example(
			"leash version",
			"leash version --output json",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Read()
			switch output {
			case "text":
				_, err := fmt.Fprintln(cmd.OutOrStdout(), info)
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text or json", output)}
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "`FORMAT`: text or json")
	return cmd
}
