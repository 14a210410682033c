package e2e

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// TestClockOffsetFlag runs `leash local --clock-offset 48h` and checks the
// flag reaches the endpoint: the Date header and a new session's expiration
// are two days ahead, while the SDK's requests, signed with the machine's
// time, are accepted.
func TestClockOffsetFlag(t *testing.T) {
	p := startLocal(t, t.TempDir(), "--clock-offset", "48h")
	ahead := time.Now().Add(48 * time.Hour)
	resp, err := http.Get(p.url)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		t.Fatalf("Date header %q: %v", resp.Header.Get("Date"), err)
	}
	if d := date.Sub(ahead); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("Date header %s, want about %s", date, ahead.UTC())
	}
	out, err := p.sts(p.adminKey(t)).GetSessionToken(context.Background(), &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatalf("GetSessionToken signed with the machine's time: %v", err)
	}
	if d := out.Credentials.Expiration.Sub(ahead.Add(15 * time.Minute)); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("session expires %s, want about %s", out.Credentials.Expiration, ahead.Add(15*time.Minute).UTC())
	}
	if code := p.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
}
