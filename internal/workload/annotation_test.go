package workload

import (
	"strings"
	"testing"
)

// requestsYAML are two requests: one whose Secret is in apps, one in
// kube-system whose Secret is in kube-system.
const requestsYAML = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: app, namespace: openshift-cloud-credential-operator}
spec:
  secretRef: {name: app-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: local, namespace: apps}
spec:
  secretRef: {name: local-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: ccm, namespace: kube-system}
spec:
  secretRef: {name: ccm-credentials, namespace: kube-system}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["ec2:DescribeInstances"], resource: "*"}]}
`

// annotatedPod is a pod in apps that carries no credentials of its own;
// annotations is its metadata's annotations in flow style.
func annotatedPod(annotations, sa string) string {
	return `---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: apps, annotations: ` + annotations + `}
spec:
  serviceAccountName: ` + sa + `
  containers: [{name: web, image: web:1}]
`
}

func readManifests(t *testing.T, manifests string) *Set {
	t.Helper()
	s, err := Parse("m.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNamedRequest(t *testing.T) {
	// strayed is a request of the pod's namespace whose author sees it and
	// its Secret's name.
	strayed := strings.Replace(strings.Replace(requestsYAML[strings.Index(requestsYAML, "---\napiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata: {name: local"):strings.LastIndex(requestsYAML, "---")],
		"name: local", "name: strayed", 1), "{name: local-credentials, namespace: apps}", "{name: strayed-credentials, namespace: elsewhere}", 1)
	// listed is a request of the pod's namespace that names the
	// ServiceAccounts whose pods use it, as OpenShift's field means.
	listed := `---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: listed, namespace: apps}
spec:
  secretRef: {name: listed-credentials, namespace: apps}
  serviceAccountNames: [web, worker]
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
`
	// sts is an STS request of apps whose role, as the operator read its
	// trust into status.roleTrust, trusts the tokens of ServiceAccount web
	// for audience sts.amazonaws.com only.
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-idp_oidc.html
	sts := func(aud string) string {
		return `---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: sts, namespace: apps}
