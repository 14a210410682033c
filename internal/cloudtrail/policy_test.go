package cloudtrail

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

const (
	testAccount = "111122223333"
	testRole    = "arn:aws:sts::111122223333:assumed-role/ci/run-1"
)

// event is a CloudTrail record of a call by testRole in eu-north-1; opts
// change it.
func event(source, name, params string, opts ...func(*audit.Event)) *audit.Event {
	e := &audit.Event{
		EventVersion: "1.08", EventSource: source + ".amazonaws.com", EventName: name,
		AWSRegion: "eu-north-1", RecipientAccount: testAccount,
		UserIdentity: audit.Identity{Type: "AssumedRole", ARN: testRole, AccountID: testAccount},
	}
	if params != "" {
		e.RequestParameters = json.RawMessage(params)
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

func failed(code string) func(*audit.Event) {
	return func(e *audit.Event) { e.ErrorCode = code }
}

func withResources(arns ...string) func(*audit.Event) {
	return func(e *audit.Event) {
		for _, a := range arns {
			e.Resources = append(e.Resources, audit.Resource{ARN: a})
		}
	}
}

func TestGrantOf(t *testing.T) {
	cat := catalog.Default()
	tests := []struct {
		rule      string
		e         *audit.Event
		action    string
		resources string // joined by " "; "" for no grant
		kind      NoteKind
	}{
		{"an S3 object call is granted on its bucket/key from requestParameters",
			event("s3", "GetObject", `{"bucketName":"logs","key":"2026/11/a.json"}`),
			"s3:GetObject", "arn:aws:s3:::logs/2026/11/a.json", ""},
		{"resources[] names the object; the bucket entry is not of the action's type",
			event("s3", "PutObject", `{}`, withResources("arn:aws:s3:::logs/b.json", "arn:aws:s3:::logs")),
			"s3:PutObject", "arn:aws:s3:::logs/b.json", ""},
		{"ListObjectsV2 needs s3:ListBucket on the bucket",
			event("s3", "ListObjectsV2", `{"bucketName":"logs","prefix":"2026/","list-type":"2"}`),
			"s3:ListBucket", "arn:aws:s3:::logs", ""},
		{"ListObjects needs s3:ListBucket", event("s3", "ListObjects", `{"bucketName":"logs"}`),
			"s3:ListBucket", "arn:aws:s3:::logs", ""},
		{"HeadObject needs s3:GetObject", event("s3", "HeadObject", `{"bucketName":"logs","key":"k"}`),
			"s3:GetObject", "arn:aws:s3:::logs/k", ""},
		{"HeadBucket needs s3:ListBucket", event("s3", "HeadBucket", `{"bucketName":"logs"}`),
			"s3:ListBucket", "arn:aws:s3:::logs", ""},
		{"ListBuckets needs s3:ListAllMyBuckets, which takes only *", event("s3", "ListBuckets", ``),
			"s3:ListAllMyBuckets", "*", ""},
		{"a multipart upload part needs s3:PutObject", event("s3", "UploadPart", `{"bucketName":"logs","key":"big","partNumber":"2"}`),
			"s3:PutObject", "arn:aws:s3:::logs/big", ""},
		{"GetObject of a version needs s3:GetObjectVersion",
			event("s3", "GetObject", `{"bucketName":"logs","key":"k","versionId":"3HL4kqtJlcpXroDTDmJ"}`),
			"s3:GetObjectVersion", "arn:aws:s3:::logs/k", ""},
		{"DeleteBucketEncryption needs s3:PutEncryptionConfiguration", event("s3", "DeleteBucketEncryption", `{"bucketName":"logs"}`),
			"s3:PutEncryptionConfiguration", "arn:aws:s3:::logs", ""},
		{"a key with * ? and $ is granted literally, not as a pattern",
			event("s3", "GetObject", `{"bucketName":"logs","key":"a*b?c${x}"}`),
			"s3:GetObject", "arn:aws:s3:::logs/a${*}b${?}c${$}{x}", ""},
		{"an object call without its key is granted on * with a note",
			event("s3", "GetObject", `{"bucketName":"logs"}`),
			"s3:GetObject", "*", NoteAnyResource},
		{"ec2:DescribeInstances takes only *", event("ec2", "DescribeInstances", `{"instancesSet":{},"filterSet":{}}`),
			"ec2:DescribeInstances", "*", ""},
		{"StopInstances is granted on each instance of instancesSet",
			event("ec2", "StopInstances", `{"instancesSet":{"items":[{"instanceId":"i-0abc"},{"instanceId":"i-0def"}]},"force":false}`),
			"ec2:StopInstances", "arn:aws:ec2:eu-north-1:111122223333:instance/i-0abc arn:aws:ec2:eu-north-1:111122223333:instance/i-0def", ""},
		{"CreateTags is granted on each resource of resourcesSet by its ID's type",
			event("ec2", "CreateTags", `{"resourcesSet":{"items":[{"resourceId":"i-0abc"},{"resourceId":"vol-0123"}]},"tagSet":{"items":[{"key":"team","value":"a"}]}}`),
			"ec2:CreateTags", "arn:aws:ec2:eu-north-1:111122223333:instance/i-0abc arn:aws:ec2:eu-north-1:111122223333:volume/vol-0123", ""},
		{"CreateTags on a resource ID of unknown type is granted on * with a note",
			event("ec2", "CreateTags", `{"resourcesSet":{"items":[{"resourceId":"i-0abc"},{"resourceId":"igw-0123"}]}}`),
			"ec2:CreateTags", "*", NoteAnyResource},
		{"RunInstances does not name its new instance: * with a note",
			event("ec2", "RunInstances", `{"instancesSet":{"items":[{"imageId":"ami-0abc","minCount":1,"maxCount":1}]},"instanceType":"t3.micro"}`),
			"ec2:RunInstances", "*", NoteAnyResource},
		{"the account comes from the caller when recipientAccountId is absent",
			event("ec2", "StartInstances", `{"instancesSet":{"items":[{"instanceId":"i-0abc"}]}}`, func(e *audit.Event) { e.RecipientAccount = "" }),
			"ec2:StartInstances", "arn:aws:ec2:eu-north-1:111122223333:instance/i-0abc", ""},
		{"an IAM role call is granted on the role",
			event("iam", "GetRole", `{"roleName":"app"}`, func(e *audit.Event) { e.AWSRegion = "us-east-1" }),
			"iam:GetRole", "arn:aws:iam::111122223333:role/app", ""},
		{"a user's IAM call without userName acts on the user itself",
			event("iam", "ListAccessKeys", ``, func(e *audit.Event) {
				e.UserIdentity = audit.Identity{Type: "IAMUser", ARN: "arn:aws:iam::111122223333:user/ops/alice", AccountID: testAccount, UserName: "alice"}
			}),
			"iam:ListAccessKeys", "arn:aws:iam::111122223333:user/ops/alice", ""},
		{"AssumeRole is granted on the role of its roleArn",
			event("sts", "AssumeRole", `{"roleArn":"arn:aws:iam::111122223333:role/deploy","roleSessionName":"s"}`),
			"sts:AssumeRole", "arn:aws:iam::111122223333:role/deploy", ""},
		{"leash local's resource field names the resource",
			event("iam", "GetUser", ``, func(e *audit.Event) {
				e.AdditionalEventData = &audit.AdditionalData{AuthorizedResource: "arn:aws:iam::111122223333:user/bob", Decision: "Allowed"}
			}),
			"iam:GetUser", "arn:aws:iam::111122223333:user/bob", ""},
		{"a partition comes from the caller's ARN",
			event("s3", "GetObject", `{"bucketName":"logs","key":"k"}`, func(e *audit.Event) { e.UserIdentity.ARN = "arn:aws-cn:sts::111122223333:assumed-role/ci/x" }),
			"s3:GetObject", "arn:aws-cn:s3:::logs/k", ""},
		{"CloudWatch's monitoring event source is the cloudwatch prefix", event("monitoring", "ListMetrics", `{}`),
			"cloudwatch:ListMetrics", "*", NoteAnyResource},
		{"Lambda's versioned event name is the action", event("lambda", "GetFunction20150331v2", `{"functionName":"fn"}`),
			"lambda:GetFunction", "arn:aws:lambda:eu-north-1:111122223333:function:fn", ""},

		{"AccessDenied is refused, not granted", event("s3", "PutObject", `{"bucketName":"logs","key":"k"}`, failed("AccessDenied")),
			"s3:PutObject", "", NoteRefused},
		{"EC2's Client.UnauthorizedOperation is refused", event("ec2", "TerminateInstances", `{"instancesSet":{"items":[{"instanceId":"i-0abc"}]}}`, failed("Client.UnauthorizedOperation")),
			"ec2:TerminateInstances", "", NoteRefused},
		{"AccessDeniedException is refused", event("kms", "Decrypt", `{}`, failed("AccessDeniedException")),
			"kms:Decrypt", "", NoteRefused},
		{"leash local's ImplicitDeny is refused whatever the code", event("iam", "ListUsers", ``, func(e *audit.Event) {
			e.AdditionalEventData = &audit.AdditionalData{Decision: "ImplicitDeny"}
			e.ErrorCode = "AccessDenied"
		}),
			"iam:ListUsers", "", NoteRefused},
		{"an unauthenticated call proves nothing", event("iam", "ListUsers", ``, failed("InvalidClientTokenId")),
			"iam:ListUsers", "", NoteUnauthenticated},
		{"NoSuchKey passed authorization: granted", event("s3", "GetObject", `{"bucketName":"logs","key":"gone"}`, failed("NoSuchKey")),
			"s3:GetObject", "arn:aws:s3:::logs/gone", ""},
		{"ThrottlingException passed authorization: granted", event("ec2", "DescribeInstances", `{}`, failed("Client.RequestLimitExceeded")),
			"ec2:DescribeInstances", "*", ""},
		{"EC2's DryRunOperation means the permission held: granted", event("ec2", "StopInstances", `{"instancesSet":{"items":[{"instanceId":"i-0abc"}]}}`, failed("Client.DryRunOperation")),
			"ec2:StopInstances", "arn:aws:ec2:eu-north-1:111122223333:instance/i-0abc", ""},
		{"an event the catalog has no action for is a note, never a grant", event("s3", "SelectObjectContent", `{"bucketName":"logs","key":"k"}`),
			"s3.amazonaws.com SelectObjectContent", "", NoteUnknownAction},
		{"an unknown service is a note", event("nosuchservice", "DoThing", `{}`),
			"nosuchservice.amazonaws.com DoThing", "", NoteUnknownAction},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			gs := grantsOf(cat, tt.e)
			if len(gs) != 1 {
				t.Fatalf("%d grants, want 1: %+v", len(gs), gs)
			}
			g := gs[0]
			if g.action != tt.action || strings.Join(g.resources, " ") != tt.resources || g.kind != tt.kind {
				t.Errorf("grant = %s on %q, note %q %q;\nwant %s on %q, note kind %q", g.action, strings.Join(g.resources, " "), g.kind, g.note, tt.action, tt.resources, tt.kind)
			}
			if (g.kind == "") != (g.note == "") {
				t.Errorf("note kind %q with text %q", g.kind, g.note)
			}
		})
	}
}

