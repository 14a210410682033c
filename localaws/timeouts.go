package localaws

import (
	"fmt"
	"net/http"
	"time"
)

// Timeouts bound what one connection may hold of the server, so that
// clients that open connections and stall (a body that never comes, a
// response never read, a kept-alive connection never used) are closed
// rather than kept for ever. A zero field takes its default.
type Timeouts struct {
	// Read bounds reading one request, headers and body, from its first
	// byte. A body still unread then is answered RequestTimeout.
	Read time.Duration
	// Write bounds the time from the end of a request's headers to the end
	// of its response: the request's work and the writing of its answer.
	// It must exceed the --latency fault, which every request waits out.
	Write time.Duration
	// Idle bounds how long a kept-alive connection waits for its next
	// request.
	Idle time.Duration
}

// The default timeouts: generous for a client on the same machine or
// network, short enough that stalled connections do not pile up.
const (
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	// maxHeaderWait bounds reading a request's headers when the read
	// timeout is longer.
	maxHeaderWait = 10 * time.Second
)

// withDefaults fills the zero fields.
func (t Timeouts) withDefaults() Timeouts {
	if t.Read == 0 {
		t.Read = DefaultReadTimeout
	}
	if t.Write == 0 {
		t.Write = DefaultWriteTimeout
	}
	if t.Idle == 0 {
		t.Idle = DefaultIdleTimeout
	}
	return t
}

// Validate refuses a negative timeout, and a write timeout no longer than
// latency, the delay the latency fault adds to every request: every
// response would then be cut off.
func (t Timeouts) Validate(latency time.Duration) error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"read", t.Read}, {"write", t.Write}, {"idle", t.Idle}} {
		if f.d < 0 {
			return fmt.Errorf("%s timeout %v: must be positive, such as 30s", f.name, f.d)
		}
	}
	if w := t.withDefaults().Write; w <= latency {
		return fmt.Errorf("write timeout %v is not longer than the latency %v every request waits: every response would be cut off; "+
			"give a write timeout longer than the latency", w, latency)
	}
	return nil
}

// apply sets the timeouts on hs.
func (t Timeouts) apply(hs *http.Server) {
	t = t.withDefaults()
	hs.ReadTimeout = t.Read
	hs.ReadHeaderTimeout = min(t.Read, maxHeaderWait)
	hs.WriteTimeout = t.Write
	hs.IdleTimeout = t.Idle
}
