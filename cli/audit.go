package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"leash.dev/leash/localaws/audit"
)

func newAudit() *cobra.Command {
	var (
		data, principal, since, until, output string
		denied                                bool
	)
	const short = "Read the local endpoint's audit log"
	cmd := &cobra.Command{
		Use:   "audit",
		Short: short,
		Long: long(short, `audit reads the requests that leash local recorded in DIR/`+audit.FileName+`: one
CloudTrail-shaped JSON event per request, with the caller, action, resource,
the engine's decision and the error code. Secrets are never recorded.`),
		Example: example(
			"# Everything alice did in the last hour",
			"leash audit --data ./leash-data --principal arn:aws:iam::111122223333:user/alice --since 1h",
			"",
			"# Denied requests since a time, as JSON lines",
			"leash audit --data ./leash-data --since 2026-11-29T12:00:00Z --denied --output json",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			f := audit.Filter{Principal: principal, Denied: denied}
			var err error
			if since != "" {
				if f.Since, err = audit.ParseTime(since, now); err != nil {
					return fmt.Errorf("--since %w", err)
				}
			}
			if until != "" {
				if f.Until, err = audit.ParseTime(until, now); err != nil {
					return fmt.Errorf("--until %w", err)
				}
			}
			if data == "" {
				return fmt.Errorf("--data is required: the folder given to leash local --data")
			}
			file, err := os.Open(filepath.Join(data, audit.FileName))
			if err != nil {
				return fmt.Errorf("--data %s: no audit log there (%v); is it the folder given to leash local --data?", data, err)
			}
			defer func() { _ = file.Close() }()
			bad, err := audit.Print(cmd.OutOrStdout(), file, f, output)
			for _, b := range bad {
				fmt.Fprintf(cmd.ErrOrStderr(), "leash audit: skipped %s: %s\n", file.Name(), b)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&data, "data", "", "data folder `DIR` of leash local (e.g. --data ./leash-data)")
	fl.StringVar(&principal, "principal", "", "only requests by this caller `ARN` (e.g. --principal arn:aws:iam::111122223333:user/alice)")
	fl.StringVar(&since, "since", "", "only requests at or after `TIME`: RFC 3339, or a duration before now (e.g. --since 1h)")
	fl.StringVar(&until, "until", "", "only requests before `TIME`, like --since (e.g. --until 2026-11-29T13:00:00Z)")
	fl.BoolVar(&denied, "denied", false, "only refused requests (e.g. --denied)")
	fl.StringVar(&output, "output", "table", "output `FORMAT`: table, or json for JSON lines (e.g. --output json)")
	return cmd
}
