package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/policy"
)

func newLocal() *cobra.Command {
	var (
		cfg     localaws.Config
		listen  localaws.Listen
		jwks    []string
		profile string
	)
	const short = "Run an IAM and STS endpoint on this machine"
	cmd := &cobra.Command{
		Use:   "local",
		Short: short,
		Long: long(short, `local serves IAM and STS on loopback, for tests and development. The AWS SDKs
and the AWS CLI talk to it unchanged when given its URL as the endpoint. It
checks every request's SigV4 signature, authorizes it with leash's policy
engine as AWS would, answers with AWS's responses and errors, and records it in
an audit log that `+"`leash audit`"+` reads.

Everything lives in the folder given with --data, which is created if missing:
`+files()+`The first start creates the account and its administrator; later starts on the
same folder keep them. On start, local prints its URL, the account ID and the
path of the credentials file, never the key itself.

The fault flags make the endpoint behave like a busy, eventually consistent
AWS, to test a client's retries and waits. All are off by default.

--clock-offset moves the endpoint's clock from the machine's, for tests that
need time to pass without waiting: sessions issue and expire, keys start to
work, aws:CurrentTime and aws:TokenIssueTime are judged, the audit log is
stamped and every response's Date header is written at the machine's time
plus the offset. Only SigV4's 15-minute window is checked against the
machine's time, since clients sign with their own clocks. Restarting on the
same --data with a larger offset ends the sessions that expired in between.

local stops on Ctrl-C (SIGINT) or SIGTERM: requests under way finish (for up
to 10 seconds), then the audit log and the state are closed. Every answered
request is in the audit log before its answer is sent; a torn last line left
by a crash is cut off at the next start, which the log then records.

Exit status: 0 after a stop by signal, 2 when it cannot start (bad flags, an
address in use, a data folder it cannot open) or stops on an error.`),
		Example: example(
			"# Start on 127.0.0.1:4566 with its state in ./leash-data",
			"leash local --data ./leash-data",
			"",
			"# In another shell: the administrator lists the users",
			"AWS_SHARED_CREDENTIALS_FILE=./leash-data/admin-credentials AWS_DEFAULT_REGION=us-east-1 \\",
			"  aws --endpoint-url http://127.0.0.1:4566 iam list-users",
			"",
			"# A free port and a fixed account; the URL is the first line printed",
			"leash local --data ./leash-data --listen 127.0.0.1:0 --account-id 123456789012",
			"",
			"# Throttle 5% of requests, fail 1%, and make new keys work after 5 seconds",
			"leash local --data ./leash-data --throttle-rate 0.05 --error-rate 0.01 --propagation-delay 5s",
			"",
			"# Restart two days later, as far as sessions and policies can tell",
			"leash local --data ./leash-data --clock-offset 48h",
		),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q: give the data folder with --data DIR", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLocalFlags(cfg); err != nil {
				return err
			}
			var err error
			if cfg.JWKSFiles, err = parseJWKS(jwks); err != nil {
				return err
			}
			cfg.Log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			stopProfile, err := startCPUProfile(profile)
			if err != nil {
				return err
			}
			err = errors.Join(localaws.Run(cmd.Context(), cfg, listen, cmd.OutOrStdout()), stopProfile())
			var lerr *localaws.ListenError
			if errors.As(err, &lerr) {
				return fmt.Errorf("--listen %s: %s", lerr.Address, lerr.Msg)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&cfg.DataDir, "data", "",
		"folder `DIR` for the state, the audit log and the admin credentials; created if missing (e.g. --data ./leash-data)")
	f.StringVar(&listen.Address, "listen", localaws.DefaultListen,
		"`ADDRESS` to listen on, host:port; port 0 picks a free one (e.g. --listen 127.0.0.1:0)")
	f.BoolVar(&listen.AllowRemote, "allow-remote", false,
		"allow a --listen address other hosts can reach; the endpoint has no TLS (e.g. --listen 0.0.0.0:4566 --allow-remote)")
	f.StringVar(&cfg.AccountID, "account-id", "",
		"12-digit account `ID` on first start (random if not given); later starts must give the same or none (e.g. --account-id 123456789012)")
	f.StringArrayVar(&cfg.OtherAccounts, "other-account", nil,
		"12-digit `ID` of a further account to hold, with its own state and administrator under DIR/accounts/ID, for cross-account tests such as sts:AssumeRole of its roles; repeat for several (e.g. --other-account 111122223333)")
	f.Float64Var(&cfg.Faults.ThrottleRate, "throttle-rate", 0,
		"`FRACTION` of requests answered with Throttling, from 0 to 1 (e.g. --throttle-rate 0.05)")
	f.Float64Var(&cfg.Faults.ErrorRate, "error-rate", 0,
		"`FRACTION` of requests answered with a 500 ServiceFailure, from 0 to 1 (e.g. --error-rate 0.01)")
	f.DurationVar(&cfg.Faults.Latency, "latency", 0,
		"`DURATION` added to every request (e.g. --latency 50ms)")
	f.DurationVar(&cfg.Faults.PropagationDelay, "propagation-delay", 0,
		"`DURATION` before a new access key or a policy change takes effect, as IAM's eventual consistency (e.g. --propagation-delay 5s)")
	f.DurationVar(&cfg.ClockOffset, "clock-offset", 0,
		"`DURATION` added to the machine's time for everything the endpoint does with time except SigV4's 15-minute window, for tests; negative allowed, at most ±10 years (e.g. --clock-offset 48h)")
	f.DurationVar(&cfg.Timeouts.Read, "read-timeout", localaws.DefaultReadTimeout,
		"`DURATION` to read a whole request, headers and body; a body still unread then is answered RequestTimeout and its connection closed (e.g. --read-timeout 10s)")
	f.DurationVar(&cfg.Timeouts.Write, "write-timeout", localaws.DefaultWriteTimeout,
		"`DURATION` from the end of a request's headers to the end of its answer; must exceed --latency (e.g. --write-timeout 30s)")
	f.DurationVar(&cfg.Timeouts.Idle, "idle-timeout", localaws.DefaultIdleTimeout,
		"`DURATION` a kept-alive connection may wait for its next request before it is closed (e.g. --idle-timeout 30s)")
	f.StringArrayVar(&jwks, "oidc-jwks", nil,
		"`ISSUER=FILE`: read the signing keys of the OIDC issuer from FILE, a JSON Web Key Set, instead of fetching them, for an issuer leash local cannot reach such as a cluster's service-account issuer; repeat for several (e.g. --oidc-jwks https://kubernetes.default.svc=./jwks.json)")
	addCPUProfileFlag(cmd, &profile)
	return cmd
}

