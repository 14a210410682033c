package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go/middleware"

	"leash.dev/leash/localaws/audit"
)

// acked collects the request IDs of the answers clients received.
type acked struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (a *acked) add(id string) {
	if id == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ids[id] = true
}

// requestID is the request ID of an SDK call's answer, success or error;
// "" when no answer came (the process was killed).
func requestID(meta middleware.Metadata, err error) string {
	if err == nil {
		id, _ := awsmiddleware.GetRequestIDMetadata(meta)
		return id
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.ServiceRequestID()
	}
	return ""
}

// TestAuditLogSurvivesKill9UnderLoad kills leash local with SIGKILL at a
// random moment under write load, three times, restarting on the same
// folder each time, and then reads the audit log: no line is bad, every
// request a client got an answer to is in it, and the only other lines are
// requests that were in flight at a kill (at most one per worker per kill),
// the start-up probes, and the log's own repairs.
func TestAuditLogSurvivesKill9UnderLoad(t *testing.T) {
	const (
		kills   = 3
		signers = 3 // CreateUser then TagUser, signed by the administrator
		anons   = 3 // unsigned requests, refused
		workers = signers + anons
	)
	dir := t.TempDir()
	got := &acked{ids: map[string]bool{}}
	var signed, refused int
	var countMu sync.Mutex
	for round := 0; round < kills; round++ {
		p := startLocal(t, dir)
		id, secret := p.adminKey(t)
		client := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := 0; w < signers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ctx.Err() == nil; n++ {
					name := fmt.Sprintf("u-%d-%d-%d", round, w, n)
					out, err := client.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)})
					var meta middleware.Metadata
					if out != nil {
						meta = out.ResultMetadata
					}
					if rid := requestID(meta, err); rid != "" {
						got.add(rid)
						countMu.Lock()
						signed++
						countMu.Unlock()
					}
					if err != nil {
						continue
					}
					tagged, err := client.TagUser(ctx, &iam.TagUserInput{UserName: aws.String(name), Tags: []iamtypes.Tag{{Key: aws.String("n"), Value: aws.String(fmt.Sprint(n))}}})
					meta = middleware.Metadata{}
					if tagged != nil {
						meta = tagged.ResultMetadata
					}
					if rid := requestID(meta, err); rid != "" {
						got.add(rid)
						countMu.Lock()
						signed++
						countMu.Unlock()
					}
				}
			}()
		}
		for w := 0; w < anons; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.url, strings.NewReader("Action=CreateUser&Version=2010-05-08&UserName=intruder"))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						continue
					}
					_, rerr := io.ReadAll(resp.Body)
					_ = resp.Body.Close()
					if rerr == nil && resp.StatusCode == http.StatusForbidden {
						got.add(resp.Header.Get("X-Amzn-RequestId"))
						countMu.Lock()
						refused++
						countMu.Unlock()
					}
				}
			}()
		}
		time.Sleep(time.Duration(200+rand.IntN(800)) * time.Millisecond)
		if code := p.stop(t, syscall.SIGKILL); code != -1 {
			t.Fatalf("exit status %d after SIGKILL, want death by signal", code)
		}
		cancel()
		wg.Wait()
	}
	// The last start repairs what the last kill left, and stops cleanly.
	last := startLocal(t, dir)
	if code := last.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0\nstderr:\n%s", code, last.stderr)
	}

	f, err := os.Open(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	seen := map[string]bool{}
	var events, probes, repairs, inFlight int
	bad, err := audit.Read(f, audit.Filter{}, func(e *audit.Event) error {
		events++
		seen[e.RequestID] = true
		switch {
		case got.ids[e.RequestID]:
		case e.EventSource == "leash.local" && e.EventName == "AuditLogRepaired":
			repairs++
		case e.EventName == "":
			probes++ // startLocal's unsigned GET, answered before the workers start
		default:
			inFlight++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("bad lines in the audit log: %v", bad)
	}
	missing := 0
	for id := range got.ids {
		if !seen[id] {
			missing++
		}
	}
	t.Logf("%d answered requests (%d signed writes, %d refused unsigned), %d events in the log: %d answered, %d in flight at a kill, %d start-up probes, %d repairs; %d answered requests missing",
		len(got.ids), signed, refused, events, events-inFlight-probes-repairs, inFlight, probes, repairs, missing)
	if missing > 0 {
		t.Errorf("%d answered requests are not in the audit log", missing)
	}
	if inFlight > workers*kills {
		t.Errorf("%d unanswered requests in the log, want at most one per worker per kill (%d)", inFlight, workers*kills)
	}
	if signed == 0 || refused == 0 {
		t.Errorf("the load did not run: %d signed, %d refused answers", signed, refused)
	}
	if probes > kills+1 {
		t.Errorf("%d events without an action, want at most the %d start-up probes", probes, kills+1)
	}
}
