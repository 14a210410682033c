package admission

import (
	"strings"
	"testing"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/workload"
)

func ids(findings []analyze.Finding) string {
	var out []string
	for _, f := range findings {
		out = append(out, f.ID)
	}
	return strings.Join(out, ",")
}

// TestJudge pins what validation refuses and what it only warns about, from
// the findings of leash check workload.
func TestJudge(t *testing.T) {
	hostNetwork := `---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: apps, labels: {app: app}}
spec:
  hostNetwork: true
  containers:
  - name: app
    image: app:1
    env: [{name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws/credentials}, {name: AWS_EC2_METADATA_DISABLED, value: "true"}]
    volumeMounts: [{name: aws, mountPath: /etc/aws}]
  volumes: [{name: aws, secret: {secretName: app-credentials}}]
`
	metadata := `---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: apps, labels: {app: app}, annotations: {leash.dev/imds: metadata}}
spec:
  hostNetwork: true
  containers:
  - name: app
    image: app:1
    env: [{name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws/credentials}]
    volumeMounts: [{name: aws, mountPath: /etc/aws}]
  volumes: [{name: aws, secret: {secretName: app-credentials}}]
`
	tlsOnly := strings.ReplaceAll(strings.ReplaceAll(hostNetwork, "app-credentials", "app-tls"), "AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws/credentials", "TLS_DIR, value: /etc/aws")
	tests := []struct {
		name, manifests    string
		refuseAt           analyze.Severity
		refuse, warn, with string // IDs; with: a text the refusal's fix holds
	}{
		{"host network refuses at high, and the egress finding (medium) is a warning", hostNetwork, analyze.High, "LEASH-WL-001", "LEASH-WL-006", ""},
		{"at medium both refuse", hostNetwork, analyze.Medium, "LEASH-WL-001,LEASH-WL-006", "", ""},
		{"at critical the host network alone refuses", hostNetwork, analyze.Critical, "LEASH-WL-001", "LEASH-WL-006", ""},
		{"the metadata profile without the node role's policies refuses, naming the operator's flag", metadata, analyze.High, "LEASH-WL-011", "", "leash operator --node-role-policy"},
		{"a pod that receives no leash credential has no verdict", tlsOnly, analyze.Info, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := workload.Parse("m.yaml", []byte(setRequests+tt.manifests))
			if err != nil {
				t.Fatal(err)
			}
			v := Judge(s, s.Pods[0], tt.refuseAt)
			if ids(v.Refuse) != tt.refuse || ids(v.Warn) != tt.warn {
				t.Errorf("refuse %q warn %q, want %q and %q", ids(v.Refuse), ids(v.Warn), tt.refuse, tt.warn)
			}
			msg := refusal(v.Refuse)
			for _, f := range v.Refuse {
				if !strings.Contains(msg, f.ID+" (") || !strings.Contains(msg, f.Message) || !strings.Contains(msg, "fix: "+f.Fix) {
					t.Errorf("refusal %q lacks %s's ID, message or fix", msg, f.ID)
				}
			}
			if tt.with != "" && !strings.Contains(msg, tt.with) {
				t.Errorf("refusal %q does not say %q", msg, tt.with)
			}
		})
	}
}

// apiAccessPod is an STS pod as a cluster's ServiceAccount admission leaves
// it before the webhooks run: a kube-api-access-* projected volume with a
// token for the API server itself (no audience), its CA and the namespace,
// mounted in every container. leash check workload never sees that volume.
// https://kubernetes.io/docs/concepts/security/service-accounts/#get-a-token
const apiAccessPod = `---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: apps, labels: {app: app}, annotations: {leash.dev/credentials: role}}
spec:
  serviceAccountName: app
  initContainers:
  - name: init
    image: app:1
    volumeMounts: [{name: kube-api-access-x8k2p, mountPath: /var/run/secrets/kubernetes.io/serviceaccount, readOnly: true}]
  containers:
  - name: app
    image: app:1
    volumeMounts: [{name: kube-api-access-x8k2p, mountPath: /var/run/secrets/kubernetes.io/serviceaccount, readOnly: true}]
  volumes:
  - name: kube-api-access-x8k2p
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken: {expirationSeconds: 3607, path: token}
      - configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}
      - downwardAPI: {items: [{path: namespace, fieldRef: {apiVersion: v1, fieldPath: metadata.namespace}}]}
`

// TestJudgeBesideTheAPIServerToken pins that validation judges the STS
// request's token, not the API server's: the pod admission wired is
// admitted with no finding at all, and one wired with a token for another
// audience than the roles trust is refused once, for that token.
func TestJudgeBesideTheAPIServerToken(t *testing.T) {
	for _, tt := range []struct {
		name     string
		audience string // the audience the pod is wired for
		refuse   string
	}{
		{"the pod as the mutating webhook wires it is admitted", "", ""},
		{"the pod wired for another audience is refused once, for leash's token", "sts.example.internal", "LEASH-WL-005"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := workload.Parse("m.yaml", []byte(setRequests+apiAccessPod))
			if err != nil {
				t.Fatal(err)
			}
			if err := WireSet(s, Wiring{Mode: leashv1.ModeManual, Audience: tt.audience}); err != nil {
				t.Fatal(err)
			}
			v := Judge(s, s.Pods[0], analyze.Info)
			if ids(v.Refuse) != tt.refuse || len(v.Warn) != 0 {
				t.Errorf("refuse %q warn %q, want %q and none\n%s", ids(v.Refuse), ids(v.Warn), tt.refuse, refusal(v.Refuse))
			}
		})
	}
}