// parseJWKS reads the --oidc-jwks flags. A file that cannot be read now is
// refused now, rather than at the first AssumeRoleWithWebIdentity.
func parseJWKS(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	files := map[string]string{}
	for _, f := range flags {
		issuer, file, ok := strings.Cut(f, "=")
		if !ok || issuer == "" || file == "" {
			return nil, fmt.Errorf("--oidc-jwks %q: give ISSUER=FILE, such as https://kubernetes.default.svc=./jwks.json", f)
		}
		// A token's iss must be its provider's URL exactly, which IAM
		// keeps as https://HOST[/PATH] without a trailing slash: a file
		// given for any other form would never be read.
		if u, err := url.Parse(issuer); err != nil || u.Scheme != "https" || u.Host == "" || strings.HasSuffix(issuer, "/") ||
			strings.ContainsAny(issuer, "?#") || !strings.HasPrefix(issuer, "https://") {
			return nil, fmt.Errorf("--oidc-jwks %s: give ISSUER as the tokens' iss, the provider's https://HOST[/PATH] exactly, "+
				"without a trailing slash, query or fragment, such as https://kubernetes.default.svc=./jwks.json", issuer)
		}
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("--oidc-jwks %s: %v", issuer, err)
		}
		files[issuer] = file
	}
	return files, nil
}

// files lists the data folder's files for the help.
func files() string {
	var b strings.Builder
	for _, f := range []struct{ name, what string }{
		{localaws.StateFile, "users, roles, policies and keys (crash-safe)"},
		{audit.FileName, "one CloudTrail-shaped JSON line per request"},
		{localaws.AdminCredentialsFile, "the administrator's key, an AWS shared credentials file"},
		{"", "(profile default, mode 0600)"},
	} {
		fmt.Fprintf(&b, "  %-19s %s\n", f.name, f.what)
	}
	return b.String()
}

// checkLocalFlags names the flag of a bad value. The fault settings are
// checked one at a time by faults.Config.Validate, so that its bounds are
// the only ones.
func checkLocalFlags(cfg localaws.Config) error {
	if cfg.DataDir == "" {
		return errors.New("--data is required: the folder for the state, the audit log and the admin credentials (e.g. --data ./leash-data)")
	}
	if id := cfg.AccountID; id != "" && !policy.IsAccountID(id) {
		return fmt.Errorf("--account-id %q: must be 12 digits, such as 123456789012", id)
	}
	for _, id := range cfg.OtherAccounts {
		if !policy.IsAccountID(id) {
			return fmt.Errorf("--other-account %q: must be 12 digits, such as 111122223333", id)
		}
	}
	if err := localaws.CheckClockOffset(cfg.ClockOffset); err != nil {
		return fmt.Errorf("--clock-offset: %w", err)
	}
	one := []struct {
		flag string
		c    faults.Config
	}{
		{"--throttle-rate", faults.Config{ThrottleRate: cfg.Faults.ThrottleRate}},
		{"--error-rate", faults.Config{ErrorRate: cfg.Faults.ErrorRate}},
		{"--latency", faults.Config{Latency: cfg.Faults.Latency}},
		{"--propagation-delay", faults.Config{PropagationDelay: cfg.Faults.PropagationDelay}},
	}
	for _, o := range one {
		if err := o.c.Validate(); err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	if err := cfg.Faults.Validate(); err != nil {
		return fmt.Errorf("--throttle-rate and --error-rate: %w", err)
	}
	return checkTimeoutFlags(cfg)
}

// checkTimeoutFlags names the timeout flag of a bad value. A flag's zero
// would mean "the default" to localaws, not what its user typed, so it is
// refused here.
func checkTimeoutFlags(cfg localaws.Config) error {
	for _, f := range []struct {
		flag string
		d    time.Duration
	}{{"--read-timeout", cfg.Timeouts.Read}, {"--write-timeout", cfg.Timeouts.Write}, {"--idle-timeout", cfg.Timeouts.Idle}} {
		if f.d <= 0 {
			return fmt.Errorf("%s %v: must be positive, such as 30s", f.flag, f.d)
		}
	}
	if err := cfg.Timeouts.Validate(cfg.Faults.Latency); err != nil {
		return fmt.Errorf("--write-timeout and --latency: %w", err)
	}
	return nil
}
