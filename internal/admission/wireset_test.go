package admission

import (
	"strings"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/workload"
)

const setRequests = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: app, namespace: apps}
spec:
  secretRef: {name: app-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: role, namespace: apps}
spec:
  secretRef: {name: role-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, stsIAMRoleARN: "arn:aws:iam::111122223333:role/app", statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: apps}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - ports: [{protocol: TCP, port: 443}]
    to: [{ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}}]
`

func deployment(annotations, extra string) string {
	return `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: apps}
spec:
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}, annotations: ` + annotations + `}
    spec:
      serviceAccountName: app
      initContainers: [{name: init, image: app:1}]
      containers:
      - name: app
        image: app:1
` + extra
}

// TestWireSetThenCheck pins that leash check workload judges an annotated
// pod as admission stores it: wired, it has no finding; left unwired, it
// has the findings of a pod without its credentials' settings.
func TestWireSetThenCheck(t *testing.T) {
	sa := func(v string) string {
		return "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app, namespace: apps, annotations: {leash.dev/credentials: " + v + "}}\n"
	}
	tests := []struct {
		name, manifests string
		// wired and checked are the operator's audience and the one the
		// check expects (empty: sts.amazonaws.com).
		wired, checked string
		want           string // finding IDs after wiring
	}{
		{"a key request named on the pod", deployment("{leash.dev/credentials: app}", ""), "", "", ""},
		{"a key request named on the ServiceAccount only", deployment("{}", "") + sa("app"), "", "", ""},
		{"an STS request gets the token its check asks for", deployment("{leash.dev/credentials: role}", ""), "", "", ""},
		{"an STS request wired for the cluster's own audience checks clean against it",
			deployment("{leash.dev/credentials: role}", ""), "sts.example.internal", "sts.example.internal", ""},
		{"a token for another audience than the roles trust is LEASH-WL-005",
			deployment("{leash.dev/credentials: role}", ""), "", "sts.example.internal", "LEASH-WL-005"},
		{"a pod that sets AWS_EC2_METADATA_DISABLED=false keeps it, and check reports it",
			deployment("{leash.dev/credentials: app}", "        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"false\"}]\n"), "", "", "LEASH-WL-002"},
		{"a missing request is not wired and is reported", deployment("{leash.dev/credentials: gone}", ""), "", "", "LEASH-WL-012"},
		{"the containers the pod names are wired; the sidecar and init container left out are not judged",
			deployment("{leash.dev/credentials: app, leash.dev/credentials-containers: app}", "      - {name: sidecar, image: sidecar:1}\n"), "", "", ""},
		{"a container name the pod does not have is not wired and is reported",
			deployment("{leash.dev/credentials: app, leash.dev/credentials-containers: sidecar}", ""), "", "", "LEASH-WL-014"},
		{"an init container that sets AWS_EC2_METADATA_DISABLED=false keeps it, and check reports it",
			strings.Replace(deployment("{leash.dev/credentials: app}", ""), "initContainers: [{name: init, image: app:1}]", `initContainers: [{name: init, image: app:1, env: [{name: AWS_EC2_METADATA_DISABLED, value: "false"}]}]`, 1), "", "", "LEASH-WL-002"},
		{"a variable set twice keeps its last value, false, and check reports it",
			deployment("{leash.dev/credentials: app}", "        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"true\"}, {name: AWS_EC2_METADATA_DISABLED, value: \"false\"}]\n"), "", "", "LEASH-WL-002"},
		{"a volume at leash's credentials path is kept, and check reports it as LEASH-WL-003",
			deployment("{leash.dev/credentials: app}", "        volumeMounts: [{name: cache, mountPath: /var/run/secrets/leash.dev/credentials}]\n      volumes: [{name: cache, emptyDir: {}}]\n"), "", "", "LEASH-WL-003"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := workload.Parse("m.yaml", []byte(setRequests+tt.manifests))
			if err != nil {
				t.Fatal(err)
			}
			if err := WireSet(s, Wiring{Mode: leashv1.ModeManual, Audience: tt.wired}); err != nil {
				t.Fatal(err)
			}
			s.Audience = tt.checked
			var ids []string
			for _, f := range workload.Check(s) {
				ids = append(ids, f.ID)
			}
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want %q", ids, tt.want)
			}
		})
	}
}
