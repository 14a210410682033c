package cloudtrail

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"leash.dev/leash/localaws/audit"
)

// BenchmarkFolder reads a gzipped CloudTrail file of 10,000 records and
// selects one role's sessions: the speed of an investigation over a day of
// a busy account's trail is records per second times its size.
func BenchmarkFolder(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	file, err := os.Create(filepath.Join(dir, "big.json.gz"))
	if err != nil {
		b.Fatal(err)
	}
	gz := gzip.NewWriter(file)
	records := make([]audit.Event, n)
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	for i := range records {
		role := "ci-deploy"
		if i%10 != 0 {
			role = "app-reader"
		}
		records[i] = audit.Event{
			EventVersion: "1.09", EventTime: t0.Add(time.Duration(i) * time.Second), EventSource: "ec2.amazonaws.com", EventName: "DescribeInstances",
			SourceIPAddress: "192.0.2.10", UserAgent: "aws-cli/2.17.20", EventID: fmt.Sprintf("id-%d", i), RequestID: fmt.Sprintf("req-%d", i),
			UserIdentity: audit.Identity{Type: "AssumedRole", ARN: "arn:aws:sts::111122223333:assumed-role/" + role + "/s", AccountID: "111122223333",
				SessionContext: &audit.SessionContext{Attributes: audit.SessionAttributes{CreationDate: t0}, SessionIssuer: &audit.SessionIssuer{Type: "Role", ARN: "arn:aws:iam::111122223333:role/" + role}}},
			RequestParameters: json.RawMessage(`{"instancesSet":{},"filterSet":{}}`),
		}
	}
	if err := json.NewEncoder(gz).Encode(map[string]any{"Records": records}); err != nil {
		b.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		b.Fatal(err)
	}
	if err := file.Close(); err != nil {
		b.Fatal(err)
	}
	f := audit.Filter{Principal: "arn:aws:iam::111122223333:role/ci-deploy"}
	b.ResetTimer()
	for range b.N {
		selected := 0
		if err := Collect(context.Background(), Folder{Root: dir}, f, func(*audit.Event) error { selected++; return nil }); err != nil {
			b.Fatal(err)
		}
		if selected != n/10 {
			b.Fatalf("selected %d, want %d", selected, n/10)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