spec:
  secretRef: {name: sts-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, stsIAMRoleARN: "arn:aws:iam::111122223333:role/web", statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
status:
  provisioned: true
  lastSyncGeneration: 1
  roleTrust: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/oidc.example.com"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"oidc.example.com:aud":"` + aud + `","oidc.example.com:sub":"system:serviceaccount:apps:web"}}}]}'
`
	}
	saWith := func(v string) string {
		return "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web, namespace: apps, annotations: {leash.dev/credentials: " + v + "}}\n"
	}
	tests := []struct {
		name, manifests string
		named           bool
		want            string // the request found, namespace/name
		problem         string // a text the WL-012 message holds; empty: none
	}{
		{"a name is a request in the pod's namespace", annotatedPod("{leash.dev/credentials: local}", "web"), true, "apps/local", ""},
		{"namespace/name reaches a request elsewhere whose Secret is in the pod's namespace", annotatedPod("{leash.dev/credentials: openshift-cloud-credential-operator/app}", "web"), true, "openshift-cloud-credential-operator/app", ""},
		{"a request that does not exist is refused", annotatedPod("{leash.dev/credentials: missing}", "web"), true, "", "apps/missing, which does not exist"},
		{"a request in another namespace without the namespace is not found", annotatedPod("{leash.dev/credentials: app}", "web"), true, "", "apps/app, which does not exist"},
		{"a request whose Secret is in another namespace is refused", annotatedPod("{leash.dev/credentials: kube-system/ccm}", "web"), true, "", "is not a request whose Secret is in the pod's namespace apps"},
		{"a missing request of another namespace is refused in the same words, so a refusal does not say whether it exists", annotatedPod("{leash.dev/credentials: kube-system/gone}", "web"), true, "", "is not a request whose Secret is in the pod's namespace apps"},
		{"a request of the pod's namespace whose Secret is elsewhere is named with its Secret", annotatedPod("{leash.dev/credentials: strayed}", "web") + strayed, true, "apps/strayed", "whose Secret elsewhere/strayed-credentials is not in the pod's namespace apps"},
		{"a value that is no name is refused", annotatedPod(`{leash.dev/credentials: "a/b/c"}`, "web"), true, "", "names no CredentialsRequest"},
		{"an empty value is refused", annotatedPod(`{leash.dev/credentials: ""}`, "web"), true, "", "names no CredentialsRequest"},
		{"the ServiceAccount's annotation counts when the pod has none", annotatedPod("{}", "web") + saWith("local"), true, "apps/local", ""},
		{"the ServiceAccount's missing request is refused, naming the ServiceAccount", annotatedPod("{}", "web") + saWith("gone"), true, "", "on ServiceAccount apps/web"},
		{"the pod's annotation wins over its ServiceAccount's", annotatedPod("{leash.dev/credentials: local}", "web") + saWith("gone"), true, "apps/local", ""},
		{"another ServiceAccount's annotation does not count", annotatedPod("{}", "other") + saWith("local"), false, "", ""},
		{"no annotation names nothing", annotatedPod("{}", "web"), false, "", ""},
		{"a pod of a ServiceAccount the request lists is wired", annotatedPod("{leash.dev/credentials: listed}", "worker") + listed, true, "apps/listed", ""},
		{"a pod of a ServiceAccount the request does not list is refused, naming the ones it lists", annotatedPod("{leash.dev/credentials: listed}", "other") + listed, true, "apps/listed",
			`spec.serviceAccountNames (web, worker) does not list the pod's ServiceAccount "other"`},
		{"a pod with no ServiceAccount runs as default, which the request does not list", annotatedPod("{leash.dev/credentials: listed}", `""`) + listed, true, "apps/listed",
			`does not list the pod's ServiceAccount "default"`},
		{"a request that lists no ServiceAccount takes any pod of its namespace", annotatedPod("{leash.dev/credentials: local}", "other"), true, "apps/local", ""},
		{"a pod of the ServiceAccount the STS role trusts is wired", annotatedPod("{leash.dev/credentials: sts}", "web") + sts("sts.amazonaws.com"), true, "apps/sts", ""},
		{"a pod of a ServiceAccount the STS role does not trust is refused, naming the role and the fix", annotatedPod("{leash.dev/credentials: sts}", "other") + sts("sts.amazonaws.com"), true, "apps/sts",
			`role arn:aws:iam::111122223333:role/web does not trust a token of the pod's ServiceAccount "other" for audience "sts.amazonaws.com"`},
		{"a role that trusts the ServiceAccount for another audience does not trust the pod's token", annotatedPod("{leash.dev/credentials: sts}", "web") + sts("other.example.com"), true, "apps/sts",
			`does not trust a token of the pod's ServiceAccount "web"`},
		{"an STS request whose trust leash could not read is not judged: STS decides", annotatedPod("{leash.dev/credentials: sts}", "other") + strings.Replace(sts("sts.amazonaws.com"), "  roleTrust:", "  principal:", 1), true, "apps/sts", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readManifests(t, requestsYAML+tt.manifests)
			n, named, problem := NamedRequest(s, s.Pods[0])
			if named != tt.named {
				t.Fatalf("named %v, want %v", named, tt.named)
			}
			got := ""
			if n.Request != nil {
				got = n.Request.Namespace + "/" + n.Request.Name
			}
			if got != tt.want {
				t.Errorf("request %q, want %q", got, tt.want)
			}
			switch {
			case tt.problem == "" && problem != nil:
				t.Errorf("unexpected problem %s: %s", problem.ID, problem.Message)
			case tt.problem != "" && problem == nil:
				t.Errorf("no problem, want one saying %q", tt.problem)
			case problem != nil && (problem.ID != "LEASH-WL-012" || !strings.Contains(problem.Message, tt.problem) || problem.Fix == ""):
				t.Errorf("problem %s %q (fix %q), want LEASH-WL-012 saying %q with a fix", problem.ID, problem.Message, problem.Fix, tt.problem)
			case problem != nil && strings.Contains(problem.Message+problem.Fix, "ccm-credentials"):
				t.Errorf("problem %q (fix %q) names another namespace's Secret", problem.Message, problem.Fix)
			}
			// check workload reports the same problem, and nothing else for
			// a pod that receives no credentials.
			ids := check(t, requestsYAML+tt.manifests)
			want := ""
			if tt.problem != "" {
				want = "LEASH-WL-012"
			}
			if strings.Join(ids, ",") != want {
				t.Errorf("check workload: findings %v, want %q", ids, want)
			}
		})
	}
}

func TestReceivesLeash(t *testing.T) {
	mounting := func(secret string) string {
		return `---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: apps}
spec:
  containers: [{name: web, image: web:1, volumeMounts: [{name: s, mountPath: /s}]}]
  volumes: [{name: s, secret: {secretName: ` + secret + `}}]
`
	}
	labelled := `---
apiVersion: v1
kind: Secret
metadata: {name: orphan, namespace: apps, labels: {cloudcredential.openshift.io/credentials-request: "true"}}
stringData: {aws_access_key_id: AKIAIOSFODNN7EXAMPLE}
`
	tests := []struct {
		name, manifests string
		want            bool
	}{
		{"a pod naming a request", annotatedPod("{leash.dev/credentials: local}", "web"), true},
		{"a pod naming a missing request (admission refuses it)", annotatedPod("{leash.dev/credentials: missing}", "web"), true},
		{"a pod mounting a request's Secret", mounting("local-credentials"), true},
		{"a pod mounting a Secret leash labelled", mounting("orphan") + labelled, true},
		{"a pod mounting a TLS Secret", mounting("web-tls"), false},
		{"a pod with no credentials", annotatedPod("{}", "web"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readManifests(t, requestsYAML+tt.manifests)
			if got := ReceivesLeash(s, s.Pods[0]); got != tt.want {
				t.Errorf("ReceivesLeash %v, want %v", got, tt.want)
			}
		})
	}
}
