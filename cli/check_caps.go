package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// The caps of a file-based review: --boundary, the principal's permissions
// boundary, and --scp, the service control policies over its account. They
// mean what they mean for leash simulate: one boundary; each --scp one
// organization level, root first, its files separated by commas. With
// --user or --role the boundary is IAM's, so --boundary is refused there.

// loadCaps reads --boundary and --scp into in, every file before any is
// used, so that bad input leaves nothing half read.
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
		n, err := readCapFile("--boundary", o.boundary, policy.Boundary)
		if err != nil {
			return err
		}
		in.boundary = &n
		in.sources[n.Name] = o.boundary
	}
	for _, occurrence := range o.scps {
		var level []policy.Named
		for _, file := range strings.Split(occurrence, ",") {
			if strings.TrimSpace(file) == "" {
				return &inputerr.Error{Source: "--scp", Msg: fmt.Sprintf(
					"%q has an empty file name; give one organization level per --scp, its files separated by commas, such as --scp root.json --scp ou.json,deny-regions.json", occurrence)}
			}
			n, err := readCapFile("--scp", file, policy.SCP)
			if err != nil {
				return err
			}
			level = append(level, n)
			in.sources[n.Name] = file
		}
		in.scps = append(in.scps, level)
	}
	return nil
}

// readCapFile reads and parses one policy file given to flag, named after
// its path as the identity policies are.
func readCapFile(flag, file string, kind policy.Kind) (policy.Named, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		msg := fmt.Sprintf("cannot read (given to %s): %v", flag, errors.Unwrap(err))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			msg = fmt.Sprintf("no such file (given to %s); check the path", flag)
		case errors.Is(err, fs.ErrPermission):
			msg = fmt.Sprintf("permission denied (given to %s); make the file readable", flag)
		}
		return policy.Named{}, &inputerr.Error{Source: file, Msg: msg}
	}
	doc, err := policy.Parse(data, kind)
	if err != nil {
		var pe *policy.ParseError
		if errors.As(err, &pe) {
			return policy.Named{}, &inputerr.Error{Source: file, Field: pe.Path, Msg: fmt.Sprintf("%s (given to %s)", pe.Msg, flag)}
		}
		return policy.Named{}, &inputerr.Error{Source: file, Msg: fmt.Sprintf("%v (given to %s)", err, flag)}
	}
	return policy.Named{Name: file, Document: doc}, nil
}
