// Command accountgen writes a generated AWS account snapshot in the format
// `aws iam get-account-authorization-details` prints: users (in groups),
// groups, roles with trust policies, and managed policies with their
// versions. The same -seed and sizes give the same bytes, so a benchmark or
// a test can name the account it ran on by its flags.
//
//	accountgen -seed 1 -principals 5000 -policies 20000 -o account.json
//
// -accounts N writes an organization of N accounts instead, each of
// -principals and -policies, to the folder -o names, as `leash who-can
// --org` reads it:
//
//	accountgen -accounts 20 -principals 5000 -policies 2000 -o org
//
// Documents are printed as JSON objects, as the AWS CLI prints them;
// -encoded writes them URL-encoded, as the API returns them.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	err := run(os.Args[1:], os.Stdout)
	var usage usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "accountgen:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "accountgen:", err)
		os.Exit(1)
	}
}

// usageError is a bad flag; the command exits 2 on it.
type usageError string

func (e usageError) Error() string { return string(e) }

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("accountgen", flag.ContinueOnError)
	seed := fs.Uint64("seed", 1, "seed of the generator; the same seed and sizes give the same output")
	principals := fs.Int("principals", 100, "users and roles to generate (about 60% users, 40% roles)")
	policies := fs.Int("policies", 200, "managed policies to generate (customer managed, plus the AWS managed ones attached)")
	broad := fs.Int("broad-iam", 0, "percent of principals given IAM writes on \"*\" (the broad-IAM profile; 0 for none)")
	encoded := fs.Bool("encoded", false, "write policy documents URL-encoded, as the API returns them, instead of as JSON objects as the AWS CLI prints them")
	out := fs.String("o", "-", "file to write; - for standard output; with -accounts, the folder to write")
	accounts := fs.Int("accounts", 0, "write an organization of this many accounts (the first its management account) to the folder -o names, instead of one account")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("unexpected argument %q: every setting is a flag (see -h)", fs.Arg(0)))
	}
	if *principals < 1 {
		return usageError(fmt.Sprintf("-principals %d: give 1 or more", *principals))
	}
	if *policies < 1 {
		return usageError(fmt.Sprintf("-policies %d: give 1 or more", *policies))
	}
	cfg := config{Seed: *seed, Principals: *principals, Policies: *policies, Encoded: *encoded, BroadIAM: *broad}
	if *accounts != 0 {
		if *accounts < 1 || *accounts > 1000 {
			return usageError(fmt.Sprintf("-accounts %d: give 1 to 1000", *accounts))
		}
		if *out == "-" {
			return usageError("-accounts writes a folder: give it with -o DIR")
		}
		return writeOrg(*out, cfg, *accounts)
	}
	snap := generate(cfg)
	if *out == "-" {
		return write(stdout, snap)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := write(f, snap); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return f.Close()
}

// write prints the snapshot as the AWS CLI does: four-space indents, no
// HTML escaping.
func write(w io.Writer, snap *snapshot) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(snap); err != nil {
		return err
	}
	return bw.Flush()
}
