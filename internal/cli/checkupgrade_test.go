package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/upgrade"
)

// The OpenShift manifests (test/e2e/testdata/openshift, each unchanged from
// its operator's repository) and two older versions of them from the same
// repositories' history (test/e2e/testdata/openshift-previous, README.md
// there says which commits).
var (
	openshiftNext     = filepath.Join("..", "..", "test", "e2e", "testdata", "openshift")
	openshiftPrevious = filepath.Join("..", "..", "test", "e2e", "testdata", "openshift-previous")
)

const openshiftNS = "openshift-cloud-credential-operator"

// upgradeReport reads --output json.
type upgradeReport struct {
	Requests []upgrade.Result `json:"requests"`
	Summary  upgrade.Summary  `json:"summary"`
}

func readUpgradeReport(t *testing.T, stdout string) upgradeReport {
	t.Helper()
	var r upgradeReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("--output json: %v\n%s", err, stdout)
	}
	return r
}

// checkUpgrade runs leash check upgrade against the incident's leash local,
// with its administrator's key.
func (in *incident) checkUpgrade(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return run(t, append([]string{"check", "upgrade", "--endpoint", in.l.URL, "--credentials-file", in.adminFile}, args...)...)
}

// applyFolder runs leash apply -f dir against the incident's leash local and
// returns its exit status; the cluster API and machine API requests hold
// escalation findings that their namespace is allowed.
func (in *incident) applyFolder(t *testing.T, dir string, extra ...string) (string, int) {
	t.Helper()
	args := append([]string{"apply", "-f", dir, "--endpoint", in.l.URL, "--data", filepath.Dir(in.adminFile),
		"--out", filepath.Join(t.TempDir(), "secrets"), "--escalation-namespaces", openshiftNS}, extra...)
	stdout, stderr, code := run(t, args...)
	return stdout + stderr, code
}

