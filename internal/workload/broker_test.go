package workload

import (
	"strings"
	"testing"
)

// brokerWired is a pod of a Broker-mode request as admission stores it:
// the agent as a native sidecar, the container-credentials variables, the
// broker's projected token, no Secret; with the egress policy the IMDS
// checks ask for.
const brokerWired = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: app, namespace: apps, annotations: {leash.dev/mode: Broker}}
spec:
  secretRef: {name: app-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: apps}
spec:
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}, annotations: {leash.dev/credentials: app, leash.dev/credentials-injected: apps/app}}
    spec:
      initContainers:
      - name: leash-broker-agent
        image: registry.example/leash:1.2.0
        command: [/leash, broker, agent]
        args: [--listen=127.0.0.1:9911, --upstream=https://leash-broker.leash-system.svc:8443, --upstream-ca=LS0t]
        restartPolicy: Always
        env:
        - {name: AWS_EC2_METADATA_DISABLED, value: "true"}
      containers:
      - name: app
        image: app:1
        env:
        - {name: AWS_CONTAINER_CREDENTIALS_FULL_URI, value: "http://127.0.0.1:9911/v1/credentials"}
        - {name: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, value: /var/run/secrets/leash.dev/broker/token}
        - {name: AWS_EC2_METADATA_DISABLED, value: "true"}
        - {name: AWS_STS_REGIONAL_ENDPOINTS, value: regional}
        volumeMounts:
        - {name: leash-broker-token, mountPath: /var/run/secrets/leash.dev/broker, readOnly: true}
      volumes:
      - name: leash-broker-token
        projected:
          sources:
          - serviceAccountToken: {audience: broker.leash.dev, expirationSeconds: 3600, path: token}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: app-egress, namespace: apps}
spec:
  podSelector: {matchLabels: {app: app}}
  policyTypes: [Egress]
  egress:
  - ports: [{protocol: TCP, port: 443}]
    to:
    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}
`

// TestBrokerPods pins how the checks take a pod wired to leash's
// credential broker: its credentials are the agent's variables and the
// broker's token (no Secret), so the IMDS checks hold it as they hold a
// pod with a Secret; a container that calls the agent without a token of
// the broker's audience, or that sends that token elsewhere, is
// LEASH-WL-015.
func TestBrokerPods(t *testing.T) {
	if ids := check(t, brokerWired); len(ids) != 0 {
		t.Fatalf("the Broker-wired pod has findings %v", ids)
	}
	s, err := Parse("m.yaml", []byte(brokerWired))
	if err != nil {
		t.Fatal(err)
	}
	if !ReceivesLeash(s, s.Pods[0]) {
		t.Error("the Broker-wired pod is not taken as receiving a leash credential")
	}
	const (
		tokenVolume = `      - name: leash-broker-token
        projected:
          sources:
          - serviceAccountToken: {audience: broker.leash.dev, expirationSeconds: 3600, path: token}
`
		tokenMount = "        - {name: leash-broker-token, mountPath: /var/run/secrets/leash.dev/broker, readOnly: true}\n"
		imdsOff    = "        - {name: AWS_EC2_METADATA_DISABLED, value: \"true\"}\n"
	)
	noEgress := brokerWired[:strings.Index(brokerWired, "---\napiVersion: networking.k8s.io/v1")]
	tests := []struct {
		name, manifests, want string
	}{
		{"a container calling the agent without IMDS disabled is credentialed: LEASH-WL-002",
			strings.Replace(brokerWired, imdsOff+"        - {name: AWS_STS", "        - {name: AWS_STS", 1), "LEASH-WL-002"},
		{"the pod with no egress policy: LEASH-WL-006", noEgress, "LEASH-WL-006"},
		{"the pod in the host's network: LEASH-WL-001 and LEASH-WL-006", strings.Replace(brokerWired, "      initContainers:", "      hostNetwork: true\n      initContainers:", 1), "LEASH-WL-001,LEASH-WL-006"},
		{"the variables without the token volume: LEASH-WL-015",
			strings.Replace(strings.Replace(brokerWired, "      volumes:\n"+tokenVolume, "", 1), "        volumeMounts:\n"+tokenMount, "", 1), "LEASH-WL-015"},
		{"a token volume of another audience at the broker's path: LEASH-WL-015", strings.Replace(brokerWired, "audience: broker.leash.dev", "audience: sts.amazonaws.com", 1), "LEASH-WL-015"},
		{"the token file variable missing: LEASH-WL-015", strings.Replace(brokerWired, "        - {name: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, value: /var/run/secrets/leash.dev/broker/token}\n", "", 1), "LEASH-WL-015"},
		{"the token file variable elsewhere than the mounted token: LEASH-WL-015", strings.Replace(brokerWired, "value: /var/run/secrets/leash.dev/broker/token}", "value: /tmp/token}", 1), "LEASH-WL-015"},
		{"the broker's token sent to another endpoint than the agent: LEASH-WL-015", strings.Replace(brokerWired, `value: "http://127.0.0.1:9911/v1/credentials"`, `value: "http://127.0.0.1:8080/creds"`, 1), "LEASH-WL-015"},
		{"the broker's token alone, without the variables, is credentials: the IMDS checks apply (LEASH-WL-006)",
			strings.Replace(noEgress, "        - {name: AWS_CONTAINER_CREDENTIALS_FULL_URI, value: \"http://127.0.0.1:9911/v1/credentials\"}\n        - {name: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, value: /var/run/secrets/leash.dev/broker/token}\n", "", 1), "LEASH-WL-006"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := check(t, tt.manifests)
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want exactly %s", ids, tt.want)
			}
		})
	}
}

// TestBrokerPodFindingSaysTheFix pins LEASH-WL-015's message and fix for a
// container that calls the agent with no broker token: it names the
// audience, the path and the annotation that has admission wire both.
func TestBrokerPodFindingSaysTheFix(t *testing.T) {
	m := strings.Replace(brokerWired, "audience: broker.leash.dev", "audience: sts.amazonaws.com", 1)
	s, err := Parse("m.yaml", []byte(m))
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(s)
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	f := fs[0]
	if f.Path != "spec.template.spec.containers[0].env" || !strings.Contains(f.Message, `audience is "sts.amazonaws.com"; the broker accepts only "broker.leash.dev"`) ||
		!strings.Contains(f.Fix, "set audience: broker.leash.dev") {
		t.Errorf("finding %s at %s: %s; fix: %s", f.ID, f.Path, f.Message, f.Fix)
	}
	m = strings.Replace(brokerWired, "value: /var/run/secrets/leash.dev/broker/token}", "value: /tmp/token}", 1)
	if s, err = Parse("m.yaml", []byte(m)); err != nil {
		t.Fatal(err)
	}
	if fs = Check(s); len(fs) != 1 || fs[0].Fix != "set AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE to /var/run/secrets/leash.dev/broker/token" {
		t.Errorf("findings %v, want one whose fix names the mounted token", fs)
	}
}
