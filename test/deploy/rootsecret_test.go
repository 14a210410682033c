package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"leash.dev/leash/internal/apiserver"
)

// exampleKeyID is AWS's documented example access key ID.
const exampleKeyID = "AKIAIOSFODNN7EXAMPLE"

// rootCredentialsStep is the shell block of deploy/README.md's section "The
// root credentials": the documented way to create the root Secret.
func rootCredentialsStep(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The root credentials\n")
	if !ok {
		t.Fatal("deploy/README.md has no section \"The root credentials\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```bash\n")
	if !ok {
		t.Fatal("deploy/README.md's section \"The root credentials\" has no bash block")
	}
	block, _, _ = strings.Cut(block, "\n```")
	return block
}

// TestRootSecretStepKeepsTheKeyOutOfAnnotations runs deploy/README.md's
// step that creates the root Secret against a real API server and checks
// that the key lands in the Secret's data and in no annotation (nor
// anywhere else in its metadata). The step a README once gave, kubectl
// apply with stringData, is run beside it to show the check catches the
// copy client-side apply keeps in kubectl.kubernetes.io/last-applied-configuration.
func TestRootSecretStepKeepsTheKeyOutOfAnnotations(t *testing.T) {
	kubectl := kubectlPath(t)
	srv := apiserver.Start(t, apiserver.Options{})
	kubeconfig := srv.Kubeconfig(t, "leash-installer")
	applyStringData := `kubectl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata: {name: aws-creds, namespace: kube-system}
stringData:
  aws_access_key_id: "$AWS_ACCESS_KEY_ID"
  aws_secret_access_key: "$AWS_SECRET_ACCESS_KEY"
EOF`
	tests := []struct {
		name   string
		script string
		leaks  bool
	}{
		{"deploy/README.md's kubectl create secret keeps the key in the data only", rootCredentialsStep(t), false},
		{"kubectl apply with stringData copies the key into last-applied-configuration", applyStringData, true},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
			old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
			if err := srv.Client.Delete(ctx, old); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			secret := randomSecret(t)
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(cctx, "bash", "-euo", "pipefail", "-c", tt.script)
			cmd.Env = append(os.Environ(),
				"PATH="+filepath.Dir(kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"KUBECONFIG="+kubeconfig,
				"HOME="+t.TempDir(), // kubectl's discovery cache
				"AWS_ACCESS_KEY_ID="+exampleKeyID,
				"AWS_SECRET_ACCESS_KEY="+secret)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("the step failed: %v\n%s", err, strings.ReplaceAll(out.String(), secret, "<secret>"))
			}
			var s corev1.Secret
			if err := srv.Client.Get(ctx, key, &s); err != nil {
				t.Fatal(err)
			}
			if string(s.Data["aws_access_key_id"]) != exampleKeyID || string(s.Data["aws_secret_access_key"]) != secret {
				t.Errorf("Secret %s data holds keys %v, want the environment's key pair", key, keysOf(s.Data))
			}
			var holders []string
			for k, v := range s.Annotations {
				if strings.Contains(v, secret) {
					holders = append(holders, "annotation "+k)
				}
			}
			for _, f := range s.ManagedFields {
				if f.FieldsV1 != nil && strings.Contains(string(f.FieldsV1.Raw), secret) {
					holders = append(holders, "managedFields of "+f.Manager)
				}
			}
			if tt.leaks && len(holders) == 0 {
				t.Errorf("no annotation holds the key; want %s to show the check can see one", "kubectl.kubernetes.io/last-applied-configuration")
			}
			if !tt.leaks && len(holders) > 0 {
				t.Errorf("the secret key is in plain text in %s of Secret %s; want it in the data only", strings.Join(holders, ", "), key)
			}
		})
	}
}

// randomSecret is a secret access key made for this run: 40 characters of
// AWS's alphabet.
func randomSecret(t *testing.T) string {
	t.Helper()
	b := make([]byte, 30)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
