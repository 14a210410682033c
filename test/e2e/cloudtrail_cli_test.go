package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCloudTrailLookupEventsWithTheAWSCLI reads leash local's audit trail
// with `aws cloudtrail lookup-events`, as a responder would, and with leash
// audit --endpoint: a user's calls, the denied one included, and nothing of
// another user.
func TestCloudTrailLookupEventsWithTheAWSCLI(t *testing.T) {
	p := startLocal(t, t.TempDir())
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	for _, name := range []string{"alice", "bob"} {
		cli.ok(t, admin, nil, "iam", "create-user", "--user-name", name)
		cli.ok(t, admin, nil, "iam", "put-user-policy", "--user-name", name, "--policy-name", "self",
			"--policy-document", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`)
	}
	var key struct{ AccessKey accessKey }
	cli.ok(t, admin, &key, "iam", "create-access-key", "--user-name", "alice")
	alice := profile(t, "alice", key.AccessKey)
	cli.ok(t, alice, nil, "iam", "get-user")
	cli.denied(t, alice, "iam", "list-users")

	var out struct {
		Events []struct {
			EventName, Username, EventSource, ReadOnly, AccessKeyID string
			CloudTrailEvent                                         string
			EventTime                                               any
		}
	}
	cli.ok(t, admin, &out, "cloudtrail", "lookup-events", "--region", "us-east-1",
		"--lookup-attributes", "AttributeKey=Username,AttributeValue=alice")
	var names []string
	for _, e := range out.Events {
		names = append(names, e.EventName)
		var rec struct {
			UserIdentity struct{ ARN string }
			ErrorCode    string
		}
		if err := json.Unmarshal([]byte(e.CloudTrailEvent), &rec); err != nil {
			t.Fatalf("CloudTrailEvent of %s is not a record: %v", e.EventName, err)
		}
		if e.Username != "alice" || e.EventSource != "iam.amazonaws.com" || rec.UserIdentity.ARN != "arn:aws:iam::"+account+":user/alice" {
			t.Errorf("event %+v: want alice's IAM call", e)
		}
		if (e.EventName == "ListUsers") != (rec.ErrorCode == "AccessDenied") {
			t.Errorf("%s: error code %q", e.EventName, rec.ErrorCode)
		}
	}
	if want := []string{"ListUsers", "GetUser"}; !slices.Equal(names, want) {
		t.Errorf("lookup-events: %v, want %v (newest first)", names, want)
	}

	_, errOut, code := cli.run(t, admin, "cloudtrail", "lookup-events", "--region", "us-east-1",
		"--lookup-attributes", "AttributeKey=Username,AttributeValue=alice", "AttributeKey=EventName,AttributeValue=GetUser")
	if code == 0 || !strings.Contains(errOut, "InvalidLookupAttributesException") {
		t.Errorf("two lookup attributes: exit %d, stderr %q; want InvalidLookupAttributesException", code, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, leashBin, "audit", "--endpoint", p.url, "--credentials-file", p.credentialsPath(),
		"--principal", "arn:aws:iam::"+account+":user/alice")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitStatus(t, cmd.Run(), "leash audit --endpoint"); code != 0 {
		t.Fatalf("leash audit --endpoint: exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(stdout.String(), "iam:GetUser") || !strings.Contains(stdout.String(), "iam:ListUsers") ||
		!strings.Contains(stdout.String(), "AccessDenied") || strings.Contains(stdout.String(), "bob") {
		t.Errorf("leash audit --endpoint printed\n%s\nwant a header and alice's two calls", stdout.String())
	}
}
