package cli

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
	"leash.dev/leash/policy"
)

const testIssuer = "https://oidc.example.com/prod"

// stsEnv is leash local in process, with its state in data, and the
// flags that point create-roles, delete, create-provider and check at it.
type stsEnv struct {
	l           *localaws.Loopback
	data, out   string
	admin       *iam.Client
	roles, read []string // flags for create-roles/delete, and for check/create-provider
}

func newSTSEnv(t *testing.T) *stsEnv { return newSTSEnvTrusting(t, nil) }

// newSTSEnvTrusting starts leash local trusting the issuers of jwks
// (issuer URL to JWKS file).
func newSTSEnvTrusting(t *testing.T, jwks map[string]string) *stsEnv {
	t.Helper()
	data := t.TempDir()
	ep := localtest.Start(t, localaws.Config{DataDir: data, JWKSFiles: jwks})
	l := ep.Loopback
	e := &stsEnv{l: l, data: data, out: filepath.Join(t.TempDir(), "secrets"), admin: ep.IAM(nil)}
	e.roles = []string{"--endpoint", l.URL, "--data", data, "--out", e.out}
	e.read = []string{"--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath()}
	return e
}

func (e *stsEnv) createProvider(t *testing.T, audience string) {
	t.Helper()
	if out, stderr, code := run(t, append([]string{"sts", "create-provider", "--oidc-issuer", testIssuer, "--audience", audience}, e.read...)...); code != 0 {
		t.Fatalf("create-provider: exit %d\n%s%s", code, out, stderr)
	}
}

func (e *stsEnv) createRoles(t *testing.T, dir string, extra ...string) (stdout, stderr string, code int) {
	t.Helper()
	args := append([]string{"sts", "create-roles", "-f", dir, "--oidc-issuer", testIssuer}, e.roles...)
	return run(t, append(args, extra...)...)
}

func (e *stsEnv) delete(t *testing.T, dir string) (stdout, stderr string, code int) {
	t.Helper()
	return run(t, append([]string{"sts", "delete", "-f", dir}, e.roles...)...)
}

// leashRoles lists the roles under leash's path, and localPolicies every
// customer managed policy: what create-roles may have made.
func (e *stsEnv) leashRoles(t *testing.T) []iamtypes.Role {
	t.Helper()
	out, err := e.admin.ListRoles(context.Background(), &iam.ListRolesInput{PathPrefix: aws.String("/leash/")})
	if err != nil {
		t.Fatal(err)
	}
	return out.Roles
}

func (e *stsEnv) localPolicies(t *testing.T) []string {
	t.Helper()
	out, err := e.admin.ListPolicies(context.Background(), &iam.ListPoliciesInput{Scope: iamtypes.PolicyScopeTypeLocal})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range out.Policies {
		names = append(names, aws.ToString(p.PolicyName))
	}
	return names
}

// roleRows maps each request of create-roles' table to its principal,
// failing on a row that is not a made role Ready, in mode STS (not Manual,
// the mode's name in the compatible API's status: the table says what leash
// did).
func roleRows(t *testing.T, stdout string, requests []string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for _, req := range requests {
		f := strings.Fields(lineOf(stdout, req))
		if len(f) < 5 || f[1] != "STS" || !strings.Contains(f[2], ":role/leash/") || f[len(f)-1] != "Ready" {
			t.Errorf("row for %s = %v, want STS, a role under /leash/, Ready\n%s", req, f, stdout)
			continue
		}
		rows[req] = f[2]
	}
	return rows
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix+" ") {
			return l
		}
	}
	return ""
}