// copyFolder makes a folder of the files, each under its base name; replace
// maps a base name to the text to write instead.
func copyFolder(t *testing.T, files []string, replace map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := replace[filepath.Base(f)]; ok {
			data = []byte(r)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openshiftFiles are the twelve manifests leash apply takes as one folder:
// the fourteen without the two whose requests a later file replaces.
func openshiftFiles(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(openshiftNext, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(f string) bool {
		b := filepath.Base(f)
		return b == "aws-load-balancer-controller-minify.yaml" || b == "aws-ebs-csi-driver-operator.yaml"
	})
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// noAllow is the engine's reason when no identity policy allows a request
// (an implicit deny: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
const noAllow = "no identity-based policy statement allows the action on the resource"

// TestCheckUpgradeOpenShiftRelease provisions the OpenShift operators'
// requests with two of them at an older version, as a cluster installed
// before them holds them, and checks the current release against those
// credentials: exactly what the two newer versions add is missing, with the
// engine's reason; once leash apply provisions the current versions, nothing
// is.
func TestCheckUpgradeOpenShiftRelease(t *testing.T) {
	in := startIncident(t)
	files := openshiftFiles(t)
	if len(files) != 12 {
		t.Fatalf("%d OpenShift manifests, want 12", len(files))
	}
	next := copyFolder(t, files, nil)
	current := copyFolder(t, files, map[string]string{
		"cluster-ingress-operator.yaml":         readText(t, filepath.Join(openshiftPrevious, "cluster-ingress-operator.yaml")),
		"cluster-storage-operator-aws-ebs.yaml": readText(t, filepath.Join(openshiftPrevious, "cluster-storage-operator-aws-ebs.yaml")),
	})
	// The EFS driver's manifest is a template: apply refuses it, and the
	// others are made (exit 1 for the one refused).
	if out, code := in.applyFolder(t, current); code != 1 || !strings.Contains(out, "UnrenderedTemplate") {
		t.Fatalf("apply the current folder: exit %d, want 1 for the EFS template alone\n%s", code, out)
	}

	// What each newer version adds, written by hand from `git diff` of the
	// upstream files (README.md of openshift-previous): the ingress
	// operator's b37da5ae..acca9642 adds sts:AssumeRole; the storage
	// operator's e6783b05..bb8d2fd1 adds six EC2 actions and kms:ReEncrypt*,
	// which AWS's service authorization reference expands to kms:ReEncryptFrom
	// and kms:ReEncryptTo (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awskeymanagementservice.html).
	wantMissing := map[string][]string{
		"openshift-ingress": {"sts:AssumeRole on *"},
		"aws-ebs-csi-driver-operator": {
			"ec2:DescribeAvailabilityZones on *", "ec2:EnableFastSnapshotRestores on *",
			"ec2:DescribeInstanceTypes on *", "ec2:DescribeVolumeStatus on *", "ec2:CopyVolumes on *", "ec2:LockSnapshot on *",
			"kms:ReEncryptFrom on *", "kms:ReEncryptTo on *",
		},
	}
	const efs = "openshift-aws-efs-csi-driver"

	stdout, stderr, code := in.checkUpgrade(t, "--next", next, "-f", current, "--output", "json")
	if code != 1 {
		t.Fatalf("check upgrade: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	rep := readUpgradeReport(t, stdout)
	states := map[upgrade.State]int{}
	for _, r := range rep.Requests {
		states[r.State]++
		var got []string
		for _, m := range r.Missing {
			got = append(got, m.Action+" on "+m.Resource)
			if m.Reason != noAllow || m.Condition != "" {
				t.Errorf("%s: %+v, want no condition and the reason %q", r.Name, m, noAllow)
			}
		}
		want, changed := wantMissing[r.Name]
		switch {
		case changed:
			slices.Sort(got)
			slices.Sort(want)
			if r.State != upgrade.Missing || !slices.Equal(got, want) {
				t.Errorf("%s: %s, missing %q; want missing exactly %q", r.Name, r.State, got, want)
			}
		case r.Name == efs:
			if r.State != upgrade.Failed || !strings.Contains(r.Message, "spec.secretRef.namespace") || !strings.Contains(r.Message, "template") {
				t.Errorf("%s: %s %q, want failed as a template naming spec.secretRef.namespace", r.Name, r.State, r.Message)
			}
		case r.State == upgrade.Ignored:
			if !strings.Contains(r.Message, "for another cloud") {
				t.Errorf("%s: ignored saying %q", r.Name, r.Message)
			}
		case r.State != upgrade.OK || len(r.Missing) != 0:
			t.Errorf("%s: %s, missing %v; want ok", r.Name, r.State, r.Missing)
		case !strings.HasPrefix(r.Principal, "arn:aws:iam::"+incidentAccount+":user/leash/leash/"):
			t.Errorf("%s: principal %q, want the user leash apply minted", r.Name, r.Principal)
		}
	}
	wantSummary := upgrade.Summary{Requests: 31, OK: 9, Missing: 2, Permissions: 9, Ignored: 19, Failed: 1}
	if rep.Summary != wantSummary || states[upgrade.OK] != 9 {
		t.Errorf("summary %+v, want %+v", rep.Summary, wantSummary)
	}

	// The text form: a block per request, names and the summary.
	stdout, _, code = in.checkUpgrade(t, "--next", next, "-f", current)
	ingress := rep.Requests[slices.IndexFunc(rep.Requests, func(r upgrade.Result) bool { return r.Name == "openshift-ingress" })]
	for _, want := range []string{
		openshiftNS + "/openshift-ingress  " + ingress.Principal + "  MISSING 1\n  sts:AssumeRole on *: " + noAllow + "\n",
		openshiftNS + "/aws-ebs-csi-driver-operator  ",
		"  MISSING 8\n  ec2:DescribeAvailabilityZones on *: " + noAllow + "\n",
		openshiftNS + "/" + efs + "  -  FAILED\n  UnrenderedTemplate: spec.secretRef.namespace: ",
		openshiftNS + "/openshift-ingress-azure  -  IGNORED\n",
		"\n31 requests: 9 ok, 2 missing (9 permissions), 0 new, 19 ignored, 1 failed: not upgradeable as is\n",
	} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("text: exit %d, want 1 and %q in:\n%s", code, want, stdout)
		}
	}

	// The upgrade: the current versions provisioned, with the EFS template
	// rendered as the EFS operator renders it (its namespace), the check
	// finds nothing missing.
	rendered := copyFolder(t, files, map[string]string{
		"aws-efs-csi-driver-operator.yaml": strings.ReplaceAll(readText(t, filepath.Join(openshiftNext, "aws-efs-csi-driver-operator.yaml")),
			"${NAMESPACE}", "openshift-cluster-csi-drivers"),
	})
	if out, code := in.applyFolder(t, rendered); code != 0 {
		t.Fatalf("apply the next release: exit %d\n%s", code, out)
	}
	stdout, stderr, code = in.checkUpgrade(t, "--next", rendered, "-f", rendered, "--output", "json")
	rep = readUpgradeReport(t, stdout)
	if want := (upgrade.Summary{Requests: 31, OK: 12, Ignored: 19}); code != 0 || rep.Summary != want {
		t.Errorf("after the upgrade: exit %d, summary %+v, want 0 and %+v\n%s%s", code, rep.Summary, want, stdout, stderr)
	}
	for _, r := range rep.Requests {
		if r.State != upgrade.OK && r.State != upgrade.Ignored {
			t.Errorf("after the upgrade %s: %s %v %s", r.Name, r.State, r.Missing, r.Message)
		}
	}
}

// reportsRequest is a request for the reports exporter, granting actions on
// its bucket's objects.
func reportsRequest(name string, actions ...string) string {
	return `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: ` + name + `
  namespace: reports
spec:
  secretRef:
    name: ` + name + `
    namespace: reports
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - effect: Allow
      action: [` + strings.Join(actions, ", ") + `]
      resource: arn:aws:s3:::krops-reports/*
`
}

func writeFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCheckUpgradeBadInput: flags that say nothing checkable exit 2 naming
// the flag and the fix; a request whose principal IAM no longer knows fails
// (exit 1) naming the request and how to provision it again.
func TestCheckUpgradeBadInput(t *testing.T) {
	in := startIncident(t)
	current := writeFolder(t, map[string]string{"exporter.yaml": reportsRequest("exporter", "s3:GetObject")})
	if out, code := in.applyFolder(t, current); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	file := filepath.Join(current, "exporter.yaml")
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no --next is bad input", []string{"-f", current}, "--next DIR is required"},
		{"a --next that is not there is bad input", []string{"--next", filepath.Join(current, "nope"), "-f", current}, "nope: no such file or directory; give the folder"},
		{"a --next that is a file is bad input", []string{"--next", file, "-f", current}, "exporter.yaml: is a file; give the folder that holds it"},
		{"no current credentials is bad input", []string{"--next", current}, "say where the current credentials are: -f DIR"},
		{"both -f and --kubeconfig is bad input", []string{"--next", current, "-f", current, "--kubeconfig", file}, "-f and --kubeconfig: give one"},
		{"--cluster-name with --kubeconfig is bad input", []string{"--next", current, "--kubeconfig", file, "--cluster-name", "prod"}, "with --kubeconfig each request's status.principal names its own"},
		{"an unknown --output is bad input", []string{"--next", current, "-f", current, "--output", "yaml"}, `--output "yaml": use text or json`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := in.checkUpgrade(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 saying %q\n%s", code, stderr, tt.stderr, stdout)
			}
		})
	}

	t.Run("a request new in the next release is provisioned at upgrade", func(t *testing.T) {
		next := writeFolder(t, map[string]string{"exporter.yaml": reportsRequest("exporter", "s3:GetObject"), "importer.yaml": reportsRequest("importer", "s3:PutObject")})
		stdout, stderr, code := in.checkUpgrade(t, "--next", next, "-f", current)
		if code != 0 || !strings.Contains(stdout, "reports/importer  -  NEW: provisioned at upgrade\n") || !strings.Contains(stdout, "1 ok, 0 missing (0 permissions), 1 new") {
			t.Errorf("exit %d, want 0 with importer new\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("a Passthrough request is checked against the root credentials", func(t *testing.T) {
		passthrough := strings.Replace(reportsRequest("exporter", "s3:GetObject"), "  namespace: reports\n", "  namespace: reports\n  annotations:\n    leash.dev/mode: Passthrough\n", 1)
		dir := writeFolder(t, map[string]string{"exporter.yaml": passthrough})
		stdout, stderr, code := in.checkUpgrade(t, "--next", dir, "-f", dir, "--output", "json")
		rep := readUpgradeReport(t, stdout)
		if code != 0 || len(rep.Requests) != 1 || rep.Requests[0].State != upgrade.OK ||
			!strings.HasPrefix(rep.Requests[0].Message, "Passthrough: checked against the root credentials") || !strings.HasPrefix(rep.Requests[0].Principal, "arn:aws:iam::"+incidentAccount+":") {
			t.Errorf("exit %d, want 0 with the request ok against the administrator, saying so\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("a principal IAM no longer knows fails its request, naming the fix", func(t *testing.T) {
		ctx := context.Background()
		users, err := in.admin.ListUsers(ctx, &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
		if err != nil || len(users.Users) != 1 {
			t.Fatalf("minted users: %v, %v", users, err)
		}
		deleteUser(t, in.admin, *users.Users[0].UserName)
		stdout, stderr, code := in.checkUpgrade(t, "--next", current, "-f", current)
		want := "reports/exporter  " + *users.Users[0].UserName + "  FAILED\n  IAM has no user " + *users.Users[0].UserName +
			", the principal the request holds now (deleted?): run leash apply -f " + current + " to provision it again"
		if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "1 failed: not upgradeable") {
			t.Errorf("exit %d, want 1 with\n%s\nin:\n%s%s", code, want, stdout, stderr)
		}
	})
}

// deleteUser deletes a minted user as IAM requires: its keys and inline
// policies first (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_users_remove.html).
func deleteUser(t *testing.T, admin *iam.Client, name string) {
	t.Helper()
	ctx := context.Background()
	keys, err := admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys.AccessKeyMetadata {
		if _, err := admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String(name), AccessKeyId: k.AccessKeyId}); err != nil {
			t.Fatal(err)
		}
	}
	policies, err := admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies.PolicyNames {
		if _, err := admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(p)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
}

// TestCheckUpgradeBoundaryAndDenyRefuse: an action the principal's own
// policy allows is still missing when its permissions boundary does not
// allow it, or a Deny refuses it, as AWS decides
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html,
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
func TestCheckUpgradeBoundaryAndDenyRefuse(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	boundary, err := in.admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("reports-boundary"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject","iam:GetUser"],"Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	folder := writeFolder(t, map[string]string{"exporter.yaml": reportsRequest("exporter", "s3:GetObject", "s3:PutObject", "s3:DeleteObject")})
	if out, code := in.applyFolder(t, folder, "--permissions-boundary", *boundary.Policy.Arn); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	users, err := in.admin.ListUsers(ctx, &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
	if err != nil || len(users.Users) != 1 {
		t.Fatalf("minted users: %v, %v", users, err)
	}
	user := *users.Users[0].UserName

	missing := func(t *testing.T) []upgrade.Permission {
		t.Helper()
		stdout, stderr, code := in.checkUpgrade(t, "--next", folder, "-f", folder, "--output", "json")
		rep := readUpgradeReport(t, stdout)
		if code != 1 || len(rep.Requests) != 1 || rep.Requests[0].State != upgrade.Missing {
			t.Fatalf("exit %d, want 1 with the request missing a permission\n%s%s", code, stdout, stderr)
		}
		return rep.Requests[0].Missing
	}
	t.Run("the boundary does not allow s3:DeleteObject", func(t *testing.T) {
		got := missing(t)
		want := []upgrade.Permission{{Action: "s3:DeleteObject", Resource: "arn:aws:s3:::krops-reports/*", Reason: "the permissions boundary does not allow the action on the resource"}}
		if !slices.Equal(got, want) {
			t.Errorf("missing %+v, want %+v", got, want)
		}
	})
	t.Run("a Deny refuses s3:PutObject", func(t *testing.T) {
		if _, err := in.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("freeze"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:PutObject","Resource":"*"}]}`)}); err != nil {
			t.Fatal(err)
		}
		got := missing(t)
		if len(got) != 2 || got[0].Action != "s3:PutObject" || !strings.HasPrefix(got[0].Reason, "explicitly denied by ") || !strings.Contains(got[0].Reason, "freeze") ||
			got[1].Action != "s3:DeleteObject" {
			t.Errorf("missing %+v, want s3:PutObject explicitly denied by freeze, then s3:DeleteObject", got)
		}
	})
}

// TestCheckUpgradeStatusPrincipal: in a cluster, a request's current
// principal is the one its status records.
func TestCheckUpgradeStatusPrincipal(t *testing.T) {
	const user = "arn:aws:iam::111122223333:user/leash/prod/exporter"
	request := func(mode leashv1.CredentialsMode, principal string) *leashv1.CredentialsRequest {
		cr := &leashv1.CredentialsRequest{}
		cr.Namespace, cr.Name = "reports", "exporter"
		cr.Status.Mode, cr.Status.Principal = mode, principal
		return cr
	}
	for _, tt := range []struct {
		name string
		cr   *leashv1.CredentialsRequest
		want upgrade.Principal
		err  string
	}{
		{"a minted user is its status.principal", request(leashv1.ModeMint, user), upgrade.Principal{Kind: "user", Name: user}, ""},
		{"an STS role is its status.principal", request(leashv1.ModeSTS, "arn:aws:iam::111122223333:role/exporter"), upgrade.Principal{Kind: "role", Name: "arn:aws:iam::111122223333:role/exporter"}, ""},
		{"a Passthrough request is the root credentials, saying so", request(leashv1.ModePassthrough, "arn:aws:iam::111122223333:user/root-creds"),
			upgrade.Principal{Kind: "user", Name: "arn:aws:iam::111122223333:user/root-creds", Note: "Passthrough: checked against the operator's root credentials, which it hands out"}, ""},
		{"a request not provisioned fails naming kubectl describe", request(leashv1.ModeMint, ""), upgrade.Principal{}, "kubectl describe credentialsrequest -n reports exporter"},
		{"a principal that is not a user or role fails", request(leashv1.ModeMint, "arn:aws:sts::111122223333:federated-user/bob"), upgrade.Principal{}, "is not an IAM user or role"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := upgrade.StatusPrincipal(tt.cr)
			var f *upgrade.Failure
			if tt.err != "" && (!errors.As(err, &f) || !strings.Contains(f.Msg, tt.err)) {
				t.Errorf("error %v, want a failure saying %q", err, tt.err)
			}
			if tt.err == "" && (err != nil || got != tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := upgrade.StatusPrincipal(request(leashv1.ModeIgnored, "")); !errors.Is(err, upgrade.ErrNew) {
		t.Errorf("an ignored request: %v, want ErrNew (AWS credentials are made at upgrade)", err)
	}
}