func TestS3CopiesNeedAPermissionOnEachObject(t *testing.T) {
	cat := catalog.Default()
	both := withResources("arn:aws:s3:::src/a.txt", "arn:aws:s3:::src", "arn:aws:s3:::dst/b.txt", "arn:aws:s3:::dst")
	tests := []struct {
		rule string
		e    *audit.Event
		want string
	}{
		{"CopyObject: PutObject on the destination, GetObject on the source, never the other way round",
			event("s3", "CopyObject", `{"bucketName":"dst","key":"b.txt","x-amz-copy-source":"src/a.txt"}`, both),
			"s3:PutObject on arn:aws:s3:::dst/b.txt; s3:GetObject on arn:aws:s3:::src/a.txt"},
		{"a URL-encoded source with a leading slash",
			event("s3", "CopyObject", `{"bucketName":"dst","key":"b.txt","x-amz-copy-source":"/src/dir%20x/a%2Bb.txt"}`),
			"s3:PutObject on arn:aws:s3:::dst/b.txt; s3:GetObject on arn:aws:s3:::src/dir x/a+b.txt"},
		{"a source version needs GetObjectVersion",
			event("s3", "UploadPartCopy", `{"bucketName":"dst","key":"b.txt","partNumber":"1","x-amz-copy-source":"src/a.txt?versionId=v1"}`),
			"s3:PutObject on arn:aws:s3:::dst/b.txt; s3:GetObjectVersion on arn:aws:s3:::src/a.txt"},
		{"no source: GetObject on * with a note",
			event("s3", "CopyObject", `{"bucketName":"dst","key":"b.txt"}`, both),
			"s3:PutObject on arn:aws:s3:::dst/b.txt; s3:GetObject on * (any resource)"},
		{"a refused copy grants neither",
			event("s3", "CopyObject", `{"bucketName":"dst","key":"b.txt","x-amz-copy-source":"src/a.txt"}`, failed("AccessDenied")),
			"s3:PutObject (refused); s3:GetObject (refused)"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			var got []string
			for _, g := range grantsOf(cat, tt.e) {
				s := g.action
				if g.resources != nil {
					s += " on " + strings.Join(g.resources, " ")
				}
				if g.kind != "" {
					s += " (" + string(g.kind) + ")"
				}
				got = append(got, s)
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("grants = %s\nwant     %s", strings.Join(got, "; "), tt.want)
			}
		})
	}
}