func requestNames(t *testing.T, dir string) []string {
	t.Helper()
	crs, err := operator.ReadRequests(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cr := range crs {
		if cr.Annotations[operator.AnnotationMode] == string(leashv1.ModeBroker) {
			continue // left to leash apply and the operator
		}
		names = append(names, cr.Namespace+"/"+cr.Name)
	}
	return names
}

// brokerExample is the request of examples/broker: create-roles leaves it
// alone, and delete skips it, saying so.
const brokerExample = "reports/report-exporter"

// TestSTSCreateRolesExamplesPassCheck is the acceptance: every
// example request gets a role in leash local, trusted through the
// provider for exactly its service accounts and the audience; leash check
// --role on each finds nothing on its trust policy; the Secrets hold a
// web-identity file and no key; a second run changes nothing; delete
// removes the roles, their policies and the Secrets, and a second delete
// has nothing left to do.
func TestSTSCreateRolesExamplesPassCheck(t *testing.T) {
	ctx := context.Background()
	e := newSTSEnv(t)
	e.createProvider(t, "sts.amazonaws.com")
	examples := filepath.Join("..", "..", "examples")
	requests := requestNames(t, examples)

	stdout, stderr, code := e.createRoles(t, examples)
	if code != 0 {
		t.Fatalf("create-roles: exit %d\n%s%s", code, stdout, stderr)
	}
	principals := roleRows(t, stdout, requests)
	if want := brokerExample + ": left alone: it is in Broker mode"; !strings.Contains(stdout, want) || strings.Contains(lineOf(stdout, brokerExample), "Ready") {
		t.Errorf("create-roles stdout lacks %q, or made the Broker request a role:\n%s", want, stdout)
	}
	if got := len(e.leashRoles(t)); got != len(requests) {
		t.Errorf("%d roles under /leash/, want one per request (%d)", got, len(requests))
	}
	crs, _ := operator.ReadRequests(examples)
	for _, cr := range crs {
		req := cr.Namespace + "/" + cr.Name
		arn := principals[req]
		if arn == "" {
			continue
		}
		// The trust is the one common to all made roles: the provider,
		// StringEquals on sub for each service account, aud pinned.
		name := arn[strings.LastIndex(arn, "/")+1:]
		role, err := e.admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		have, err := policy.Parse([]byte(decodeTrust(t, aws.ToString(role.Role.AssumeRolePolicyDocument))), policy.Trust)
		if err != nil {
			t.Fatal(err)
		}
		var subs []string
		for _, sa := range cr.Spec.ServiceAccountNames {
			subs = append(subs, `"system:serviceaccount:`+cr.Spec.SecretRef.Namespace+`:`+sa+`"`)
		}
		want, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		  "Principal":{"Federated":"arn:aws:iam::`+e.l.AccountID()+`:oidc-provider/oidc.example.com/prod"},
		  "Action":"sts:AssumeRoleWithWebIdentity",
		  "Condition":{"StringEquals":{"oidc.example.com/prod:sub":[`+strings.Join(subs, ",")+`],"oidc.example.com/prod:aud":"sts.amazonaws.com"}}}]}`), policy.Trust)
		if err != nil {
			t.Fatal(err)
		}
		if !policy.Equivalent(have, want) {
			t.Errorf("%s: trust of %s is\n%s", req, name, aws.ToString(role.Role.AssumeRolePolicyDocument))
		}

		// leash check reads the role from IAM, trust policy included:
		// nothing on the trust at any severity, so none at or above medium.
		out, cerr, _ := run(t, append([]string{"check", "--role", arn, "--output", "json"}, e.read...)...)
		if ids := trustFindings(t, out); len(ids) != 0 {
			t.Errorf("%s: leash check finds %v on the trust of %s\n%s", req, ids, name, cerr)
		}
		if !strings.Contains(out, `"policies":`) || strings.Contains(cerr, "leash check:") {
			t.Errorf("%s: check did not review the role: %s%s", req, out, cerr)
		}

		// The Secret names the role and the token file; it holds no key.
		s := readSecretManifest(t, filepath.Join(e.out, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name+".yaml"))
		if len(s.Data) != 1 {
			t.Errorf("%s: Secret keys %v, want only credentials", req, keysOf(s.Data))
		}
		tokenPath := cr.Spec.CloudTokenPath
		if tokenPath == "" {
			tokenPath = "/var/run/secrets/openshift/serviceaccount/token"
		}
		if got, want := string(s.Data["credentials"]), credfile.WebIdentity(arn, tokenPath); got != want {
			t.Errorf("%s: credentials file\n%s\nwant\n%s", req, got, want)
		}
	}

	// Again: nothing changes in IAM (the only lines are the skipped
	// proofs, there being no API server to ask for a token).
	// With the administrator's key named by --credentials-file instead
	// of --data's, the same roles are found.
	again, stderr2, code := run(t, append([]string{"sts", "create-roles", "-f", examples, "--oidc-issuer", testIssuer, "--out", e.out}, e.read...)...)
	if code != 0 {
		t.Fatalf("second create-roles: exit %d\n%s%s", code, again, stderr2)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr2), "\n") {
		if l != "" && !strings.HasSuffix(l, "(ProofSkipped)") {
			t.Errorf("second create-roles changed something: %s", l)
		}
	}

	// delete leaves a role of the same path that leash did not make.
	foreign := "someone-elses"
	if _, err := e.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(foreign), Path: aws.String("/leash/leash/"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := e.delete(t, examples); code != 0 {
		t.Fatalf("delete: exit %d\n%s%s", code, out, stderr)
	}
	if roles := e.leashRoles(t); len(roles) != 1 || aws.ToString(roles[0].RoleName) != foreign {
		t.Errorf("after delete, roles under /leash/: %v; want only %s", roleNames(roles), foreign)
	}
	if ps := e.localPolicies(t); len(ps) != 0 {
		t.Errorf("after delete, managed policies left: %v", ps)
	}
	for _, cr := range crs {
		if _, err := os.Stat(filepath.Join(e.out, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name+".yaml")); !os.IsNotExist(err) {
			t.Errorf("%s/%s: Secret manifest left after delete (%v)", cr.Namespace, cr.Name, err)
		}
	}
	skipped := brokerExample + ": skipped: its mode is Broker, and create-roles makes nothing for it\n"
	if out, stderr, code := e.delete(t, examples); code != 0 || out != skipped || stderr != "" {
		t.Errorf("second delete: exit %d, want 0 and nothing said but the Broker request's skip, nothing being left\n%s%s", code, out, stderr)
	}
}

func decodeTrust(t *testing.T, doc string) string {
	t.Helper()
	// IAM returns the document URL-encoded; leash local as AWS does.
	if strings.HasPrefix(doc, "%7B") || strings.HasPrefix(doc, "%7b") {
		d, err := urlDecode(doc)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return doc
}

func readSecretManifest(t *testing.T, path string) *corev1.Secret {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &corev1.Secret{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func keysOf(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func roleNames(roles []iamtypes.Role) []string {
	var ns []string
	for _, r := range roles {
		ns = append(ns, aws.ToString(r.RoleName))
	}
	return ns
}

func urlDecode(s string) (string, error) { return url.QueryUnescape(s) }

// TestSTSCreateRolesProvesWithTheIssuerKey pins the proof create-roles
// makes with --oidc-issuer-dir: a token of the request's service account,
// signed with the issuer's key, is exchanged at leash local (which trusts
// the issuer's key set) before the Secret is written; a role whose trust
// refuses that token gets no Secret.
func TestSTSCreateRolesProvesWithTheIssuerKey(t *testing.T) {
	issuerDir := filepath.Join(t.TempDir(), "issuer")
	if out, stderr, code := run(t, "sts", "create-issuer", "--issuer-url", testIssuer, "--out", issuerDir); code != 0 {
		t.Fatalf("create-issuer: exit %d\n%s%s", code, out, stderr)
	}
	e := newSTSEnvTrusting(t, map[string]string{testIssuer: filepath.Join(issuerDir, "public", "keys.json")})
	e.createProvider(t, "sts.amazonaws.com")
	dir := filepath.Join("..", "..", "examples", "ccm-sts")
	args := append([]string{"sts", "create-roles", "-f", dir, "--oidc-issuer-dir", issuerDir}, e.roles...)
	stdout, stderr, code := run(t, args...)
	if code != 0 || strings.Contains(stderr, "ProofSkipped") {
		t.Fatalf("exit %d, want 0 with the role proven\n%s%s", code, stdout, stderr)
	}
	secret := filepath.Join(e.out, "kube-system", "cloud-controller-manager-sts-credentials.yaml")
	if _, err := os.Stat(secret); err != nil {
		t.Fatal(err)
	}

	// An endpoint holding another key set for the issuer (as AWS does
	// before the new keys.json is published) refuses the token: the
	// request fails with STS's refusal, and its Secret is not written.
	stale := filepath.Join(t.TempDir(), "stale")
	if out, stderr, code := run(t, "sts", "create-issuer", "--issuer-url", testIssuer, "--out", stale); code != 0 {
		t.Fatalf("create-issuer: exit %d\n%s%s", code, out, stderr)
	}
	other := newSTSEnvTrusting(t, map[string]string{testIssuer: filepath.Join(stale, "public", "keys.json")})
	other.createProvider(t, "sts.amazonaws.com")
	stdout, stderr, code = run(t, append([]string{"sts", "create-roles", "-f", dir, "--oidc-issuer-dir", issuerDir}, other.roles...)...)
	if code != 1 || !strings.Contains(stdout, "TokenRefused") {
		t.Fatalf("exit %d, want 1 and TokenRefused\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(other.out, "kube-system", "cloud-controller-manager-sts-credentials.yaml")); !os.IsNotExist(err) {
		t.Errorf("a Secret was written for a role not proven (%v)\n%s", err, stdout)
	}
}

// TestSTSCreateRolesLeavesANamedRoleAlone pins that a request naming its
// own role (stsIAMRoleARN) gets none made: its Secret names that role, and
// delete removes the Secret and never the role.
func TestSTSCreateRolesLeavesANamedRoleAlone(t *testing.T) {
	ctx := context.Background()
	e := newSTSEnv(t)
	e.createProvider(t, "sts.amazonaws.com")
	// The role trusts the request's ServiceAccount: one that did not would
	// leave the request RoleTrustRefuses.
	const provider = "oidc.example.com/prod"
	if _, err := e.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("reports-reader"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + e.l.AccountID() + `:oidc-provider/` + provider + `"},` +
			`"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"` + provider + `:aud":"sts.amazonaws.com","` + provider + `:sub":"system:serviceaccount:apps:reports"}}}]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("reports-reader"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	arn := "arn:aws:iam::" + e.l.AccountID() + ":role/reports-reader"
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "r.yaml"), `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: reports, namespace: apps}
spec:
  secretRef: {name: reports-credentials, namespace: apps}
  serviceAccountNames: [reports]
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    stsIAMRoleARN: `+arn+`
    statementEntries:
    - {effect: Allow, action: ["s3:GetObject"], resource: "*"}
`)
	stdout, stderr, code := e.createRoles(t, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if roles := e.leashRoles(t); len(roles) != 0 {
		t.Errorf("roles made for a request naming its own: %v", roleNames(roles))
	}
	secret := filepath.Join(e.out, "apps", "reports-credentials.yaml")
	s := readSecretManifest(t, secret)
	if got, want := string(s.Data["credentials"]), credfile.WebIdentity(arn, "/var/run/secrets/openshift/serviceaccount/token"); got != want {
		t.Errorf("credentials file\n%s\nwant\n%s", got, want)
	}
	if out, stderr, code := e.delete(t, dir); code != 0 {
		t.Fatalf("delete: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := e.admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("reports-reader")}); err != nil {
		t.Errorf("delete removed the request's own role: %v", err)
	}
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Errorf("delete left the Secret create-roles wrote (%v)", err)
	}
}
