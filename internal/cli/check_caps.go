package cli

import (
	"fmt"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/policy"
)

// The caps of a file-based review: --boundary, the principal's permissions
// boundary, and --scp, the service control policies over its account. They
// mean what they mean for leash simulate: one boundary; each --scp one
// organization level, root first, its files separated by commas. With
// --user or --role the boundary is IAM's, so --boundary is refused there.

// loadCaps reads --boundary and --scp into in with leash simulate's
// readers, every file before any is used, so that bad input leaves nothing
// half read.
func loadCaps(o checkOptions, in *checkInput) error {
	if o.boundary != "" {
		if o.user != "" || o.role != "" {
			flag := "--user"
			if o.role != "" {
				flag = "--role"
			}
			return &inputerr.Error{Source: "--boundary", Msg: fmt.Sprintf(
				"%s reads the principal's permissions boundary from IAM; drop --boundary, or review the policies as files with --boundary FILE and without %s", flag, flag)}
		}
		n, err := simulate.ReadPolicy("--boundary", o.boundary, policy.Boundary)
		if err != nil {
			return err
		}
		in.boundary = n
		in.sources[n.Name] = o.boundary
	}
	levels, err := simulate.ReadLevels("--scp", o.scps, policy.SCP)
	if err != nil {
		return err
	}
	// ReadLevels keeps the files' order; map each policy to its file for
	// the findings' locations.
	for li, occurrence := range o.scps {
		for fi, file := range strings.Split(occurrence, ",") {
			in.sources[levels[li][fi].Name] = file
		}
	}
	in.scps = levels
	return nil
}
