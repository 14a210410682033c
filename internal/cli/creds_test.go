package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/apiserver"
)

// AWS's documented example keys, and a secret and token made for the run.
const (
	credsExampleID     = "AKIAIOSFODNN7EXAMPLE"
	credsExampleTempID = "ASIAIOSFODNN7EXAMPLE"
	credsExampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func randomValue(t *testing.T) string {
	t.Helper()
	b := make([]byte, 30)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// assertNoSecret fails when any of values is in the output.
func assertNoSecret(t *testing.T, output string, values ...string) {
	t.Helper()
	for _, v := range values {
		if v != "" && strings.Contains(output, v) {
			t.Errorf("the output shows a secret value:\n%s", output)
		}
	}
}

func TestCredsInspect(t *testing.T) {
	secret, token := randomValue(t), randomValue(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, file, content string
		code                int
		want                []string // lines of the text output
		jsonMode            string
	}{
		{"static", "credentials", credfile.Static(credsExampleID, credsExampleSecret, ""), 0,
			[]string{"mode: static keys", "keys: aws_access_key_id, aws_secret_access_key", "key ID: long-term (AKIA)"}, credfile.ModeStatic},
		{"temporary", "credentials", credfile.Static(credsExampleTempID, secret, token), 0,
			[]string{"mode: temporary", "keys: aws_access_key_id, aws_secret_access_key, aws_session_token", "key ID: temporary (ASIA)"}, credfile.ModeTemporary},
		{"web identity", "credentials", credfile.WebIdentity("arn:aws:iam::111122223333:role/r", "/var/run/token"), 0,
			[]string{"mode: web identity", "keys: role_arn, sts_regional_endpoints, web_identity_token_file"}, credfile.ModeWebIdentity},
		{"empty", "credentials", "", 1, []string{"mode: empty", "keys: "}, credfile.ModeEmpty},
		{"malformed", "credentials", "[default]\naws_access_key_id = " + credsExampleID + "\n" + secret + "\n", 1,
			[]string{"mode: malformed", "problem: line 3: expected key = value"}, credfile.ModeMalformed},
		{"half pair", "credentials", "[default]\naws_secret_access_key = " + secret + "\n", 1,
			[]string{"mode: malformed", "keys: aws_secret_access_key", "problem: aws_secret_access_key without aws_access_key_id"}, credfile.ModeMalformed},
		{"token without key", "credentials", "[default]\naws_session_token = " + token + "\n", 1,
			[]string{"mode: malformed", "problem: aws_session_token without a key pair"}, credfile.ModeMalformed},
		{"Secret with base64 data", "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: b}\ndata:\n" +
			"  aws_access_key_id: " + b64(credsExampleID) + "\n  aws_secret_access_key: " + b64(credsExampleSecret) + "\n" +
			"  credentials: " + b64(credfile.Static(credsExampleID, credsExampleSecret, "")) + "\n", 0,
			[]string{"mode: static keys", "keys: aws_access_key_id, aws_secret_access_key, credentials", "key ID: long-term (AKIA)",
				"credentials file mode: static keys", "credentials file profiles: default"}, credfile.ModeStatic},
		{"Secret with stringData, sniffed", "secret", "kind: Secret\nstringData:\n  aws_access_key_id: " + credsExampleTempID +
			"\n  aws_secret_access_key: " + secret + "\n  aws_session_token: " + token + "\n", 0,
			[]string{"mode: temporary", "keys: aws_access_key_id, aws_secret_access_key, aws_session_token", "key ID: temporary (ASIA)"}, credfile.ModeTemporary},
		{"Secret whose keys and file disagree", "s.yml", "kind: Secret\nstringData:\n  aws_access_key_id: " + credsExampleID +
			"\n  aws_secret_access_key: " + secret + "\n  credentials: |\n" +
			"    [default]\n    aws_access_key_id = AKIAI44QH8DHBEXAMPLE\n    aws_secret_access_key = " + credsExampleSecret + "\n", 1,
			[]string{"mode: malformed", "problem: aws_access_key_id and the credentials file's [default] aws_access_key_id differ"}, credfile.ModeMalformed},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+"-"+tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "creds", "inspect", path)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			lines := strings.Split(out, "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("no line %q in\n%s", w, out)
				}
			}
			assertNoSecret(t, out+errOut, credsExampleSecret, secret, token)

			out, errOut, code = run(t, "creds", "inspect", path, "--output", "json")
			if code != tt.code {
				t.Errorf("--output json: exit %d, want %d", code, tt.code)
			}
			var r credfile.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil || r.Mode != tt.jsonMode {
				t.Errorf("--output json: mode %q (%v), want %q\n%s", r.Mode, err, tt.jsonMode, out)
			}
			assertNoSecret(t, out+errOut, credsExampleSecret, secret, token)
		})
	}
}

func TestCredsInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	notYAML := filepath.Join(dir, "s.yaml")
	configMap := filepath.Join(dir, "cm.yaml")
	for p, content := range map[string]string{notYAML: "kind: Secret\ndata: [\n", configMap: "kind: ConfigMap\n"} {
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{filepath.Join(dir, "missing")}, {notYAML}, {configMap},
		{configMap, "--output", "xml"}, {configMap, "--format", "ini"},
	} {
		if _, errOut, code := run(t, append([]string{"creds", "inspect"}, args...)...); code != ExitBadInput || !strings.HasPrefix(errOut, "leash creds inspect: ") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

func setKeys(t *testing.T, id, secret, token string) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", id)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", token)
}

func TestCredsSeedWritesAPrivateManifest(t *testing.T) {
	secret := randomValue(t)
	setKeys(t, credsExampleID, secret, "")
	path := filepath.Join(t.TempDir(), "secret.yaml")
	args := []string{"creds", "seed", "--namespace", "kube-system", "--name", "aws-creds", "--out", path}
	out, errOut, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	assertNoSecret(t, out+errOut, secret)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Kind != "Secret" || s.Namespace != "kube-system" || s.Name != "aws-creds" || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("manifest %s/%s %s %s", s.Namespace, s.Name, s.Kind, s.Type)
	}
	if string(s.Data["aws_access_key_id"]) != credsExampleID || string(s.Data["aws_secret_access_key"]) != secret {
		t.Error("the manifest's key pair is not the environment's")
	}
	if _, ok := s.Data["aws_session_token"]; ok {
		t.Error("aws_session_token without AWS_SESSION_TOKEN")
	}
	if r := credfile.Inspect(string(s.Data["credentials"])); r.Mode != credfile.ModeStatic || r.KeyIDClass != credfile.KeyIDLongTerm {
		t.Errorf("credentials file: %+v", r)
	}
	if r, err := credfile.InspectSecret(data); err != nil || r.Mode != credfile.ModeStatic {
		t.Errorf("manifest: %+v %v", r, err)
	}
	out, errOut, code = run(t, "creds", "inspect", path)
	if code != 0 || !strings.Contains(out, "mode: static keys") {
		t.Errorf("inspect the seeded manifest: exit %d\n%s%s", code, out, errOut)
	}
	assertNoSecret(t, out+errOut, secret)

	if _, errOut, code := run(t, args...); code != ExitBadInput || !strings.Contains(errOut, "--force") {
		t.Errorf("over an existing file: exit %d, %s", code, errOut)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, append(args, "--force")...); code != 0 {
		t.Errorf("--force: exit %d, %s", code, errOut)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("--force left the file's mode %v (%v)", info.Mode().Perm(), err)
	}
}

func TestCredsSeedTemporaryToStdout(t *testing.T) {
	secret, token := randomValue(t), randomValue(t)
	setKeys(t, credsExampleTempID, secret, token)
	args := []string{"creds", "seed", "--namespace", "ns", "--name", "n"}
	if out, errOut, code := run(t, args...); code != ExitBadInput || out != "" || !strings.Contains(errOut, "--stdout") {
		t.Errorf("without a destination: exit %d, %q %s", code, out, errOut)
	}
	out, errOut, code := run(t, append(args, "--stdout")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data["aws_session_token"]) != token {
		t.Error("aws_session_token is not AWS_SESSION_TOKEN")
	}
	if r := credfile.Inspect(string(s.Data["credentials"])); r.Mode != credfile.ModeTemporary || r.KeyIDClass != credfile.KeyIDTemporary {
		t.Errorf("credentials file: %+v", r)
	}
}

func TestCredsRefusePartialKeys(t *testing.T) {
	secret, token := randomValue(t), randomValue(t)
	tests := []struct{ name, id, secret, token, want string }{
		{"only the key ID", credsExampleID, "", "", "AWS_SECRET_ACCESS_KEY is not"},
		{"only the secret", "", secret, "", "AWS_ACCESS_KEY_ID is not"},
		{"only the secret and token", "", secret, token, "AWS_ACCESS_KEY_ID is not"},
		{"only a token", "", "", token, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not"},
		{"nothing", "", "", "", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setKeys(t, tt.id, tt.secret, tt.token)
			dir := t.TempDir()
			for _, args := range [][]string{
				{"creds", "seed", "--namespace", "ns", "--name", "n", "--out", filepath.Join(dir, "s.yaml")},
				{"creds", "encode", "--out", filepath.Join(dir, "c.b64")},
			} {
				out, errOut, code := run(t, args...)
				if code != ExitBadInput || !strings.Contains(errOut, tt.want) {
					t.Errorf("%s: exit %d, %s, want %q", args[1], code, errOut, tt.want)
				}
				assertNoSecret(t, out+errOut, secret, token)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %v", entries)
			}
		})
	}
}

