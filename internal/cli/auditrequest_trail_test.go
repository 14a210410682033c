package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/usage"
	"sigs.k8s.io/yaml"
)

// The trail of examples/usage (its README says more) is two gzipped CloudTrail log files in
// the layout of a trail's S3 bucket, their records shaped as the CloudTrail
// User Guide's examples ("CloudTrail record contents",
// https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html):
// the cloud controller manager's web-identity role session describes,
// tags an instance, makes a load balancer and describes a KMS key; it is
// refused ec2:TerminateInstances (never granted) and
// elasticloadbalancing:DeleteLoadBalancer (granted, refused by an SCP). The
// node role, an administrator and a role of the same name in another
// account call the request's other actions.
var trailDir = filepath.Join("..", "..", "examples", "usage", "AWSLogs")

func trailAudit(extra ...string) []string {
	return append([]string{"audit", "--request", "kube-system/aws-cloud-controller-manager-sts", "-f", filepath.Join("..", "..", "examples", "ccm-sts"),
		"--mode", "STS", "--trail-dir", trailDir, "--account", "111122223333"}, extra...)
}

// TestAuditRequestOverCloudTrailFiles: the report holds exactly the
// session's exercised calls; refused calls and other principals' widen
// nothing; the proposal is narrowed to them and proven.
func TestAuditRequestOverCloudTrailFiles(t *testing.T) {
	stdout, stderr, code := run(t, trailAudit("--output", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var r usage.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Principal != "arn:aws:iam::111122223333:role/leash/leash/leash-kube-system-aws-cloud-controller-manager-sts-3hsu32ev" {
		t.Errorf("principal %s", r.Principal)
	}
	used := []string{"ec2:CreateTags", "ec2:DescribeInstances", "ec2:DescribeSecurityGroups",
		"elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:DescribeLoadBalancers", "kms:DescribeKey"}
	if got := r.UsedActions(); !slices.Equal(got, used) {
		t.Errorf("used %v, want %v", got, used)
	}
	unused := r.Unused()
	if len(unused)+len(used) != 46 {
		t.Errorf("%d unused and %d used of the request's 46 actions", len(unused), len(used))
	}
	for _, a := range []string{"elasticloadbalancing:DeleteLoadBalancer", "ec2:ModifyInstanceAttribute", "ec2:DescribeRouteTables", "ec2:DescribeAvailabilityZones"} {
		if !slices.Contains(unused, a) {
			t.Errorf("%s is not reported unused: refused, or another principal's", a)
		}
	}
	if len(r.Outside) != 0 {
		t.Errorf("uses outside the request: %+v (a refused call widens nothing)", r.Outside)
	}
	refusedNoted := 0
	for _, n := range r.Notes {
		if n.Kind == "refused" {
			refusedNoted++
		}
	}
	if refusedNoted != 2 {
		t.Errorf("%d refused calls noted, want 2: %+v", refusedNoted, r.Notes)
	}

	proposal := func(extra ...string) []leashv1.StatementEntry {
		t.Helper()
		manifest, stderr, code := run(t, trailAudit(append([]string{"--propose"}, extra...)...)...)
		if code != 0 {
			t.Fatalf("--propose %v: exit %d\n%s", extra, code, stderr)
		}
		var cr leashv1.CredentialsRequest
		if err := yaml.UnmarshalStrict([]byte(manifest), &cr); err != nil {
			t.Fatal(err)
		}
		var spec leashv1.AWSProviderSpec
		if err := json.Unmarshal(cr.Spec.ProviderSpec.Raw, &spec); err != nil {
			t.Fatal(err)
		}
		if cr.Spec.CloudTokenPath != "/var/run/secrets/openshift/serviceaccount/token" || cr.Spec.SecretRef.Name != "cloud-controller-manager-sts-credentials" {
			t.Errorf("the proposal lost the request's other fields: %+v", cr.Spec)
		}
		return spec.StatementEntries
	}
	got := proposal()
	want := []leashv1.StatementEntry{
		{Effect: "Allow", Action: []string{"ec2:DescribeInstances", "ec2:DescribeSecurityGroups", "elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:DescribeLoadBalancers"}, Resource: "*"},
		{Effect: "Allow", Action: []string{"ec2:CreateTags"}, Resource: "arn:aws:ec2:us-east-1:111122223333:instance/i-0abcdef1234567890"},
		{Effect: "Allow", Action: []string{"kms:DescribeKey"}, Resource: "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
	}
	if g, w := must(json.Marshal(got)), must(json.Marshal(want)); string(g) != string(w) {
		t.Errorf("proposal\n%s\nwant\n%s", g, w)
	}
	t.Run("leash diff: the proposal grants nothing the request does not, a KMS key included", func(t *testing.T) {
		manifest, _, _ := run(t, trailAudit("--propose")...)
		p := filepath.Join(t.TempDir(), "proposed.yaml")
		if err := os.WriteFile(p, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		request := filepath.Join("..", "..", "examples", "ccm-sts", "credentialsrequest.yaml")
		if out, stderr, code := run(t, "diff", "--principal", r.Principal, request, p); code != 0 {
			t.Errorf("diff REQUEST PROPOSAL: exit %d, want 0\n%s%s", code, out, stderr)
		}
		// What it takes away: every unused action, and the two used ones
		// on the resources they were not used on.
		var want []string
		for _, a := range append(unused, "ec2:CreateTags", "kms:DescribeKey") {
			want = append(want, a+" on *")
		}
		out, _, code := run(t, "diff", "--principal", r.Principal, p, request)
		if got := strings.Split(strings.TrimSpace(out), "\n"); code != 1 || !sameSet(got, want) {
			t.Errorf("diff PROPOSAL REQUEST: exit %d\n%s\nwant (in any order)\n%s", code, out, strings.Join(want, "\n"))
		}
	})
	kept := proposal("--keep-resources")
	if len(kept) != 1 || kept[0].Resource != "*" || !slices.Equal(kept[0].Action, used) {
		t.Errorf("--keep-resources: %+v, want the six used actions on *", kept)
	}

	t.Run("a window keeps only its calls", func(t *testing.T) {
		stdout, stderr, code := run(t, trailAudit("--since", "2026-11-30T13:00:00Z", "--output", "json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r usage.Report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		if got, want := r.UsedActions(), []string{"elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:DescribeLoadBalancers", "kms:DescribeKey"}; !slices.Equal(got, want) {
			t.Errorf("used since 13:00: %v, want %v", got, want)
		}
	})
}

// TestAuditRequestRefusals: bad input names the flag and the fix.
func TestAuditRequestRefusals(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"not NAMESPACE/NAME", []string{"audit", "--request", "ccm", "-f", trailDir, "--trail-dir", trailDir}, `"ccm": give NAMESPACE/NAME`},
		{"a request the folder lacks", []string{"audit", "--request", "kube-system/nope", "-f", filepath.Join("..", "..", "examples", "ccm"), "--trail-dir", trailDir}, "no CredentialsRequest kube-system/nope in"},
		{"--principal beside --request", append(trailAudit(), "--principal", "arn:aws:iam::111122223333:role/x"), "drop --principal"},
		{"--policy beside --request", append(trailAudit(), "--policy"), "drop --policy"},
		{"--proof without --propose", append(trailAudit(), "--proof", "p.jsonl"), "add --propose"},
		{"-f and --kubeconfig", append(trailAudit(), "--kubeconfig", "k"), "-f and --kubeconfig both"},
		// The trail holds a role of the request's role's name in another
		// account: known by name only (-f), it is not guessed between them.
		{"a name in two accounts' trails", []string{"audit", "--request", "kube-system/aws-cloud-controller-manager-sts", "-f", filepath.Join("..", "..", "examples", "ccm-sts"), "--mode", "STS", "--trail-dir", trailDir},
			"in several accounts (arn:aws:iam::111122223333:role/leash/leash/leash-kube-system-aws-cloud-controller-manager-sts-3hsu32ev, arn:aws:iam::444455556666:role/leash/leash/leash-kube-system-aws-cloud-controller-manager-sts-3hsu32ev): give the one leash apply provisioned with --account ID"},
		{"--propose without --request", []string{"audit", "--trail-dir", trailDir, "--propose"}, "add --request NAMESPACE/NAME"},
		{"--propose with --output", append(trailAudit(), "--propose", "--output", "json"), "drop --output"},
		{"a Passthrough request", []string{"audit", "--request", "kube-system/aws-cloud-controller-manager", "-f", filepath.Join("..", "..", "examples", "ccm"), "--mode", "Passthrough", "--trail-dir", trailDir}, "its credentials are not its own"},
		{"nothing used: no proposal", []string{"audit", "--request", "kube-system/aws-cloud-controller-manager", "-f", filepath.Join("..", "..", "examples", "ccm"), "--trail-dir", trailDir, "--propose"}, "used none of the actions the request allows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.says) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %s; want 2 saying %q", code, stdout, stderr, tt.says)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}
