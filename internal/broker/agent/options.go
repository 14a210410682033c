package agent

import (
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/inputerr"
)

// DefaultListen is where the agent listens: broker.AgentURL's address
// (a test keeps the two in step).
const DefaultListen = "127.0.0.1:9911"

// DefaultTimeout bounds each call to the broker. The AWS SDKs give the
// container credentials provider a few seconds in all; an agent that waited
// longer would answer a caller that had gone.
const DefaultTimeout = 5 * time.Second

// Options configure the agent.
type Options struct {
	// Listen is the loopback address it serves on (DefaultListen).
	Listen string
	// Upstream is the broker Service's base URL: https, no path.
	Upstream string
	// CA is the PEM of the certificate authority that signs the broker's
	// serving certificate. It is the only one the agent trusts for the
	// broker, never the system roots beside it: a public CA will sign a
	// certificate for any name, and the agent hands the broker the pod's
	// token.
	CA []byte
	// Timeout bounds each call to the broker (DefaultTimeout when zero).
	Timeout time.Duration
}

// CAFromBase64 decodes --upstream-ca: the CA's PEM in standard base64,
// so that it fits a single argument of a container.
func CAFromBase64(s string) ([]byte, error) {
	pem, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, &inputerr.Error{Source: "--upstream-ca", Msg: "is not base64: give the CA certificate's PEM in standard base64 (base64 -w0 ca.crt), or its file with --upstream-ca-file"}
	}
	return pem, nil
}

// settings are Options checked and parsed.
type settings struct {
	listen   string
	upstream *url.URL
	roots    *x509.CertPool
	timeout  time.Duration
}

// check refuses Options the agent must not run with, naming the flag and
// the fix: a listen address off loopback (the pod's token would be taken
// in clear text from the network), an upstream that is not https (it would
// be sent so), and no CA.
func (o Options) check() (settings, error) {
	s := settings{listen: o.Listen, timeout: o.Timeout}
	if s.listen == "" {
		s.listen = DefaultListen
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	host, _, err := net.SplitHostPort(s.listen)
	if err != nil {
		return s, &inputerr.Error{Source: "--listen", Msg: fmt.Sprintf("%q is not HOST:PORT; give a loopback address such as %s", s.listen, DefaultListen)}
	}
	if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() {
		return s, &inputerr.Error{Source: "--listen", Msg: fmt.Sprintf("%q is not a loopback address: the agent takes the pod's token in clear text, so it listens only on loopback; give %s or [::1]:PORT", s.listen, DefaultListen)}
	}
	u, err := url.Parse(o.Upstream)
	switch {
	case o.Upstream == "":
		return s, &inputerr.Error{Source: "--upstream", Msg: "is required: give the broker Service's https URL, such as https://leash-broker.leash-system.svc:8443"}
	case err != nil || u.Host == "":
		return s, &inputerr.Error{Source: "--upstream", Msg: fmt.Sprintf("%q is not a URL; give the broker Service's https URL, such as https://leash-broker.leash-system.svc:8443", o.Upstream)}
	case u.Scheme != "https":
		return s, &inputerr.Error{Source: "--upstream", Msg: fmt.Sprintf("%q is not https: the agent forwards the pod's token, which must cross the network only inside TLS; give the broker's https URL", o.Upstream)}
	case u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return s, &inputerr.Error{Source: "--upstream", Msg: fmt.Sprintf("%q has a path, query or user: give the broker Service's base URL only (the agent calls %s on it)", o.Upstream, broker.CredentialsPath)}
	}
	s.upstream = u.JoinPath(broker.CredentialsPath)
	if len(o.CA) == 0 {
		return s, &inputerr.Error{Source: "--upstream-ca-file", Msg: "is required: give the CA that signs the broker's certificate (--upstream-ca-file FILE, or --upstream-ca with its PEM in base64); the agent trusts no other"}
	}
	s.roots = x509.NewCertPool()
	if !s.roots.AppendCertsFromPEM(o.CA) {
		return s, &inputerr.Error{Source: "--upstream-ca-file", Msg: "holds no PEM certificate: give the CA certificate (-----BEGIN CERTIFICATE-----) that signs the broker's certificate"}
	}
	return s, nil
}
