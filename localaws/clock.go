package localaws

import (
	"fmt"
	"net/http"
	"time"

	"leash.dev/leash/localaws/internal/sigv4"
)

// MaxClockOffset bounds Config.ClockOffset either way: ten years (of 365
// days) is far more than any session, key or policy condition a test needs
// to move past, and keeps the endpoint's times well inside what clients
// parse.
const MaxClockOffset = 10 * 365 * 24 * time.Hour

// CheckClockOffset refuses an offset beyond ±MaxClockOffset.
func CheckClockOffset(d time.Duration) error {
	if d > MaxClockOffset || d < -MaxClockOffset {
		return fmt.Errorf("clock offset %v is beyond ±10 years (±%v): give a smaller one, such as 48h or -2h", d, MaxClockOffset)
	}
	return nil
}

// clocks are the endpoint's two clocks. endpoint is the machine's time
// plus Config.ClockOffset, and everything the endpoint says or decides
// about time uses it: sessions' issue and expiry, keys' NotBefore,
// aws:CurrentTime and aws:TokenIssueTime, the audit log's eventTime and the
// HTTP Date header. machine is the time as given (Config.Now, or the
// machine's), used only for SigV4's fifteen-minute window: a client signs
// with its own clock and cannot know the offset, so checking the signing
// time against the moved clock would refuse every request. Clients that
// learn the endpoint's time from the Date header (the AWS SDKs correct
// their signing clock by it once it differs by minutes) sign with the
// endpoint's time instead, so verifySignature accepts either.
type clocks struct {
	machine  func() time.Time
	endpoint func() time.Time
}

func newClocks(now func() time.Time, offset time.Duration) clocks {
	if now == nil {
		now = time.Now
	}
	if offset == 0 {
		return clocks{machine: now, endpoint: now}
	}
	return clocks{machine: now, endpoint: func() time.Time { return now().Add(offset) }}
}

// verifySignature checks a request's signature (see verifyClocks) and that
// its credential scope names one of the partition's Regions.
func (s *Server) verifySignature(r *http.Request, body []byte, now time.Time) (*sigv4.Signed, *sigv4.Error) {
	signed, serr := s.verifyClocks(r, body, now)
	if serr != nil {
		return nil, serr
	}
	if serr := checkRegion(signed.Region); serr != nil {
		return nil, serr
	}
	return signed, nil
}

// verifyClocks checks a request's signature with its signing time
// within SigV4's window of the machine's time, or else of the endpoint's
// (now). When both fail, the answer is the machine's: what a client that
// knows nothing of the offset needs to hear.
func (s *Server) verifyClocks(r *http.Request, body []byte, now time.Time) (*sigv4.Signed, *sigv4.Error) {
	signed, serr := sigv4.Verify(r, body, s.machineNow(), s.lookupKey)
	if serr == nil || s.cfg.ClockOffset == 0 {
		return signed, serr
	}
	if moved, err := sigv4.Verify(r, body, now, s.lookupKey); err == nil {
		return moved, nil
	}
	return nil, serr
}
