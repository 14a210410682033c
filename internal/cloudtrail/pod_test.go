package cloudtrail

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/audit"
)

// memory is a trail held in memory, read like any other source.
type memory []*audit.Event

func (m memory) Events(_ context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	for _, e := range m {
		if f.Match(e) {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

const brokerSession = "arn:aws:sts::111122223333:assumed-role/leash-broker/broker-1"

// assumeRole is a CloudTrail AssumeRole record whose request carried tags
// (key, value, key, value...) and whose response gave key.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/cloudtrail-integration.html#cloudtrail-integration_examples-sts-api
func assumeRole(caller, key string, tags ...string) *audit.Event {
	var list []map[string]string
	for i := 0; i+1 < len(tags); i += 2 {
		list = append(list, map[string]string{"key": tags[i], "value": tags[i+1]})
	}
	req, _ := json.Marshal(map[string]any{"roleArn": "arn:aws:iam::111122223333:role/shop-web", "roleSessionName": "web-0", "tags": list})
	e := &audit.Event{EventTime: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), EventSource: "sts.amazonaws.com", EventName: "AssumeRole",
		UserIdentity: audit.Identity{Type: "AssumedRole", ARN: caller}, RequestParameters: req}
	if key != "" {
		e.ResponseElements = json.RawMessage(`{"credentials":{"accessKeyId":"` + key + `"},"assumedRoleUser":{"arn":"arn:aws:sts::111122223333:assumed-role/shop-web/web-0"}}`)
	}
	return e
}

func TestPodSessionRules(t *testing.T) {
	podTags := []string{TagNamespace, "shop", TagPodName, "web-0", TagPodUID, "uid-a"}
	broker := "arn:aws:iam::111122223333:role/leash-broker"
	tests := []struct {
		name   string
		e      func() *audit.Event
		broker string
		want   bool
	}{
		{"a successful AssumeRole tagged with the pod's namespace and name issues it a session",
			func() *audit.Event { return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", podTags...) }, "", true},
		{"the broker role's ARN selects its sessions' AssumeRole calls",
			func() *audit.Event { return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", podTags...) }, broker, true},
		{"with --broker, another principal's AssumeRole tagged as the pod issues it none",
			func() *audit.Event {
				return assumeRole("arn:aws:sts::111122223333:assumed-role/ci/run-7", "ASIAIOSFODNN7EXAMPLE", podTags...)
			}, broker, false},
		{"a refused AssumeRole issues none, whatever its record says it returned",
			func() *audit.Event {
				e := assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", podTags...)
				e.ErrorCode = "AccessDenied"
				return e
			}, "", false},
		{"a call that returned no key issues none",
			func() *audit.Event { return assumeRole(brokerSession, "", podTags...) }, "", false},
		{"another namespace's pod of the same name is another pod",
			func() *audit.Event {
				return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", TagNamespace, "dev", TagPodName, "web-0")
			}, "", false},
		{"the name alone does not name the pod",
			func() *audit.Event { return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", TagPodName, "web-0") }, "", false},
		// "Tag key–value pairs are not case sensitive, but case is
		// preserved": the key in another case is the same tag.
		// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
		{"a tag key in another case is the same key",
			func() *audit.Event {
				return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", "Kubernetes-Namespace", "shop", "KUBERNETES-POD-NAME", "web-0")
			}, "", true},
		{"a key given twice is no record of a successful call",
			func() *audit.Event {
				return assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", TagNamespace, "dev", TagPodName, "web-0", "Kubernetes-Namespace", "shop")
			}, "", false},
		{"tags found only in the response are not the request's",
			func() *audit.Event {
				e := assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE")
				e.ResponseElements = json.RawMessage(`{"credentials":{"accessKeyId":"ASIAIOSFODNN7EXAMPLE"},"tags":[{"key":"kubernetes-namespace","value":"shop"},{"key":"kubernetes-pod-name","value":"web-0"}]}`)
				return e
			}, "", false},
		{"an AssumeRole of another service is not STS's",
			func() *audit.Event {
				e := assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", podTags...)
				e.EventSource = "example.amazonaws.com"
				return e
			}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := Pod{Namespace: "shop", Name: "web-0", Broker: tt.broker}.issued(tt.e())
			if got != tt.want {
				t.Errorf("issued %v, want %v", got, tt.want)
			}
		})
	}
}

// The pod's trail is its calls and the AssumeRole calls that issued its
// sessions; Calls, read for a policy, is its calls alone.
func TestPodTrailAndItsCalls(t *testing.T) {
	call := func(key, name string) *audit.Event {
		return &audit.Event{EventTime: time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC), EventSource: "s3.amazonaws.com", EventName: name,
			UserIdentity: audit.Identity{Type: "AssumedRole", ARN: "arn:aws:sts::111122223333:assumed-role/shop-web/web-0", AccessKeyID: key}}
	}
	src := memory{
		assumeRole(brokerSession, "ASIAIOSFODNN7EXAMPLE", TagNamespace, "shop", TagPodName, "web-0"),
		call("ASIAIOSFODNN7EXAMPLE", "GetObject"),
		call("ASIAI44QH8DHBEXAMPLE", "DeleteObject"), // AWS's other documented example key ID, as a session's
	}
	trail, err := ForPod(context.Background(), src, Pod{Namespace: "shop", Name: "web-0"}, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(s Source) string {
		var got []string
		if err := Collect(context.Background(), s, audit.Filter{}, func(e *audit.Event) error {
			got = append(got, e.EventName)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	if got := names(trail); got != "AssumeRole GetObject" {
		t.Errorf("trail %q, want AssumeRole GetObject", got)
	}
	if got := names(trail.Calls()); got != "GetObject" {
		t.Errorf("calls %q, want GetObject", got)
	}
}
