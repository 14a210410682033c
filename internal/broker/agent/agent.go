// Package agent is the credential broker's agent in each pod: a server on
// loopback that the pod's AWS SDKs call as their container credentials
// endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI), and that forwards each
// call to the broker over TLS. The SDKs send plain HTTP only to loopback
// and to the container link-local addresses, and HTTPS elsewhere only to a
// certificate of the system roots; the agent lets a pod reach an in-cluster
// broker with neither, and keeps the pod's token off the network in clear
// text. It caches nothing: the broker does.
package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"leash.dev/leash/internal/broker"
)

// HealthPath answers 200 while the agent serves.
const HealthPath = "/healthz"

// Agent forwards credentials calls to the broker.
type Agent struct {
	s      settings
	client *http.Client
	log    *slog.Logger
}

// New checks o and returns the agent; log receives its failures (never a
// token or an answer's body).
func New(o Options, log *slog.Logger) (*Agent, error) {
	s, err := o.check()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &http.Transport{
		Proxy:               nil, // the broker is in the cluster; a proxy would see the token
		TLSClientConfig:     &tls.Config{RootCAs: s.roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: s.timeout,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &Agent{s: s, client: &http.Client{Transport: t, CheckRedirect: noRedirect}, log: log}, nil
}

// noRedirect keeps the token with the broker: a redirect would carry the
// Authorization header elsewhere.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Run serves the agent on its listen address until ctx ends.
func Run(ctx context.Context, o Options, log *slog.Logger) error {
	a, err := New(o, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.s.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.s.listen, err)
	}
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	a.log.Info("broker agent serving", "listen", ln.Addr().String(), "upstream", a.s.upstream.String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ServeHTTP answers GET broker.CredentialsPath from the broker, and
// HealthPath.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case HealthPath:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	case broker.CredentialsPath:
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			failure(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "only GET is served on "+broker.CredentialsPath)
			return
		}
		a.forward(w, r)
	default:
		failure(w, http.StatusNotFound, "NotFound", "the agent serves GET "+broker.CredentialsPath+" and "+HealthPath)
	}
}

// forward calls the broker with the caller's Authorization and streams its
// answer back: status, Content-Type and body as the broker gave them. A
// call that fails to connect (the Service's endpoint was a replica that is
// gone) is tried once more, and the Service picks another endpoint.
func (a *Agent) forward(w http.ResponseWriter, r *http.Request) {
	resp, cancel, err := a.call(r)
	if err == nil {
		err = a.stream(w, resp)
		_ = resp.Body.Close()
		cancel()
		if err != nil {
			a.log.Error("broker answer cut short", "error", err)
		}
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		a.log.Error("broker did not answer in time", "timeout", a.s.timeout)
		failure(w, http.StatusServiceUnavailable, "BrokerTimeout", fmt.Sprintf("the credential broker did not answer within %s", a.s.timeout))
		return
	}
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &cert) || errors.As(err, &unknown) {
		a.log.Error("broker certificate refused", "error", err)
		failure(w, http.StatusBadGateway, "BrokerUntrusted", "the credential broker's certificate is not signed by the agent's --upstream-ca, or not for its name; check the agent's --upstream and --upstream-ca")
		return
	}
	a.log.Error("broker unreachable", "error", err)
	failure(w, http.StatusBadGateway, "BrokerUnreachable", "the credential broker could not be reached; check that its Service has ready endpoints")
}

// call sends the broker the request, once more after an error of the
// connection; cancel ends the call once its body is read.
func (a *Agent) call(r *http.Request) (*http.Response, context.CancelFunc, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		ctx, cancel := context.WithTimeout(r.Context(), a.s.timeout)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.s.upstream.String(), nil)
		if v := r.Header.Get("Authorization"); v != "" {
			req.Header.Set("Authorization", v)
		}
		req.Header.Set("Accept", "application/json")
		var resp *http.Response
		resp, err = a.client.Do(req)
		if err == nil {
			return resp, cancel, nil
		}
		cancel()
		if !retryable(err) || r.Context().Err() != nil {
			break
		}
	}
	return nil, nil, err
}

// retryable says whether err is a connection's failure that another
// replica may not have: not a timeout (the time is spent) and not a
// certificate the agent refuses (every replica serves the same).
func retryable(err error) bool {
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	return !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) &&
		!errors.As(err, &cert) && !errors.As(err, &unknown) && !errors.As(err, &hostname)
}

// stream copies the broker's answer to w.
func (a *Agent) stream(w http.ResponseWriter, resp *http.Response) error {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.StatusCode)
	_, err := io.Copy(w, resp.Body)
	return err
}

// failure answers the agent's own error, in the shape of the container
// credentials protocol's errors, which the SDKs print.
func failure(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, message})
}
