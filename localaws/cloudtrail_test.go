package localaws_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	cttypes "github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

func (e *endpoint) cloudtrail(id, secret string) *cloudtrail.Client {
	return cloudtrail.New(cloudtrail.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Retryer: localtest.Retryer(),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

func attr(key cttypes.LookupAttributeKey, value string) []cttypes.LookupAttribute {
	return []cttypes.LookupAttribute{{AttributeKey: key, AttributeValue: aws.String(value)}}
}

// TestLookupEvents reads leash local's audit log through CloudTrail's
// LookupEvents with the SDK: a user's calls, allowed and denied, come back
// newest first with the fields AWS gives, every page of the log is seen
// once, and the request errors are AWS's.
func TestLookupEvents(t *testing.T) {
	ctx := context.Background()
	e, admin := adminClient(t)
	aliceIAM := userClient(t, e, admin, "alice", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`)
	aliceARN := "arn:aws:iam::" + account + ":user/alice"
	must[*iam.GetUserOutput](t, "alice GetUser")(aliceIAM.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}))
	_, err := aliceIAM.ListUsers(ctx, &iam.ListUsersInput{})
	wantCode(t, "alice ListUsers", err, "AccessDenied")
	ct := e.cloudtrail(e.adminKeys(t))

	t.Run("a user's calls, newest first, with the record", func(t *testing.T) {
		out := must[*cloudtrail.LookupEventsOutput](t, "LookupEvents")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(cttypes.LookupAttributeKeyUsername, "alice")}))
		var names []string
		for _, ev := range out.Events {
			names = append(names, aws.ToString(ev.EventName))
			if aws.ToString(ev.Username) != "alice" || aws.ToString(ev.EventSource) != "iam.amazonaws.com" || aws.ToString(ev.ReadOnly) != "true" {
				t.Errorf("event %+v: want user alice, source iam.amazonaws.com, read-only", ev)
			}
			var rec audit.Event
			if err := json.Unmarshal([]byte(aws.ToString(ev.CloudTrailEvent)), &rec); err != nil {
				t.Fatalf("CloudTrailEvent is not a record: %v", err)
			}
			if rec.UserIdentity.ARN != aliceARN || rec.EventID != aws.ToString(ev.EventId) || !rec.EventTime.Equal(aws.ToTime(ev.EventTime).UTC()) && rec.EventTime.Sub(aws.ToTime(ev.EventTime)).Abs() > time.Millisecond {
				t.Errorf("record %+v does not match its summary %+v", rec, ev)
			}
			if aws.ToString(ev.AccessKeyId) != rec.UserIdentity.AccessKeyID || rec.UserIdentity.AccessKeyID == "" {
				t.Errorf("AccessKeyId %q, record's %q", aws.ToString(ev.AccessKeyId), rec.UserIdentity.AccessKeyID)
			}
			if name := aws.ToString(ev.EventName); name == "ListUsers" && rec.ErrorCode != "AccessDenied" || name == "GetUser" && rec.ErrorCode != "" {
				t.Errorf("%s: error code %q", name, rec.ErrorCode)
			}
		}
		if want := []string{"ListUsers", "GetUser"}; !slices.Equal(names, want) {
			t.Errorf("events %v, want %v (newest first)", names, want)
		}
		if len(out.Events) == 2 {
			res := out.Events[1].Resources
			if len(res) != 1 || aws.ToString(res[0].ResourceName) != aliceARN || aws.ToString(res[0].ResourceType) != "AWS::IAM::User" {
				t.Errorf("GetUser's resources %+v, want alice as AWS::IAM::User", res)
			}
		}
	})

	t.Run("each attribute finds the event", func(t *testing.T) {
		all := must[*cloudtrail.LookupEventsOutput](t, "LookupEvents")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(cttypes.LookupAttributeKeyEventName, "ListUsers")}))
		if len(all.Events) != 1 {
			t.Fatalf("EventName ListUsers: %d events, want 1", len(all.Events))
		}
		ev := all.Events[0]
		for _, a := range []struct {
			key   cttypes.LookupAttributeKey
			value string
		}{
			{cttypes.LookupAttributeKeyEventId, aws.ToString(ev.EventId)},
			{cttypes.LookupAttributeKeyAccessKeyId, aws.ToString(ev.AccessKeyId)},
			{cttypes.LookupAttributeKeyEventSource, "iam.amazonaws.com"},
			{cttypes.LookupAttributeKeyReadOnly, "true"},
		} {
			out := must[*cloudtrail.LookupEventsOutput](t, string(a.key))(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(a.key, a.value)}))
			if !slices.ContainsFunc(out.Events, func(x cttypes.Event) bool { return aws.ToString(x.EventId) == aws.ToString(ev.EventId) }) {
				t.Errorf("%s=%s does not find the event", a.key, a.value)
			}
		}
		out := must[*cloudtrail.LookupEventsOutput](t, "ResourceName")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(cttypes.LookupAttributeKeyResourceName, aliceARN)}))
		for _, x := range out.Events {
			if aws.ToString(x.EventName) == "ListUsers" {
				t.Errorf("ResourceName %s found ListUsers, which names no resource", aliceARN)
			}
		}
		if len(out.Events) == 0 {
			t.Errorf("ResourceName %s found nothing", aliceARN)
		}
	})

	t.Run("pages of one event each cover the log once, newest first", func(t *testing.T) {
		var logged []string
		pages := cloudtrail.NewLookupEventsPaginator(ct, &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(1)})
		var seen []string
		var last time.Time
		for pages.HasMorePages() {
			page := must[*cloudtrail.LookupEventsOutput](t, "page")(pages.NextPage(ctx))
			if len(page.Events) > 1 {
				t.Fatalf("a page of %d events, want at most 1", len(page.Events))
			}
			for _, ev := range page.Events {
				if at := aws.ToTime(ev.EventTime); !last.IsZero() && at.After(last) {
					t.Errorf("event at %v after one at %v: not newest first", at, last)
				}
				last = aws.ToTime(ev.EventTime)
				seen = append(seen, aws.ToString(ev.EventId))
			}
			if len(seen) > 100 {
				t.Fatal("more than 100 events: the pages do not end")
			}
		}
		// The log as it was before the pages were asked for: the
		// LookupEvents calls made since are newer and not in these pages.
		logged = eventIDs(t, e, len(seen))
		slices.Sort(seen)
		if !slices.Equal(seen, logged) {
			t.Errorf("pages gave %d events %v, the log has %v", len(seen), seen, logged)
		}
	})

	t.Run("a time window", func(t *testing.T) {
		out := must[*cloudtrail.LookupEventsOutput](t, "LookupEvents")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{
			StartTime: aws.Time(time.Now().Add(time.Hour)), LookupAttributes: attr(cttypes.LookupAttributeKeyUsername, "alice")}))
		if len(out.Events) != 0 {
			t.Errorf("a window in the future has %d events", len(out.Events))
		}
		out = must[*cloudtrail.LookupEventsOutput](t, "LookupEvents")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{
			StartTime: aws.Time(time.Now().Add(-time.Hour)), EndTime: aws.Time(time.Now().Add(time.Minute)), LookupAttributes: attr(cttypes.LookupAttributeKeyUsername, "alice")}))
		if len(out.Events) != 2 {
			t.Errorf("the last hour has %d of alice's events, want 2", len(out.Events))
		}
	})

	t.Run("bad requests get AWS's errors", func(t *testing.T) {
		first := must[*cloudtrail.LookupEventsOutput](t, "LookupEvents")(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(1)}))
		now := time.Now()
		tests := []struct {
			name string
			in   cloudtrail.LookupEventsInput
			code string
		}{
			{"two attributes", cloudtrail.LookupEventsInput{LookupAttributes: append(attr("Username", "alice"), attr("EventName", "GetUser")...)}, "InvalidLookupAttributesException"},
			{"an unknown attribute key", cloudtrail.LookupEventsInput{LookupAttributes: attr("UserName", "alice")}, "InvalidLookupAttributesException"},
			{"ReadOnly neither true nor false", cloudtrail.LookupEventsInput{LookupAttributes: attr("ReadOnly", "yes")}, "InvalidLookupAttributesException"},
			{"start after end", cloudtrail.LookupEventsInput{StartTime: aws.Time(now), EndTime: aws.Time(now.Add(-time.Minute))}, "InvalidTimeRangeException"},
			{"51 results", cloudtrail.LookupEventsInput{MaxResults: aws.Int32(51)}, "InvalidMaxResultsException"},
			{"0 results", cloudtrail.LookupEventsInput{MaxResults: aws.Int32(0)}, "InvalidMaxResultsException"},
			{"a made-up token", cloudtrail.LookupEventsInput{NextToken: aws.String("not-a-token")}, "InvalidNextTokenException"},
			{"another query's token", cloudtrail.LookupEventsInput{NextToken: first.NextToken, LookupAttributes: attr("Username", "alice")}, "InvalidNextTokenException"},
			{"an unknown category", cloudtrail.LookupEventsInput{EventCategory: "data"}, "InvalidEventCategoryException"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := ct.LookupEvents(ctx, &tt.in)
				wantCode(t, tt.name, err, tt.code)
			})
		}
	})

	t.Run("authorized as cloudtrail:LookupEvents", func(t *testing.T) {
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob")}))
		created := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("bob")}))
		bobCT := e.cloudtrail(aws.ToString(created.AccessKey.AccessKeyId), aws.ToString(created.AccessKey.SecretAccessKey))
		_, err := bobCT.LookupEvents(ctx, &cloudtrail.LookupEventsInput{})
		wantCode(t, "bob without a policy", err, "AccessDeniedException")
		must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("trail"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"cloudtrail:LookupEvents","Resource":"*"}]}`)}))
		if _, err := bobCT.LookupEvents(ctx, &cloudtrail.LookupEventsInput{}); err != nil {
			t.Errorf("bob with cloudtrail:LookupEvents: %v", err)
		}
		_, err = e.cloudtrail(aws.ToString(created.AccessKey.AccessKeyId), "wrong-secret").LookupEvents(ctx, &cloudtrail.LookupEventsInput{})
		wantCode(t, "a wrong secret", err, "InvalidSignatureException")
	})
}

