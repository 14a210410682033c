package localaws_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// loopbackAt serves dir with the clock offset until the test ends or stop
// is called.
func loopbackAt(t *testing.T, dir string, offset time.Duration) (l *localaws.Loopback, stop func()) {
	t.Helper()
	l, err := localaws.StartLoopback(localaws.Config{DataDir: dir, AccountID: account, ClockOffset: offset})
	if err != nil {
		t.Fatalf("start with clock offset %v: %v", offset, err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			if err := l.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return l, stop
}

func adminOf(t *testing.T, l *localaws.Loopback) aws.CredentialsProvider {
	t.Helper()
	key, err := iamclient.KeyFromFile(l.AdminCredentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	return credentials.NewStaticCredentialsProvider(key.ID, key.Secret.Reveal(), "")
}

func stsAt(url string, p aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), Credentials: p, Retryer: localtest.Retryer()})
}

func iamAt(url string, p aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(url), Credentials: p, Retryer: localtest.Retryer()})
}

// near fails unless got is within a few seconds of want.
func near(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if d := got.Sub(want); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("%s = %s, want about %s (off by %v)", what, got.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339), d)
	}
}

func TestClockOffsetBounds(t *testing.T) {
	tests := []struct {
		name    string
		offset  time.Duration
		wantErr string
	}{
		{"no offset", 0, ""},
		{"two days ahead", 48 * time.Hour, ""},
		{"two hours behind, on a new data folder", -2 * time.Hour, ""},
		{"ten years ahead is the limit", localaws.MaxClockOffset, ""},
		{"ten years behind is the limit", -localaws.MaxClockOffset, ""},
		{"beyond ten years ahead is refused", localaws.MaxClockOffset + time.Second, "beyond ±10 years"},
		{"beyond ten years behind is refused", -localaws.MaxClockOffset - time.Second, "beyond ±10 years"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			l, err := localaws.StartLoopback(localaws.Config{DataDir: dir, ClockOffset: tt.offset})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("StartLoopback: %v", err)
				}
				if err := l.Stop(); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				_ = l.Stop()
				t.Fatalf("StartLoopback: no error, want %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("StartLoopback: %v, want %q", err, tt.wantErr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("a refused offset left the data folder behind (%v)", err)
			}
		})
	}
}

// TestClockOffsetEndsSessionsAcrossRestart pins that a restart on the same
// data folder with an offset past a session's expiry ends it, while
// long-term keys (signed with the machine's time) keep working; and that
// an offset putting the endpoint before its account existed is refused.
func TestClockOffsetEndsSessionsAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, stop := loopbackAt(t, dir, 0)
	admin := adminOf(t, l)
	out, err := stsAt(l.URL, admin).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatalf("GetSessionToken: %v", err)
	}
	temp := session(out.Credentials)
	if _, err := stsAt(l.URL, temp).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatalf("the session at offset 0: %v", err)
	}
	stop()

	l, stop = loopbackAt(t, dir, 16*time.Minute)
	_, err = stsAt(l.URL, temp).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantError(t, "the 15-minute session 16 minutes later", err, "ExpiredToken", "expired")
	if _, err := iamAt(l.URL, admin).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("the administrator's key 16 minutes later: %v", err)
	}
	stop()

	_, err = localaws.StartLoopback(localaws.Config{DataDir: dir, ClockOffset: -time.Hour})
	if err == nil || !strings.Contains(err.Error(), "before its account was created") {
		t.Errorf("an offset before the account was created: %v, want a refusal", err)
	}
}

// TestClockOffsetMovesTheEndpointsTime pins that the endpoint lives at the
// machine's time plus the offset for everything but SigV4: the Date header,
// the audit log's eventTime, a session's expiration, aws:CurrentTime and
// aws:TokenIssueTime.
func TestClockOffsetMovesTheEndpointsTime(t *testing.T) {
	ctx := context.Background()
	const offset = 48 * time.Hour
	dir := t.TempDir()
	l, stop := loopbackAt(t, dir, offset)
	admin := adminOf(t, l)
	moved := time.Now().Add(offset)

	resp, err := http.Get(l.URL + "/?Action=ListUsers&Version=2010-05-08")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		t.Fatalf("Date header %q: %v", resp.Header.Get("Date"), err)
	}
	near(t, "the Date header", date, moved)

	// The SDK signs with the machine's time: SigV4 accepts it.
	a := iamAt(l.URL, admin)
	if _, err := a.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("timed")}); err != nil {
		t.Fatalf("a signed request at offset %v: %v", offset, err)
	}
	// The SDK has now seen the Date header and corrects its signing clock
	// by it: what follows is signed with the endpoint's time, which SigV4
	// accepts too.
	midway := time.Now().Add(offset / 2).UTC().Format(time.RFC3339)
	trust := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:root"},"Action":"sts:AssumeRole"}}`
	if _, err := a.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("timed"), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
		t.Fatal(err)
	}
	rolePolicy := `{"Version":"2012-10-17","Statement":[` +
		`{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*","Condition":{"DateGreaterThan":{"aws:CurrentTime":"` + midway + `"}}},` +
		`{"Effect":"Allow","Action":"iam:ListRoles","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"` + midway + `"}}},` +
		`{"Effect":"Allow","Action":"iam:GetRole","Resource":"*","Condition":{"DateGreaterThan":{"aws:TokenIssueTime":"` + midway + `"}}}]}`
	if _, err := a.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("timed"), PolicyName: aws.String("p"), PolicyDocument: aws.String(rolePolicy)}); err != nil {
		t.Fatal(err)
	}
	assumed, err := stsAt(l.URL, admin).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/timed"), RoleSessionName: aws.String("s1")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	near(t, "the session's expiration", *assumed.Credentials.Expiration, moved.Add(time.Hour))
	r := iamAt(l.URL, session(assumed.Credentials))
	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"aws:CurrentTime is after a time between the machine's and the endpoint's", func() error {
			_, err := r.ListUsers(ctx, &iam.ListUsersInput{})
			return err
		}, ""},
		{"aws:CurrentTime is not before it", func() error {
			_, err := r.ListRoles(ctx, &iam.ListRolesInput{})
			return err
		}, "AccessDenied"},
		{"aws:TokenIssueTime is the endpoint's time of issue", func() error {
			_, err := r.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("timed")})
			return err
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := apiCode(tt.call()); got != tt.code {
				t.Errorf("error code %q, want %q", got, tt.code)
			}
		})
	}

	stop()
	f, err := os.Open(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var created *audit.Event
	if _, err := audit.Read(f, audit.Filter{}, func(e *audit.Event) error {
		if e.EventName == "CreateUser" {
			created = e
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if created == nil {
		t.Fatal("no CreateUser in the audit log")
	}
	near(t, "the audit log's eventTime", created.EventTime, moved)
}
