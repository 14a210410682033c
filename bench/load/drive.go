package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// driver sends the load of one concurrency level.
type driver struct {
	ep          *endpoint
	user        loadUser
	client      string
	concurrency int
	transport   *http.Transport
	hc          *http.Client
	sdk         *iam.Client
	signer      *v4.Signer
	creds       aws.Credentials
	forms       []signedForm
}

// signedForm is one action's body and the hash the signature covers.
type signedForm struct {
	name string
	body []byte
	hash string
}

func newDriver(ep *endpoint, user loadUser, client string, concurrency int, ops []string) *driver {
	tr := &http.Transport{MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency, DisableCompression: true}
	d := &driver{
		ep: ep, user: user, client: client, concurrency: concurrency, transport: tr,
		hc:     &http.Client{Transport: tr, Timeout: 30 * time.Second},
		signer: v4.NewSigner(),
		creds:  aws.Credentials{AccessKeyID: user.id, SecretAccessKey: user.secret},
	}
	d.sdk = iamClient(ep.url, user.id, user.secret, d.hc)
	// The forms are built once; only the signature changes from request
	// to request.
	for _, op := range ops {
		body := []byte(readOps[op].form(user.name))
		sum := sha256.Sum256(body)
		d.forms = append(d.forms, signedForm{name: op, body: body, hash: hex.EncodeToString(sum[:])})
	}
	return d
}

func (d *driver) close() { d.transport.CloseIdleConnections() }

// result is one level's measurements.
type result struct {
	concurrency int
	duration    time.Duration
	latencies   []time.Duration // sorted
	errors      int
	firstError  string
	mem         memory
	cpu         time.Duration // the server's process CPU time over the level; 0 when unknown
	loadCPU     time.Duration // this process's, when the server is another; 0 otherwise
}

// drive sends requests from d.concurrency goroutines for dur, each request
// the next action in turn, and returns what it measured.
func (d *driver) drive(ctx context.Context, dur time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var (
		mu  sync.Mutex
		all []time.Duration
		res = result{concurrency: d.concurrency}
		wg  sync.WaitGroup
	)
	start := time.Now()
	for w := range d.concurrency {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1<<14)
			var errs int
			var first string
			for i := w; ctx.Err() == nil; i++ {
				t0 := time.Now()
				err := d.send(ctx, &d.forms[i%len(d.forms)])
				if ctx.Err() != nil {
					break // a request cut off by the end of the level counts for nothing
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
				}
			}
			mu.Lock()
			all = append(all, lat...)
			res.errors += errs
			if res.firstError == "" {
				res.firstError = first
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	res.duration = time.Since(start)
	sortDurations(all)
	res.latencies = all
	return res
}

// send sends one request and returns an error for anything but a 200.
func (d *driver) send(ctx context.Context, f *signedForm) error {
	if d.client == "sdk" {
		return readOps[f.name].sdk(ctx, d.sdk, d.user.name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.ep.url+"/", bytes.NewReader(f.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if err := d.signer.SignHTTP(ctx, d.creds, req, f.hash, "iam", "us-east-1", time.Now()); err != nil {
		return err
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %.300s", f.name, resp.Status, body)
	}
	return nil
}
