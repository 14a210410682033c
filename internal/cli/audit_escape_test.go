package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// forgedRow is a name that, printed raw, ends its row, starts a row of its
// own saying admin deleted alice, and conceals the rest of the line (SGR 8).
// IAM's names cannot hold it (RoleName is [\w+=,.@-]+,
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html),
// but a trail's records come from whoever wrote the file, and a web
// identity's subject and a user agent are the caller's own words.
const forgedRow = "x\nadmin\tiam:DeleteUser alice Allowed\x1b[8m"

// TestAuditTableShowsInjectedControlsEscaped pins that a record's strings
// cannot forge or hide a row of leash audit's table, from leash local's log
// and from CloudTrail files alike, while --output json stays the records.
func TestAuditTableShowsInjectedControlsEscaped(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	events := []audit.Event{
		{EventTime: t0, EventSource: "iam.amazonaws.com", EventName: "GetRole", RequestID: "r1", EventID: "e1",
			UserIdentity:    audit.Identity{Type: "AssumedRole", ARN: "arn:aws:sts::111122223333:assumed-role/" + forgedRow + "/run-1", AccountID: "111122223333"},
			SourceIPAddress: "192.0.2.10", UserAgent: "aws-cli/2.17.20", AdditionalEventData: &audit.AdditionalData{AuthorizedResource: "arn:aws:iam::111122223333:role/" + forgedRow, Decision: "Allowed"}},
		{EventTime: t0.Add(time.Minute), EventSource: "sts.amazonaws.com", EventName: "AssumeRoleWithWebIdentity", RequestID: "r2", EventID: "e2",
			UserIdentity:    audit.Identity{Type: "WebIdentityUser", UserName: "system:serviceaccount:ci:deploy\r\n" + forgedRow, IdentityProvider: "https://oidc.example.com/\u202egpj.exe"},
			SourceIPAddress: "192.0.2.11", ErrorCode: "AccessDenied\x1b[0m", AdditionalEventData: &audit.AdditionalData{Decision: "ImplicitDeny"}},
		{EventTime: t0.Add(2 * time.Minute), EventSource: "iam.amazonaws.com", EventName: "ListUsers", RequestID: "r3", EventID: "e3",
			UserIdentity:    audit.Identity{Type: "IAMUser", ARN: "arn:aws:iam::111122223333:user/alice"},
			SourceIPAddress: "192.0.2.12", UserAgent: "Boto3/1.34 \x1b]0;title\x07\n" + forgedRow + "\u2066\u200b", AdditionalEventData: &audit.AdditionalData{Decision: "Allowed"}},
		{EventTime: t0.Add(3 * time.Minute), EventSource: "iam.amazonaws.com", EventName: "GetUser", RequestID: "r4", EventID: "e4",
			UserIdentity:    audit.Identity{Type: "IAMUser", ARN: "arn:aws:iam::111122223333:user/alice"},
			SourceIPAddress: "192.0.2.12", ErrorCode: "AccessDenied\x1b[8m\nleash audit: forged", AdditionalEventData: &audit.AdditionalData{Decision: "ImplicitDeny"}},
	}
	data := t.TempDir()
	l, err := audit.Open(filepath.Join(data, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := l.Append(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	trailDir := t.TempDir()
	file, err := json.Marshal(struct {
		Records []audit.Event `json:"Records"`
	}{events})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trailDir, "111122223333_CloudTrail_us-east-1_20261129T1200Z_forged.json"), file, 0o600); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for i := range events {
		line, err := json.Marshal(&events[i])
		if err != nil {
			t.Fatal(err)
		}
		want.Write(append(line, '\n'))
	}
	logged, err := os.ReadFile(filepath.Join(data, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(logged, want.Bytes()) {
		t.Fatalf("the audit log holds\n%s\nwant the records\n%s", logged, want.Bytes())
	}
	for _, src := range [][]string{{"--data", data}, {"--trail-dir", trailDir}} {
		t.Run(src[0]+" table: one row per record, controls escaped", func(t *testing.T) {
			out := runAuditOK(t, src...)
			rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(rows) != 1+len(events) {
				t.Fatalf("%d lines, want a header and %d rows:\n%s", len(rows), len(events), out)
			}
			for _, row := range rows {
				if i := strings.IndexFunc(row, func(r rune) bool { return r < 0x20 || r == '\u202e' || r == '\u2066' || r == '\u200b' }); i >= 0 {
					t.Errorf("row %q holds %U", row, []rune(row[i:])[0])
				}
			}
			escaped := `x\nadmin\tiam:DeleteUser alice Allowed\x1b[8m`
			for i, want := range [][]string{
				{"assumed-role/" + escaped + "/run-1", "role/" + escaped, "Allowed"},
				{`system:serviceaccount:ci:deploy\r\n` + escaped + ` @ https://oidc.example.com/\u202egpj.exe`, `AccessDenied\x1b[0m`, "ImplicitDeny"},
				{`Boto3/1.34 \x1b]0;title\x07\nx\nadmin\tiam:DeleteUser alice…`},
				{`AccessDenied\x1b[8m\nleash audit: forged`},
			} {
				for _, w := range want {
					if !strings.Contains(rows[1+i], w) {
						t.Errorf("row %d %q lacks %q", i+1, rows[1+i], w)
					}
				}
			}
		})
		t.Run(src[0]+" JSON: the records as they are", func(t *testing.T) {
			if out := runAuditOK(t, append(src, "--output", "json")...); out != want.String() {
				t.Errorf("JSON lines\n%s\nwant\n%s", out, want.String())
			}
		})
		t.Run(src[0]+" --policy: one note per line, controls escaped", func(t *testing.T) {
			var out, errOut bytes.Buffer
			if status := Run(context.Background(), append([]string{"audit", "--principal", "arn:aws:iam::111122223333:user/alice", "--policy"}, src...), nil, &out, &errOut); status != ExitOK {
				t.Fatalf("status %d, stderr %q", status, errOut.String())
			}
			want := `leash audit: observed but refused: iam:GetUser (AccessDenied\x1b[8m\nleash audit: forged): not granted` + "\n"
			if errOut.String() != want {
				t.Errorf("stderr %q, want %q", errOut.String(), want)
			}
		})
	}
	t.Run("a skipped file's name is escaped", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "torn\x1b[8m\nleash audit: forged.json"), []byte(`{"Records":[`), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if status := Run(context.Background(), []string{"audit", "--trail-dir", dir}, nil, &out, &errOut); status != ExitOK {
			t.Fatalf("status %d, stderr %q", status, errOut.String())
		}
		got := errOut.String()
		if strings.Count(got, "\n") != 1 || strings.ContainsRune(got, '\x1b') || !strings.Contains(got, `torn\x1b[8m\nleash audit: forged.json`) {
			t.Errorf("stderr %q: want one line naming the file escaped", got)
		}
	})
}

// TestAuditTableShowsARealUserAgentEscaped sends a call to leash local with
// the control and bidi characters HTTP lets through in a header (a tab, and
// any UTF-8: RFC 9110 section 5.5) and reads its log back as a table.
func TestAuditTableShowsARealUserAgentEscaped(t *testing.T) {
	data := t.TempDir()
	ep := localtest.Start(t, localaws.Config{DataDir: data})
	const ua = "aws-cli/2.17.20\tadmin\tiam:DeleteUser\u202eecilA\u202c"
	c := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(ep.URL), Credentials: ep.Admin.Provider(), Retryer: localtest.Retryer(),
		HTTPClient: userAgentSetter{ua}})
	if _, err := c.ListUsers(context.Background(), &iam.ListUsersInput{}); err != nil {
		t.Fatal(err)
	}
	out := runAuditOK(t, "--data", data)
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(rows) != 2 {
		t.Fatalf("%d lines, want a header and the call:\n%s", len(rows), out)
	}
	if strings.ContainsAny(rows[1], "\t\u202e\u202c") || !strings.Contains(rows[1], `aws-cli/2.17.20\tadmin\tiam:DeleteUser\u202eecilA\u202c`) {
		t.Errorf("row %q: want the user agent escaped", rows[1])
	}
}

// userAgentSetter sends each request with its User-Agent, which SigV4 does
// not sign.
type userAgentSetter struct{ ua string }

func (u userAgentSetter) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set("User-Agent", u.ua)
	return http.DefaultClient.Do(r)
}

func runAuditOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if status := Run(context.Background(), append([]string{"audit"}, args...), nil, &out, &errOut); status != ExitOK || errOut.Len() > 0 {
		t.Fatalf("leash audit %v: status %d, stderr %q", args, status, errOut.String())
	}
	return out.String()
}
