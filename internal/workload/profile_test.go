package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// ccmExample is the seed's cloud controller manager: its request and its
// Deployment, which keeps IMDS and the host network under the metadata
// profile.
func ccmExample(t *testing.T) string {
	t.Helper()
	var all []string
	for _, f := range []string{"credentialsrequest.yaml", "deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "ccm", f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, string(data))
	}
	return strings.Join(all, "\n---\n")
}

func ccmNodeRole(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "node-role", "ccm-node-role-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func readSet(t *testing.T, manifests string) (*Set, error) {
	t.Helper()
	return Parse("m.yaml", []byte(manifests))
}

// checkWithNodeRole checks manifests with the node role's policies (none
// when nodeRole is empty) and returns the findings' IDs.
func checkWithNodeRole(t *testing.T, manifests, nodeRole string) []string {
	t.Helper()
	s, err := readSet(t, manifests)
	if err != nil {
		t.Fatal(err)
	}
	if nodeRole != "" {
		doc, err := policy.Parse([]byte(nodeRole), policy.Identity)
		if err != nil {
			t.Fatal(err)
		}
		s.NodeRole = []policy.Named{{Name: "node-role", Document: doc}}
	}
	var ids []string
	for _, f := range Check(s) {
		ids = append(ids, f.ID)
	}
	return ids
}

// The CCM passes under the metadata profile, and each piece of the profile
// removed in turn gives exactly its finding.
func TestMetadataProfile(t *testing.T) {
	ccm, role := ccmExample(t), ccmNodeRole(t)
	const secret = "secret: {secretName: cloud-controller-manager-credentials}"
	const fileVar = "        - {name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws-credentials/credentials}\n"
	extraVar := func(v string) string { return strings.Replace(ccm, fileVar, fileVar+"        - "+v+"\n", 1) }
	envFrom := func(from string) string {
		return strings.Replace(ccm, "        env:\n", "        envFrom: [{"+from+"}]\n        env:\n", 1)
	}
	envSecret := func(data string) string {
		return "\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: ccm-env, namespace: kube-system}\nstringData: {" + data + "}\n"
	}
	wider := strings.Replace(role, `"Resource": "*"
    }`, `"Resource": "*"
    },
    {"Effect": "Allow", "Action": "ec2:TerminateInstances", "Resource": "*"}`, 1)
	if wider == role {
		t.Fatal("the node role's statement was not found to extend")
	}
	tests := []struct {
		name, manifests, nodeRole, want string
	}{
		{"the CCM with its pruned node role passes", ccm, role, ""},
		{"the profile on the ServiceAccount passes as on the template",
			strings.Replace(ccm, "      annotations: {leash.dev/imds: metadata}\n", "", 1) +
				"\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: cloud-controller-manager, namespace: kube-system, annotations: {leash.dev/imds: metadata}}\n", role, ""},
		{"without the profile the CCM's host network and IMDS are findings",
			strings.Replace(ccm, "      annotations: {leash.dev/imds: metadata}\n", "", 1), role, "LEASH-WL-001,LEASH-WL-002,LEASH-WL-006"},
		{"an optional credentials Secret", strings.Replace(ccm, secret, "secret: {secretName: cloud-controller-manager-credentials, optional: true}", 1), role, idProfileOptional},
		{"AWS_SHARED_CREDENTIALS_FILE missing", strings.Replace(ccm, fileVar, "", 1), role, idProfileFile},
		{"AWS_SHARED_CREDENTIALS_FILE outside the Secret", strings.Replace(ccm, "value: /etc/aws-credentials/credentials}", "value: /root/.aws/credentials}", 1), role, idProfileFile},
		{"an extra AWS_PROFILE", extraVar("{name: AWS_PROFILE, value: node}"), role, idProfileOtherCred},
		{"an extra AWS_ACCESS_KEY_ID", extraVar("{name: AWS_ACCESS_KEY_ID, value: AKIAIOSFODNN7EXAMPLE}"), role, idProfileOtherCred},
		{"an extra AWS_ROLE_ARN", extraVar("{name: AWS_ROLE_ARN, value: 'arn:aws:iam::111122223333:role/x'}"), role, idProfileOtherCred},
		{"an extra AWS_CONTAINER_CREDENTIALS_FULL_URI", extraVar("{name: AWS_CONTAINER_CREDENTIALS_FULL_URI, value: 'http://127.0.0.1/creds'}"), role, idProfileOtherCred},
		{"an envFrom of a Secret whose keys are not in the manifests may set AWS_ACCESS_KEY_ID", envFrom("secretRef: {name: ccm-env}"), role, idProfileOtherCred},
		{"an envFrom of a ConfigMap, whose keys are never read, may set AWS_PROFILE", envFrom("configMapRef: {name: ccm-env}"), role, idProfileOtherCred},
		{"an envFrom whose prefix AWS_ begins with may still name AWS_* variables", envFrom("prefix: AWS, secretRef: {name: ccm-env}"), role, idProfileOtherCred},
		{"an envFrom whose prefix keeps its variables off AWS_ passes", envFrom("prefix: CCM_, secretRef: {name: ccm-env}"), role, ""},
		// The key pair in a Secret no request writes is also LEASH-WL-004.
		{"an envFrom of a Secret of the manifests is judged by its keys: AWS_ACCESS_KEY_ID", envFrom("secretRef: {name: ccm-env}") + envSecret("AWS_ACCESS_KEY_ID: AKIAIOSFODNN7EXAMPLE"), role, idProfileOtherCred + ",LEASH-WL-004"},
		{"an envFrom of a Secret of the manifests whose keys are no credential variable passes", envFrom("secretRef: {name: ccm-env}") + envSecret("LOG_LEVEL: debug"), role, ""},
		{"a node role with one more statement", ccm, wider, idProfileNodeRole},
		{"a node role not given", ccm, "", idProfileNodeRole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(checkWithNodeRole(t, tt.manifests, tt.nodeRole), ","); got != tt.want {
				t.Errorf("findings %q, want exactly %q", got, tt.want)
			}
		})
	}
}

// A leash.dev/imds value that names no profile is refused with the
// annotation named, rather than checked as if it were absent.
func TestProfileAnnotationRefused(t *testing.T) {
	ccm := strings.Replace(ccmExample(t), "annotations: {leash.dev/imds: metadata}", "annotations: {leash.dev/imds: metdata}", 1)
	_, err := readSet(t, ccm)
	var in *inputerr.Error
	if !errors.As(err, &in) || in.Field != "annotation leash.dev/imds" || !strings.Contains(in.Msg, `"metadata"`) {
		t.Errorf("got %v, want an input error naming the annotation and the profile", err)
	}
}
