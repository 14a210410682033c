package whocan

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel runs job(0) to job(n-1) on every core and returns the error of
// the lowest-numbered job that failed, so that the error reported does not
// depend on scheduling.
func parallel(n int, job func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = job(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