// eventIDs are the IDs of the first n events of the audit log, sorted.
func eventIDs(t *testing.T, e *endpoint, n int) []string {
	t.Helper()
	var ids []string
	f, err := os.Open(filepath.Join(e.dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := audit.Read(f, audit.Filter{}, func(ev *audit.Event) error {
		if len(ids) < n {
			ids = append(ids, ev.EventID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// TestLookupEventsWithAClockOffset: with leash local's clock moved ahead,
// an SDK signing with the machine's time still reads the trail, and the
// events carry the endpoint's time.
func TestLookupEventsWithAClockOffset(t *testing.T) {
	ctx := context.Background()
	const offset = 48 * time.Hour
	e := startWith(t, localaws.Config{AccountID: account, ClockOffset: offset})
	id, secret := e.adminKeys(t)
	must[*iam.ListUsersOutput](t, "ListUsers")(e.iam(id, secret).ListUsers(ctx, &iam.ListUsersInput{}))
	out, err := e.cloudtrail(id, secret).LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(cttypes.LookupAttributeKeyEventName, "ListUsers")})
	if err != nil {
		t.Fatalf("LookupEvents signed with the machine's clock: %v", err)
	}
	if len(out.Events) != 1 {
		t.Fatalf("%d ListUsers events, want 1", len(out.Events))
	}
	if at := aws.ToTime(out.Events[0].EventTime); at.Before(time.Now().Add(offset - time.Hour)) {
		t.Errorf("event time %v, want the endpoint's, about %v ahead", at, offset)
	}
}
