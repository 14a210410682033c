package broker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Listen says where and how the broker serves.
type Listen struct {
	// Addr is HOST:PORT, such as :8443.
	Addr string
	// CertFile and KeyFile are the TLS certificate and key, read again
	// when they change (cert-manager renews them in place). Both empty
	// serves plain HTTP, on a loopback address only.
	CertFile, KeyFile string
}

// Check refuses plain HTTP except on a loopback address: a pod's session
// keys cross the network in the answer, and its token in the request.
func (l Listen) Check() error {
	host, _, err := net.SplitHostPort(l.Addr)
	if err != nil {
		return fmt.Errorf("--listen %q is not HOST:PORT: give one such as :8443 or 127.0.0.1:8443", l.Addr)
	}
	if (l.CertFile == "") != (l.KeyFile == "") {
		return errors.New("give both --tls-cert-file and --tls-key-file, or neither (plain HTTP on a loopback address)")
	}
	if l.CertFile != "" {
		return nil
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--listen %s would serve credentials over plain HTTP beyond this machine: give --tls-cert-file and --tls-key-file, or listen on a loopback address such as 127.0.0.1:8443", l.Addr)
	}
	return nil
}

// Serve serves h on l until ctx ends, then shuts down, waiting a little for
// answers in flight.
func Serve(ctx context.Context, l Listen, h http.Handler) error {
	if err := l.Check(); err != nil {
		return err
	}
	srv := &http.Server{Addr: l.Addr, Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", l.Addr, err)
	}
	if l.CertFile != "" {
		w, err := certwatcher.New(l.CertFile, l.KeyFile)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("--tls-cert-file %s, --tls-key-file %s: %w", l.CertFile, l.KeyFile, err)
		}
		go func() { _ = w.Start(ctx) }()
		ln = tls.NewListener(ln, &tls.Config{GetCertificate: w.GetCertificate, MinVersion: tls.VersionTLS12})
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