func TestPolicyShape(t *testing.T) {
	events := []*audit.Event{
		event("s3", "GetObject", `{"bucketName":"logs","key":"b"}`),
		event("s3", "GetObject", `{"bucketName":"logs","key":"a"}`),
		event("s3", "GetObject", `{"bucketName":"logs","key":"a"}`),
		event("s3", "GetObjectTagging", `{"bucketName":"logs","key":"a"}`),
		event("s3", "GetObjectTagging", `{"bucketName":"logs","key":"b"}`),
		event("s3", "ListObjectsV2", `{"bucketName":"logs"}`),
		event("ec2", "DescribeInstances", `{}`),
		event("ec2", "DescribeVolumes", `{}`),
		event("ec2", "RunInstances", `{}`),
		event("ec2", "RunInstances", `{}`),
		event("s3", "PutObject", `{"bucketName":"logs","key":"a"}`, failed("AccessDenied")),
		event("s3", "PutObject", `{"bucketName":"logs","key":"a"}`, failed("AccessDenied")),
	}
	doc, notes, err := Policy(events)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Version":"2012-10-17","Statement":[` +
		`{"Sid":"Ec2DescribeInstances","Effect":"Allow","Action":["ec2:DescribeInstances","ec2:DescribeVolumes","ec2:RunInstances"],"Resource":["*"]},` +
		`{"Sid":"S3GetObject","Effect":"Allow","Action":["s3:GetObject","s3:GetObjectTagging"],"Resource":["arn:aws:s3:::logs/a","arn:aws:s3:::logs/b"]},` +
		`{"Sid":"S3ListBucket","Effect":"Allow","Action":["s3:ListBucket"],"Resource":["arn:aws:s3:::logs"]}]}`
	if string(got) != want {
		t.Errorf("policy:\n%s\nwant\n%s", got, want)
	}
	var lines []string
	for _, n := range notes {
		lines = append(lines, string(n.Kind)+": "+n.String())
	}
	wantNotes := `refused: observed but refused: s3:PutObject on arn:aws:s3:::logs/a (AccessDenied): not granted (2 calls)
any resource: ec2:RunInstances granted on "*": the event does not name its image, instance, network-interface, security-group, subnet; narrow it by hand (2 calls)`
	if strings.Join(lines, "\n") != wantNotes {
		t.Errorf("notes:\n%s\nwant\n%s", strings.Join(lines, "\n"), wantNotes)
	}
	// The same events in another order give the same policy and notes.
	for i, j := 0, len(events)-1; i < j; i, j = i+1, j-1 {
		events[i], events[j] = events[j], events[i]
	}
	doc2, notes2, _ := Policy(events)
	got2, _ := json.Marshal(doc2)
	if string(got2) != string(got) || len(notes2) != len(notes) || notes2[0] != notes[0] || notes2[1] != notes[1] {
		t.Errorf("reversed events changed the output:\n%s\n%v", got2, notes2)
	}
}

