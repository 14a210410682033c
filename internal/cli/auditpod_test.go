package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/cloudtrail"
)

const podTrailDir = "testdata/audit-pod"

// leash audit --pod reads the session tags leash broker writes; the names
// are repeated in the trail package, and must stay the broker's.
func TestAuditPodTagNamesAreTheBrokers(t *testing.T) {
	for _, c := range [][2]string{
		{cloudtrail.TagNamespace, broker.TagNamespace},
		{cloudtrail.TagPodName, broker.TagPodName},
		{cloudtrail.TagPodUID, broker.TagPodUID},
		{cloudtrail.TagServiceAccount, broker.TagServiceAccount},
	} {
		if c[0] != c[1] {
			t.Errorf("leash audit reads the tag %q, the broker writes %q", c[0], c[1])
		}
	}
}

// A pod's calls are those made with the keys of the successful AssumeRole
// calls whose requested tags name it, and those AssumeRole calls: not
// another pod's, not another namespace's pod of the same name, not a
// refused AssumeRole's (whatever its record says it returned), and not a
// third principal's. CloudTrail records an AssumeRole's tags in
// requestParameters.tags and the session's key in
// responseElements.credentials.accessKeyId, and each later call's key in
// userIdentity.accessKeyId.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/cloudtrail-integration.html#cloudtrail-integration_examples-sts-api
// https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-user-identity.html
func TestAuditPodSelectsTheCallsOfThePodsSessions(t *testing.T) {
	const brokerRole = "arn:aws:iam::111122223333:role/leash-broker"
	tests := []struct {
		name      string
		args      []string
		requests  []string // requestID of each record, in the trail's order
		sessions  []string // the stderr lines naming sessions
		forbidden []string
	}{
		{"the broker's sessions only, with --broker",
			[]string{"--pod", "shop/web-0", "--broker", brokerRole},
			[]string{"req-01", "req-03", "req-10", "req-11", "req-12"},
			[]string{
				"pod shop/web-0 uid 0b6f3c1e-uid-a: session arn:aws:sts::111122223333:assumed-role/shop-web/web-0 issued 2026-12-01T10:00:00Z by arn:aws:sts::111122223333:assumed-role/leash-broker/leash-broker-7d9f",
				"pod shop/web-0 uid 9c41d2b8-uid-b: session arn:aws:sts::111122223333:assumed-role/shop-web/web-0 issued 2026-12-01T11:00:00Z by arn:aws:sts::111122223333:assumed-role/leash-broker/leash-broker-7d9f",
			},
			[]string{"forged-uid", "ASIA", "AKIA"}},
		{"without --broker a session any principal tagged as the pod is included",
			[]string{"--pod", "shop/web-0"},
			[]string{"req-01", "req-03", "req-08", "req-09", "req-10", "req-11", "req-12"},
			[]string{
				"pod shop/web-0 uid 0b6f3c1e-uid-a: session arn:aws:sts::111122223333:assumed-role/shop-web/web-0 issued 2026-12-01T10:00:00Z",
				"pod shop/web-0 uid forged-uid: session arn:aws:sts::111122223333:assumed-role/shop-web/web-0 issued 2026-12-01T10:05:00Z by arn:aws:sts::111122223333:assumed-role/ci/run-7",
				"pod shop/web-0 uid 9c41d2b8-uid-b: session",
			},
			[]string{"ASIA", "AKIA"}},
		{"another pod of the namespace",
			[]string{"--pod", "shop/web-1", "--broker", brokerRole},
			[]string{"req-02", "req-04"},
			[]string{"pod shop/web-1 uid 5d2e9a7c-uid-c: session arn:aws:sts::111122223333:assumed-role/shop-web/web-1"},
			nil},
		{"the pod of the same name in another namespace",
			[]string{"--pod", "dev/web-0"},
			[]string{"req-13", "req-14"},
			[]string{"pod dev/web-0 uid 77aa1b2c-uid-d"},
			nil},
		{"sessions issued before --since count, their calls before it do not",
			[]string{"--pod", "shop/web-0", "--broker", brokerRole, "--since", "2026-12-01T10:30:00Z"},
			[]string{"req-11", "req-12"},
			[]string{"uid 0b6f3c1e-uid-a", "uid 9c41d2b8-uid-b"},
			nil},
		{"a pod with no session",
			[]string{"--pod", "shop/web-9"},
			nil,
			[]string{"no successful AssumeRole by any caller tagged kubernetes-namespace=shop and kubernetes-pod-name=web-9 in the trail"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"audit", "--trail-dir", podTrailDir, "--output", "json"}, tt.args...)
			if status := Run(context.Background(), args, nil, &out, &errOut); status != ExitOK {
				t.Fatalf("status %d; stderr: %s", status, errOut.String())
			}
			var got []string
			for line := range strings.Lines(out.String()) {
				var r struct {
					RequestID string `json:"requestID"`
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				got = append(got, r.RequestID)
			}
			if !slices.Equal(got, tt.requests) {
				t.Errorf("records %v, want %v", got, tt.requests)
			}
			for _, s := range tt.sessions {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut.String())
				}
			}
			if n, want := strings.Count(errOut.String(), "\n"), max(len(tt.sessions), 1); n != want {
				t.Errorf("%d stderr lines, want %d:\n%s", n, want, errOut.String())
			}
			for _, f := range tt.forbidden {
				if strings.Contains(errOut.String(), f) {
					t.Errorf("stderr has %q:\n%s", f, errOut.String())
				}
			}
		})
	}
}

