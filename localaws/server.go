// Package localaws is leash local: an IAM- and STS-compatible endpoint on
// loopback that the AWS SDKs and the AWS CLI talk to unchanged. It checks
// every request's SigV4 signature, authorizes it with leash's policy engine
// exactly as AWS would, keeps its state in a crash-safe store, and records
// every request in a CloudTrail-shaped audit log.
package localaws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/localaws/internal/authz"
	"leash.dev/leash/localaws/internal/store"
)

// Files in the data folder.
const (
	StateFile            = "state.db"
	AdminCredentialsFile = "admin-credentials"
)

// Config configures a server. Only DataDir is required.
type Config struct {
	// DataDir holds the state, the audit log and the administrator's
	// credentials file.
	DataDir string
	// AccountID is the account's 12-digit ID; empty picks one on first start.
	AccountID string
	// OtherAccounts are the IDs of further accounts the server holds, each
	// with its own state and administrator (AccountsDir): a request acts in
	// the account that issued its key, and sts:AssumeRole reaches a role of
	// another account under AWS's cross-account rules.
	OtherAccounts []string
	// Faults are off unless set.
	Faults faults.Config
	// Now is the machine's clock; nil means time.Now.
	Now func() time.Time
	// ClockOffset moves the endpoint's clock from the machine's, for tests
	// that need time to pass (a session to expire, a deny to become
	// liftable) without waiting. The endpoint then lives at Now() +
	// ClockOffset for everything but SigV4's fifteen-minute window (see
	// clocks). At most ±MaxClockOffset; a negative offset may not put the
	// endpoint before its account was created.
	ClockOffset time.Duration
	// Log receives operational messages (never a secret); nil discards them.
	Log *slog.Logger
	// HTTPClient fetches OIDC providers' keys for AssumeRoleWithWebIdentity;
	// nil means http.DefaultClient.
	HTTPClient *http.Client
	// JWKSFiles maps an OIDC issuer URL to a file holding its JSON Web Key
	// Set, read instead of fetching the issuer's keys: for an issuer leash
	// local cannot reach, such as a cluster's service-account issuer.
	JWKSFiles map[string]string
	// Timeouts bound each connection's reads, writes and idle waits; zero
	// fields take the defaults.
	Timeouts Timeouts
	// AfterCall, when set, is called once a request's work is done (or
	// refused) and before its response is sent, with the action and the
	// error code ("" for success): tests use it to stop a client at an
	// exact point, such as between two IAM calls.
	AfterCall func(action, errorCode string)
}

// Server is an open endpoint: its store, audit log and operations.
type Server struct {
	cfg Config
	// machineNow is the machine's clock, for SigV4; cfg.Now is the
	// endpoint's (see clocks).
	machineNow func() time.Time
	store      *store.Store
	// others are the other accounts' states, by account ID.
	others map[string]*store.Store
	audit  *audit.Log
	faults *faults.Injector
	cache  *authz.Cache
	// propagation delays policy changes; nil when no delay is configured.
	propagation *propagation
	ops         map[string]map[string]operation // service → action → operation
}

// Open opens (or creates) the data folder and its state, and on first start
// creates the administrator and writes its credentials file.
func Open(cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("data folder: give one with --data DIR")
	}
	if err := CheckClockOffset(cfg.ClockOffset); err != nil {
		return nil, err
	}
	clk := newClocks(cfg.Now, cfg.ClockOffset)
	cfg.Now = clk.endpoint
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	inj, err := faults.New(cfg.Faults)
	if err != nil {
		return nil, err
	}
	if err := cfg.Timeouts.Validate(cfg.Faults.Latency); err != nil {
		return nil, err
	}
	if err := checkDataFolder(&cfg); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder %s: %w", cfg.DataDir, err)
	}
	st, err := store.Open(filepath.Join(cfg.DataDir, StateFile), store.Options{
		AccountID:           cfg.AccountID,
		KeyPropagationDelay: cfg.Faults.PropagationDelay,
		Now:                 cfg.Now,
	})
	if err != nil {
		return nil, err
	}
	// Only a negative offset is held to this: a machine clock set back
	// since the account was created is the machine's business.
	if now, created := cfg.Now(), st.Account().CreateDate; cfg.ClockOffset < 0 && now.Before(created) {
		_ = st.Close()
		return nil, fmt.Errorf("clock offset %v puts the endpoint at %s, before its account was created (%s): "+
			"everything in %s would lie in its future; give a later offset, or a new data folder",
			cfg.ClockOffset, now.UTC().Format(time.RFC3339), created.Format(time.RFC3339), cfg.DataDir)
	}
	log, err := audit.Open(filepath.Join(cfg.DataDir, audit.FileName))
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, machineNow: clk.machine, store: st, audit: log, faults: inj, cache: authz.NewCache(4096)}
	s.ops = map[string]map[string]operation{"iam": iamOperations(), "sts": stsOperations()}
	if d := cfg.Faults.PropagationDelay; d > 0 {
		s.propagation = newPropagation(d)
	}
	s.recordRepair(log.Repaired())
	if err := bootstrapAdmin(context.Background(), st, s.AdminCredentialsPath()); err != nil {
		_ = s.Close()
		return nil, err
	}
	if err := s.openOtherAccounts(context.Background()); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// AccountID is the account the server holds.
func (s *Server) AccountID() string { return s.store.Account().ID }

// Close closes the audit log and the store.
func (s *Server) Close() error {
	return errors.Join(s.audit.Close(), s.store.Close(), s.closeOtherAccounts())
}

// Serve answers requests on ln until ctx is done, then shuts down
// gracefully: requests under way finish (for up to 10 seconds).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:  s,
		ErrorLog: slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	s.cfg.Timeouts.apply(hs)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shutdown)
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
