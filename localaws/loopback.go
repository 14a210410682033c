package localaws

import (
	"context"
	"errors"
	"net"
)

// Loopback is a server answering on a free loopback port in this process,
// for programs that embed leash local (leash apply, tests, benchmarks).
type Loopback struct {
	*Server
	// URL is the endpoint, such as http://127.0.0.1:43127.
	URL    string
	cancel context.CancelFunc
	served chan error
}

// StartLoopback opens cfg's data folder and serves it on 127.0.0.1 on a
// port the system picks, until Stop.
func StartLoopback(cfg Config) (*Loopback, error) {
	srv, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, srv.Close())
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Loopback{Server: srv, URL: "http://" + ln.Addr().String(), cancel: cancel, served: make(chan error, 1)}
	go func() { l.served <- srv.Serve(ctx, ln) }()
	return l, nil
}

// Stop shuts the server down, waiting for requests in flight, and closes
// its store and audit log.
func (l *Loopback) Stop() error {
	l.cancel()
	return errors.Join(<-l.served, l.Close()) // the Server's Close: its store and audit log
}