func TestPolicyOverManagedLimitIsNotedNotWidened(t *testing.T) {
	var events []*audit.Event
	for i := range 200 {
		events = append(events, event("s3", "GetObject", `{"bucketName":"logs","key":"reports/2026/11/`+strings.Repeat("x", 10)+string(rune('a'+i%26))+strings.Repeat("y", i/26)+`.json"}`))
	}
	doc, notes, err := Policy(events)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Statements[0].Resource); n != 200 {
		t.Errorf("the statement has %d resources, want all 200 keys", n)
	}
	if len(notes) != 1 || notes[0].Kind != NoteTooLarge || !strings.Contains(notes[0].Text, "over IAM's limit of 6144") {
		t.Errorf("notes = %v, want one too-large note", notes)
	}
	size, _ := Size(doc)
	if size <= ManagedPolicyLimit {
		t.Errorf("size %d is not over the limit; the test needs a larger policy", size)
	}
}

func TestPolicyWithNothingAuthorizedIsAnError(t *testing.T) {
	_, notes, err := Policy([]*audit.Event{event("s3", "PutObject", `{"bucketName":"b","key":"k"}`, failed("AccessDenied"))})
	if !errors.Is(err, ErrNothingGranted) || len(notes) != 1 || notes[0].Kind != NoteRefused {
		t.Errorf("err = %v, notes = %v; want ErrNothingGranted and the refusal noted", err, notes)
	}
}

// The generated document is valid IAM policy JSON as leash parses it.
func TestPolicyParses(t *testing.T) {
	doc, _, err := Policy([]*audit.Event{event("s3", "GetObject", `{"bucketName":"logs","key":"a*b"}`)})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(doc)
	if _, err := policy.Parse(data, policy.Identity); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}