func TestCredsEncodeDecode(t *testing.T) {
	secret, token := randomValue(t), randomValue(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		id, token, mode, class string
	}{
		{credsExampleID, "", credfile.ModeStatic, credfile.KeyIDLongTerm},
		{credsExampleTempID, token, credfile.ModeTemporary, credfile.KeyIDTemporary},
	} {
		setKeys(t, tt.id, secret, tt.token)
		path := filepath.Join(dir, tt.mode+".b64")
		out, errOut, code := run(t, "creds", "encode", "--out", path)
		if code != 0 {
			t.Fatalf("encode: exit %d: %s", code, errOut)
		}
		assertNoSecret(t, out+errOut, secret, token)
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("encode wrote %v (%v)", info, err)
		}
		data, _ := os.ReadFile(path)
		text, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
		if err != nil || string(text) != credfile.Static(tt.id, secret, tt.token) {
			t.Errorf("encoded %q is not the credentials file (%v)", data, err)
		}
		stdout, _, _ := run(t, "creds", "encode", "--stdout")
		if stdout != string(data) {
			t.Error("--stdout differs from --out")
		}
		for _, output := range []string{"text", "json"} {
			out, errOut, code = run(t, "creds", "decode", path, "--output", output)
			if code != 0 || !strings.Contains(out, tt.mode) || !strings.Contains(out, tt.class) {
				t.Errorf("decode --output %s: exit %d\n%s%s", output, code, out, errOut)
			}
			assertNoSecret(t, out+errOut, secret, token)
		}
	}
	notBase64 := filepath.Join(dir, "plain")
	if err := os.WriteFile(notBase64, []byte(credfile.Static(credsExampleID, secret, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "creds", "decode", notBase64)
	if code != ExitBadInput || !strings.Contains(errOut, "is not base64") {
		t.Errorf("decode of plain text: exit %d, %s", code, errOut)
	}
	assertNoSecret(t, out+errOut, secret)
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(base64.StdEncoding.EncodeToString([]byte("[default]\n"))), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, code := run(t, "creds", "decode", empty); code != ExitNo || !strings.Contains(out, "mode: empty") {
		t.Errorf("decode of an empty profile: exit %d\n%s", code, out)
	}
}

// TestCredsSeedAppliesToACluster seeds a Secret into a real API server
// twice: the second run, with a new key, updates it.
func TestCredsSeedAppliesToACluster(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	kubeconfig := srv.Kubeconfig(t, "admin")
	for _, id := range []string{credsExampleID, credsExampleTempID} {
		secret, token := randomValue(t), ""
		if id == credsExampleTempID {
			token = randomValue(t)
		}
		setKeys(t, id, secret, token)
		out, errOut, code := run(t, "creds", "seed", "--namespace", "default", "--name", "aws-creds", "--kubeconfig", kubeconfig)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		assertNoSecret(t, out+errOut, secret, token)
		var s corev1.Secret
		if err := srv.Client.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "aws-creds"}, &s); err != nil {
			t.Fatal(err)
		}
		if string(s.Data["aws_access_key_id"]) != id || string(s.Data["aws_secret_access_key"]) != secret ||
			string(s.Data["aws_session_token"]) != token {
			t.Errorf("the cluster's Secret does not hold the environment's key %s", id)
		}
		if r := credfile.Inspect(string(s.Data["credentials"])); r.KeyIDClass != credfile.ClassifyKeyID(id) || !r.Usable() {
			t.Errorf("credentials file: %+v", r)
		}
		// Server-side apply keeps no copy of the object: the key is in the
		// data only, not in kubectl.kubernetes.io/last-applied-configuration
		// as client-side apply would leave it (deploy/README.md).
		for k, v := range s.Annotations {
			if strings.Contains(v, secret) {
				t.Errorf("annotation %s of the Secret holds the secret key", k)
			}
		}
		for _, f := range s.ManagedFields {
			if f.FieldsV1 != nil && strings.Contains(string(f.FieldsV1.Raw), secret) {
				t.Errorf("the managedFields of %s hold the secret key", f.Manager)
			}
		}
	}
}