// The table lists the pod's calls and the AssumeRole calls that issued its
// sessions; the policy of what the pod did grants its calls only: not the
// broker's AssumeRole, not the impostor's delete.
func TestAuditPodTableAndPolicy(t *testing.T) {
	const brokerRole = "arn:aws:iam::111122223333:role/leash-broker"
	var out, errOut bytes.Buffer
	if status := Run(context.Background(), []string{"audit", "--trail-dir", podTrailDir, "--pod", "shop/web-0", "--broker", brokerRole}, nil, &out, &errOut); status != ExitOK {
		t.Fatalf("status %d; stderr: %s", status, errOut.String())
	}
	table := out.String()
	for _, w := range []string{"sts:AssumeRole", "arn:aws:s3:::example-shop-assets/web-0-first.png", "arn:aws:s3:::example-shop-assets/web-0-recreated.png"} {
		if !strings.Contains(table, w) {
			t.Errorf("table lacks %q:\n%s", w, table)
		}
	}
	if rows := strings.Count(table, "\n") - 1; rows != 5 {
		t.Errorf("%d rows, want 5:\n%s", rows, table)
	}
	out.Reset()
	errOut.Reset()
	if status := Run(context.Background(), []string{"audit", "--trail-dir", podTrailDir, "--pod", "shop/web-0", "--broker", brokerRole, "--policy"}, nil, &out, &errOut); status != ExitOK {
		t.Fatalf("--policy status %d; stderr: %s", status, errOut.String())
	}
	policy := out.String()
	for _, w := range []string{`"s3:GetObject"`, `"s3:PutObject"`, "web-0-second.png"} {
		if !strings.Contains(policy, w) {
			t.Errorf("policy lacks %s:\n%s", w, policy)
		}
	}
	for _, m := range []string{"sts:", "DeleteObject", "impostor.png", "web-1.png", "refused.png"} {
		if strings.Contains(policy, m) {
			t.Errorf("policy grants %s, not the pod's:\n%s", m, policy)
		}
	}
}

func TestAuditPodBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"--pod", "shop"}, `--pod: "shop" is not NAMESPACE/NAME`},
		{"empty namespace", []string{"--pod", "/web-0"}, "is not NAMESPACE/NAME"},
		{"three parts", []string{"--pod", "shop/web/0"}, "is not NAMESPACE/NAME"},
		{"beside --principal", []string{"--pod", "shop/web-0", "--principal", "arn:aws:iam::111122223333:role/x"}, "--pod and --principal both select the caller"},
		{"--broker without --pod", []string{"--broker", "arn:aws:iam::111122223333:role/leash-broker"}, "--broker: selects who issued a pod's sessions"},
		{"--broker not an ARN", []string{"--pod", "shop/web-0", "--broker", "leash-broker"}, `--broker: "leash-broker" is not the ARN`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), append([]string{"audit", "--trail-dir", podTrailDir}, tt.args...), nil, &out, &errOut)
			if status != ExitBadInput || !strings.Contains(errOut.String(), tt.want) || out.Len() != 0 {
				t.Errorf("status %d, stdout %q, stderr %q; want %d and %q", status, out.String(), errOut.String(), ExitBadInput, tt.want)
			}
		})
	}
}

// The help names the rule and what --broker leaves to the reader when it
// is not given.
func TestAuditPodHelpSaysWhatWithoutBrokerIncludes(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := Run(context.Background(), []string{"audit", "--help"}, nil, &out, &errOut); status != ExitOK {
		t.Fatalf("status %d; stderr: %s", status, errOut.String())
	}
	help := strings.Join(strings.Fields(out.String()), " ")
	for _, w := range []string{
		"the successful AssumeRole calls (no error code) whose requested session tags (requestParameters.tags) have kubernetes-namespace NAMESPACE and kubernetes-pod-name NAME",
		"Without --broker, a session that any principal allowed sts:TagSession tagged so is included",
		"without it, a session anyone tagged as the pod counts",
	} {
		if !strings.Contains(help, w) {
			t.Errorf("help lacks %q:\n%s", w, out.String())
		}
	}
}
