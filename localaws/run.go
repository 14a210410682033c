package localaws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"leash.dev/leash/internal/shellquote"
	"net"
	"path/filepath"
	"strings"
	"syscall"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/internal/store"
)

// DefaultListen is where leash local listens unless told otherwise: the port
// LocalStack uses, so that tools configured for one find the other.
const DefaultListen = "127.0.0.1:4566"

// Listen says where Run accepts connections.
type Listen struct {
	// Address is host:port. Port 0 picks a free port; Run prints the one
	// chosen.
	Address string
	// AllowRemote permits an address other than loopback.
	AllowRemote bool
}

// ListenError is an unusable listen address: the address and what to do.
type ListenError struct {
	Address string
	Msg     string
}

func (e *ListenError) Error() string { return fmt.Sprintf("listen address %q: %s", e.Address, e.Msg) }

// Check refuses an address that is not host:port, and one other hosts could
// reach unless AllowRemote is set. leash local speaks plain HTTP and its
// administrator key can do anything, so it stays on loopback by default.
// Only loopback IP addresses and "localhost" count as loopback; a name that
// resolves to one does not, since what it resolves to can change.
func (l Listen) Check() error {
	host, port, err := net.SplitHostPort(l.Address)
	if err != nil {
		return &ListenError{l.Address, "not host:port; give one such as " + DefaultListen}
	}
	if port == "" {
		return &ListenError{l.Address, "no port; give one such as " + DefaultListen + ", or port 0 for a free one"}
	}
	if l.AllowRemote || isLoopback(host) {
		return nil
	}
	return &ListenError{l.Address, "not a loopback address: leash local serves plain HTTP, so signed " +
		"requests and the keys it returns would cross the network unencrypted, and anyone who can reach " +
		"the port could try keys against it; listen on 127.0.0.1 or [::1], or give --allow-remote on a network you trust"}
}

// listenError says why listening failed, and what to do about the usual
// cause.
func listenError(address string, err error) error {
	msg := err.Error()
	var op *net.OpError
	if errors.As(err, &op) {
		msg = op.Err.Error()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		msg += "; is another leash local running? Stop it, or give another port (port 0 picks a free one)"
	}
	return &ListenError{address, "cannot listen: " + msg}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Run is `leash local`: it opens the data folder, listens, prints to out
// where the endpoint is and how to use it, and serves until ctx is done.
// Then it lets requests under way finish and closes the audit log and the
// store. It never prints a secret: the administrator's key is in a
// file, and out gets its path.
func Run(ctx context.Context, cfg Config, l Listen, out io.Writer) (err error) {
	if err := l.Check(); err != nil {
		return err
	}
	// Listening first leaves no data folder behind when the port is taken.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", l.Address)
	if err != nil {
		return listenError(l.Address, err)
	}
	srv, err := Open(cfg)
	if errors.Is(err, store.ErrInUse) {
		err = fmt.Errorf("%w: stop it, or give another data folder", err)
	}
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	warnRemote(srv.cfg.Log, l, ln.Addr())
	url := "http://" + ln.Addr().String()
	printStart(out, srv, url)
	err = srv.Serve(ctx, ln)
	if err != nil {
		return fmt.Errorf("serve %s: %w", url, err)
	}
	fmt.Fprintf(out, "leash local: stopped; the audit log is in %s\n", filepath.Join(absolute(cfg.DataDir), audit.FileName))
	return nil
}

// printStart says where the endpoint is and gives a command to try it
// with; the URL line comes first, for scripts that wait for it.
func printStart(out io.Writer, srv *Server, url string) {
	creds := absolute(srv.AdminCredentialsPath())
	fmt.Fprintf(out, "leash local: listening on %s\n", url)
	fmt.Fprintf(out, "  account:           %s\n", srv.AccountID())
	fmt.Fprintf(out, "  admin credentials: %s (profile default, %s)\n", creds, modeOf(creds))
	for _, id := range srv.cfg.OtherAccounts {
		fmt.Fprintf(out, "  other account:     %s, admin credentials %s\n", id, absolute(srv.AccountAdminCredentialsPath(id)))
	}
	fmt.Fprintf(out, "  data folder:       %s\n", absolute(srv.cfg.DataDir))
	fmt.Fprintf(out, "Try it with the AWS CLI:\n")
	fmt.Fprintf(out, "  AWS_SHARED_CREDENTIALS_FILE=%s AWS_DEFAULT_REGION=us-east-1 aws --endpoint-url %s iam list-users\n", shellquote.Quote(creds), url)
	fmt.Fprintf(out, "Stop with Ctrl-C or SIGTERM.\n")
}

// absolute is path made absolute, so that a printed command works from any
// folder; path itself if that fails.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
