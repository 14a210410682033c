package cloudtrail

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CloudTrail's AssumeRole records name the role in requestParameters; a
// chain is followed role to role, and a call the revocation does not end
// (a session issued after the cutoff) starts none.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/cloudtrail-integration.html#cloudtrail-integration_examples-sts-api
func TestChainedFollowsAssumeRoleFromCloudTrailFiles(t *testing.T) {
	const acct = "111122223333"
	rec := func(at, callerARN, issuer, issued, role, errorCode string) string {
		return `{"eventVersion":"1.08","eventTime":"` + at + `","eventSource":"sts.amazonaws.com","eventName":"AssumeRole",` +
			`"userIdentity":{"type":"AssumedRole","arn":"` + callerARN + `","accountId":"` + acct + `","sessionContext":{"attributes":{"creationDate":"` + issued + `","mfaAuthenticated":"false"},"sessionIssuer":{"type":"Role","arn":"` + issuer + `"}}},` +
			`"requestParameters":{"roleArn":"` + role + `","roleSessionName":"x"},"errorCode":"` + errorCode + `","requestID":"r","eventID":"e"}`
	}
	role := func(n string) string { return "arn:aws:iam::" + acct + ":role/" + n }
	sess := func(n string) string { return "arn:aws:sts::" + acct + ":assumed-role/" + n + "/s" }
	records := []string{
		rec("2026-12-01T10:00:00Z", sess("ci"), role("ci"), "2026-12-01T09:59:00Z", role("deployer"), ""),
		rec("2026-12-01T10:05:00Z", sess("deployer"), role("deployer"), "2026-12-01T10:00:00Z", role("admin"), ""),
		rec("2026-12-01T10:06:00Z", sess("ci"), role("ci"), "2026-12-01T09:59:00Z", role("refused"), "AccessDenied"),
		rec("2026-12-01T11:30:00Z", sess("ci"), role("ci"), "2026-12-01T11:29:00Z", role("fresh"), ""),
	}
	dir := t.TempDir()
	body := `{"Records":[` + strings.Join(records, ",") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "trail.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cutoff := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	got, err := Chained(context.Background(), Folder{Root: dir}, role("ci"), cutoff.Add(-24*time.Hour), cutoff)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, c := range got {
		roles = append(roles, c.Role)
	}
	if want := role("deployer") + " " + role("admin"); strings.Join(roles, " ") != want {
		t.Errorf("chained roles %v, want %s", roles, want)
	}
	if len(got) > 0 && (got[0].By != sess("ci") || !got[0].Issued.Equal(time.Date(2026, 12, 1, 9, 59, 0, 0, time.UTC))) {
		t.Errorf("first chain %+v", got[0])
	}
}
