package cloudtrail

import (
	"encoding/json"
	"errors"
	"testing"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy"
)

// FuzzPolicy feeds Policy any event source, name, request parameters and
// error code: it never panics, and what it returns is a policy leash
// parses back, whatever the names and keys hold.
func FuzzPolicy(f *testing.F) {
	f.Add("s3", "GetObject", `{"bucketName":"b","key":"a*b?c${x}"}`, "")
	f.Add("ec2", "CreateTags", `{"resourcesSet":{"items":[{"resourceId":"i-1"},{"resourceId":"vol-2"}]}}`, "")
	f.Add("ec2", "StopInstances", `{"instancesSet":{"items":[{"instanceId":"i-1"}]}}`, "Client.DryRunOperation")
	f.Add("iam", "GetRole", `{"roleName":"x\"y"}`, "AccessDenied")
	f.Add("lambda", "Invoke", `null`, "")
	f.Fuzz(func(t *testing.T, source, name, params, code string) {
		e := event(source, name, "", failed(code))
		if json.Valid([]byte(params)) {
			e.RequestParameters = json.RawMessage(params)
		}
		doc, _, err := Policy([]*audit.Event{e})
		if errors.Is(err, ErrNothingGranted) {
			return
		}
		if err != nil {
			t.Fatalf("%s %s %s: %v", source, name, params, err)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := policy.Parse(data, policy.Identity); err != nil {
			t.Fatalf("%s does not parse: %v", data, err)
		}
	})
}

// BenchmarkPolicy measures a day of a busy controller: 10,000 calls over a
// few actions and a thousand objects.
func BenchmarkPolicy(b *testing.B) {
	var events []*audit.Event
	for i := range 10000 {
		switch i % 4 {
		case 0:
			events = append(events, event("ec2", "DescribeInstances", `{"instancesSet":{},"filterSet":{}}`))
		case 1:
			events = append(events, event("ec2", "StopInstances", `{"instancesSet":{"items":[{"instanceId":"i-0abc"}]}}`))
		default:
			key := `"key":"builds/` + string(rune('a'+i%26)) + `/` + string(rune('a'+i/26%40)) + `.tar.gz"`
			events = append(events, event("s3", "GetObject", `{"bucketName":"artifacts",`+key+`}`,
				withResources("arn:aws:s3:::artifacts")))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Policy(events); err != nil {
			b.Fatal(err)
		}
	}
}
