package cloudtrail

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/audit"
)

const fixture = "../../examples/audit/trail" // the trail docs/audit.md reads

// ids reads the fixture through f and returns the selected records' event
// IDs by their last two digits (the fixture numbers them 01 to 17), sorted.
func ids(t *testing.T, src Source, f audit.Filter) []string {
	t.Helper()
	var got []string
	if err := Collect(context.Background(), src, f, func(e *audit.Event) error {
		got = append(got, e.EventID[len(e.EventID)-2:])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSelectionOverCloudTrailFiles(t *testing.T) {
	const (
		role     = "arn:aws:iam::111122223333:role/ci/ci-deploy"
		session1 = "arn:aws:sts::111122223333:assumed-role/ci-deploy/gha-run-101"
		alice    = "arn:aws:iam::111122223333:user/alice"
	)
	tests := []struct {
		name   string
		filter audit.Filter
		want   string
	}{
		{"everything: seventeen records in four files, one gzip", audit.Filter{}, "01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17"},
		{"a role selects its sessions' calls, not another role whose name starts alike nor the same name in another account", audit.Filter{Principal: role}, "02 03 05 06 07 11 12"},
		{"a role's ARN without its path selects the same sessions", audit.Filter{Principal: "arn:aws:iam::111122223333:role/ci-deploy"}, "02 03 05 06 07 11 12"},
		{"the same role name in another account selects only that account's session", audit.Filter{Principal: "arn:aws:iam::444455556666:role/ci/ci-deploy"}, "13"},
		{"an assumed-role ARN selects that one session", audit.Filter{Principal: session1}, "02 03 05 06 07"},
		{"a user selects its own calls, its session token's and its federated user's", audit.Filter{Principal: alice}, "14 15 16 17"},
		{"a user with none of those selects its own calls", audit.Filter{Principal: "arn:aws:iam::111122223333:user/bob"}, "09"},
		{"issued-before keeps the role's sessions issued before the cutoff", audit.Filter{Principal: role, IssuedBefore: at("2026-11-29T12:30:00Z")}, "02 03 05 06 07"},
		{"issued-before is exclusive: a session issued at the cutoff is not before it", audit.Filter{Principal: role, IssuedBefore: at("2026-11-29T13:00:03Z")}, "02 03 05 06 07"},
		{"issued-before leaves out calls with long-term keys", audit.Filter{Principal: alice, IssuedBefore: at("2026-11-30T00:00:00Z")}, "15 17"},
		{"issued-before alone keeps every old session", audit.Filter{IssuedBefore: at("2026-11-29T12:30:00Z")}, "02 03 04 05 06 07 08"},
		{"since is inclusive and until exclusive", audit.Filter{Principal: role, Since: at("2026-11-29T12:05:40Z"), Until: at("2026-11-29T13:00:10Z")}, "05 06 07"},
		{"denied keeps refused calls of any service's error code", audit.Filter{Principal: role, Denied: true}, "07 12"},
		{"a principal with no calls selects nothing", audit.Filter{Principal: "arn:aws:iam::111122223333:role/nobody"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(ids(t, Folder{Root: fixture}, tt.filter), " ")
			if got != tt.want {
				t.Errorf("selected %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFolderSkipsBadFiles: a file that is not a CloudTrail log is reported
// and skipped, and the files around it are still read.
func TestFolderSkipsBadFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/1.json":    `{"Records":[{"eventID":"x-01","eventTime":"2026-11-29T12:00:00Z","userIdentity":{"arn":"arn:aws:iam::111122223333:user/a"}}]}`,
		"a/2.json":    `{"Records":[{"eventID":"x-02"`,
		"a/3.json.gz": `not gzip`,
		"b/4.json":    `{"digestStartTime":"2026-11-29T12:00:00Z"}`,
		"b/5.json":    `{"Records":[{"eventID":"x-05","eventTime":"2026-11-29T12:00:00Z","userIdentity":{"arn":"arn:aws:iam::111122223333:user/a"}}]}`,
		"b/notes.txt": `ignored`,
		"AWSLogs/1/CloudTrail-Digest/us-east-1/d.json": `{"digest":true}`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var skipped []string
	got := ids(t, Folder{Root: dir, Skip: func(what string, _ error) { skipped = append(skipped, filepath.Base(what)) }}, audit.Filter{})
	if want := []string{"01", "05"}; !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if want := []string{"2.json", "3.json.gz", "4.json"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
}
