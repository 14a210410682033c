// Package cli is the leash command line: the command tree, its help, and the
// mapping of outcomes to exit statuses. The commands' logic lives in the
// packages they are named after, where tests reach it without a terminal.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/buildinfo"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/internal/simulate"
)

// Exit statuses of every leash command.
const (
	// ExitOK: the command did what was asked and the answer is "yes".
	ExitOK = 0
	// ExitNo: the input was good and the answer is "no", such as a denied
	// request in `leash simulate`.
	ExitNo = 1
	// ExitBadInput: bad flags, files or documents; nothing was answered.
	ExitBadInput = 2
	// ExitInterrupted: SIGINT or SIGTERM stopped the work, as shells
	// report a process a signal ended (128 + SIGINT's 2).
	ExitInterrupted = 130
)

// Run runs leash with args (without the program name) and returns the exit
// status. Messages about bad input go to stderr, prefixed with the command.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if cmd == nil {
		cmd = root
	}
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, simulate.ErrDenied), errors.Is(err, errNotReady), errors.Is(err, errNewAccess),
		errors.Is(err, errFindings), errors.Is(err, errUnusable), errors.Is(err, revoke.ErrRefused),
		errors.Is(err, errNobody):
		return ExitNo
	}
	msg := err.Error()
	if errors.Is(err, errInterrupted) {
		fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), msg)
		return ExitInterrupted
	}
	var input *inputerr.Error
	if !errors.As(err, &input) && !strings.Contains(msg, "--help") {
		// cobra's own messages (unknown command, bad arguments) name no fix.
		msg += fmt.Sprintf("; see %q", cmd.CommandPath()+" --help")
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), msg)
	return ExitBadInput
}

func newRoot() *cobra.Command {
	const short = "Least-privilege AWS credentials for Kubernetes controllers"
	root := &cobra.Command{
		Use:   "leash",
		Short: short,
		Long: long(short, `leash issues least-privilege AWS credentials to Kubernetes controllers, proves
what each credential can and cannot do before it is handed out, and takes it
back in one command. Every policy it writes or reads can be evaluated offline
by its own IAM engine, which follows AWS's documented evaluation logic.

Exit status: 0 when the answer is yes (every request allowed), 1 when the
input was good and the answer is no (a request denied), 2 on bad input.`),
		Example: example(
			"# Is this action allowed by this policy, and why?",
			"leash simulate --identity policy.json --action s3:GetObject \\",
			"  --resource arn:aws:s3:::my-bucket/report.csv --explain",
			"",
			"# Help for one command",
			"leash simulate --help",
		),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// Shell completion is not offered yet; the generated command would be
	// the only one without examples.
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(flagError)
	root.Version = buildinfo.Read().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newVersion(), newSimulate(), newExpand(), newAudit(), newLocal(), newApply(), newOperator(), newUnion(), newDiff(), newCheck(), newCreds(), newRevoke(), newSTS(), newWhoCan(), newBroker())
	return root
}

// flagError adds where to look to cobra's flag errors.
func flagError(cmd *cobra.Command, err error) error {
	return fmt.Errorf("%w; see %q", err, cmd.CommandPath()+" --help")
}

// example indents example lines the way cobra prints them, leaving blank
// lines blank.
func example(lines ...string) string {
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}

// long puts the one-line summary above a command's description, since
// cobra's help shows only the description.
func long(short, description string) string {
	return short + ".\n\n" + description
}
