package operator

import (
	"net/http"
	"sync"
)

// callWatcher runs a check after each call to the endpoint, once the
// endpoint has answered it, so that a case can see the state between any
// two calls of a sync. The check must use its own HTTP client.
type callWatcher struct {
	base  http.RoundTripper
	mu    sync.Mutex
	check func()
}

func (w *callWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(req)
	w.mu.Lock()
	check := w.check
	w.mu.Unlock()
	if check != nil {
		check()
	}
	return resp, err
}

// set makes check run after every call from now on; nil stops it.
func (w *callWatcher) set(check func()) {
	w.mu.Lock()
	w.check = check
	w.mu.Unlock()
}
