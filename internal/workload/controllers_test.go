package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"leash.dev/leash/analyze"
)

// controller reads one of testdata/controllers, with edits applied in
// order (each old string must be there), and checks it.
func controller(t *testing.T, file string, edits ...string) (*Set, []analyze.Finding) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "controllers", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("%s has no %q to edit", file, edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	s, err := Parse(file, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s, Check(s)
}

func ids(fs []analyze.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// The real controllers' manifests: each finding the checks report on them,
// and none they used to report by a Secret's name.
func TestControllerManifests(t *testing.T) {
	tests := []struct {
		name, file string
		edits      []string
		// want counts each finding ID the manifests must have, exactly.
		want map[string]int
	}{
		{"a webhook TLS Secret whose name says aws is not credentials",
			"aws-load-balancer-controller.yaml", nil, map[string]int{}},
		{"a webhook TLS Secret not in the manifests is not credentials by its name either",
			"aws-load-balancer-controller.yaml", []string{"kind: Secret", "kind: NotChecked"}, map[string]int{}},
		{"a webhook TLS Secret stays clean with the host network too",
			"aws-load-balancer-controller.yaml", []string{"      containers:", "      hostNetwork: true\n      containers:"}, map[string]int{}},
		{"a Secret holding a credentials file is credentials, and the SDK is pointed at its key",
			"aws-load-balancer-controller.yaml", []string{"stringData: {ca.crt: placeholder, tls.crt: placeholder, tls.key: placeholder}",
				"stringData: {creds: \"[default]\\naws_access_key_id = placeholder\\n\"}"},
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-003": 1, "LEASH-WL-004": 1, "LEASH-WL-006": 1}},
		{"an optional secretKeyRef for a key pair falls back to the node's role",
			"aws-ebs-csi-driver.yaml", nil,
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-004": 2, idOptional: 2, "LEASH-WL-006": 1}},
		{"a volume's items move the credentials file the SDK must be pointed at",
			"ack-s3-controller.yaml", []string{"secret: {secretName: s3-user-secrets}", "secret: {secretName: s3-user-secrets, items: [{key: credentials, path: aws/credentials}]}"},
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-003": 1, "LEASH-WL-004": 1, "LEASH-WL-006": 1}},
		{"a volume's items that put the credentials file where the SDK looks",
			"ack-s3-controller.yaml", []string{"secret: {secretName: s3-user-secrets}", "secret: {secretName: s3-user-secrets, items: [{key: shared, path: credentials}]}"},
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-004": 1, "LEASH-WL-006": 1}},
		{"a required secretKeyRef is still credentials, and not an optional one",
			"aws-ebs-csi-driver.yaml", []string{"key: key_id, optional: true", "key: key_id", "key: access_key, optional: true", "key: access_key"},
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-004": 2, "LEASH-WL-006": 1}},
		{"a Secret the credentials file points into is credentials, whatever its name",
			"ack-s3-controller.yaml", nil,
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-004": 1, "LEASH-WL-006": 1}},
		{"an optional credentials volume falls back to the node's role",
			"ack-s3-controller.yaml", []string{"secret: {secretName: s3-user-secrets}", "secret: {secretName: s3-user-secrets, optional: true}"},
			map[string]int{"LEASH-WL-002": 1, "LEASH-WL-004": 1, idOptional: 1, "LEASH-WL-006": 1}},
		{"a host-network pod keeps LEASH-WL-006 despite a NetworkPolicy selecting it",
			"aws-cloud-controller-manager.yaml", nil,
			map[string]int{"LEASH-WL-001": 1, "LEASH-WL-006": 1}},
		{"the cloud controller manager off the host network is clean",
			"aws-cloud-controller-manager.yaml", []string{"      hostNetwork: true\n", ""}, map[string]int{}},
		{"egress to ::/0 reaches fd00:ec2::254",
			"aws-cloud-controller-manager.yaml", []string{"      hostNetwork: true\n", "",
				"    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}", "    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}\n    - ipBlock: {cidr: \"::/0\"}",
				"port: 443}", "port: 80}"},
			map[string]int{"LEASH-WL-006": 1}},
		{"egress to an IPv6 block holding fd00:ec2::254 reaches it",
			"aws-cloud-controller-manager.yaml", []string{"      hostNetwork: true\n", "",
				"    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}", "    - ipBlock: {cidr: \"fd00:ec2::/32\"}",
				"port: 443}", "port: 80}"},
			map[string]int{"LEASH-WL-006": 1}},
		{"egress to ::/0 except fd00:ec2::254 keeps it out",
			"aws-cloud-controller-manager.yaml", []string{"      hostNetwork: true\n", "", "port: 443}", "port: 80}",
				"    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}", "    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}\n    - ipBlock: {cidr: \"::/0\", except: [\"fd00:ec2::254/128\"]}"},
			map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := controller(t, tt.file, tt.edits...)
			got := map[string]int{}
			for _, f := range fs {
				got[f.ID]++
			}
			if len(got) != len(tt.want) {
				t.Errorf("findings %v, want counts %v", ids(fs), tt.want)
			}
			for id, n := range tt.want {
				if got[id] != n {
					t.Errorf("%d %s, want %d; findings %v", got[id], id, n, ids(fs))
				}
			}
			for _, f := range fs {
				if tt.want["LEASH-WL-003"] == 0 && strings.Contains(f.Fix, "serving-certs") {
					t.Errorf("%s's fix points the SDK at the TLS folder: %s", f.ID, f.Fix)
				}
			}
		})
	}
}

// The optional finding says why and how to fix it, at the secretKeyRef.
// A Secret no request writes never exists: making it required would keep
// the pod from starting, so the fix of both its findings is to remove the
// variable (the AWS SDK reads it before the credentials file leash wires:
// https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html).
// A Secret a request writes will exist: the fix is to make it required.
func TestOptionalSecretKeyRefFinding(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
		// fixes are what LEASH-WL-004 (none: not reported) and -007 say.
		fix004, fix007 string
	}{
		{"a key pair from a Secret no request writes, in a pod no leash credential reaches: remove the variable and name a request", nil,
			"remove variable AWS_ACCESS_KEY_ID from container ebs-plugin, and name the pod's CredentialsRequest in annotation leash.dev/credentials",
			"remove variable AWS_ACCESS_KEY_ID from container ebs-plugin, and name the pod's CredentialsRequest in annotation leash.dev/credentials"},
		{"a key from a Secret a request writes: remove optional: true",
			[]string{"        emptyDir: {}", "        emptyDir: {}\n---\napiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\n" +
				"metadata: {name: ebs, namespace: kube-system}\nspec:\n  secretRef: {name: aws-secret, namespace: kube-system}\n" +
				"  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: [\"ec2:DescribeVolumes\"], resource: \"*\"}]}\n"},
			"", "remove optional: true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := controller(t, "aws-ebs-csi-driver.yaml", tt.edits...)
			var f, unwritten *analyze.Finding
			for i := range fs {
				if fs[i].ID == idOptional && f == nil {
					f = &fs[i]
				}
				if fs[i].ID == "LEASH-WL-004" && strings.Contains(fs[i].Path, "env[2]") {
					unwritten = &fs[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s in %v", idOptional, ids(fs))
			}
			if f.Severity != analyze.High || !strings.Contains(f.Message, "instance role") || !strings.Contains(f.Message, "aws-secret") ||
				!strings.Contains(f.Fix, tt.fix007) || f.Path != "spec.template.spec.containers[0].env[2].valueFrom.secretKeyRef.optional" {
				t.Errorf("finding %+v, want a fix saying %q", *f, tt.fix007)
			}
			switch {
			case tt.fix004 == "" && unwritten != nil:
				t.Errorf("LEASH-WL-004 %+v for a Secret a request writes", *unwritten)
			case tt.fix004 != "" && (unwritten == nil || !strings.Contains(unwritten.Fix, tt.fix004) || !strings.Contains(unwritten.Message, "before the credentials file")):
				t.Errorf("LEASH-WL-004 %+v, want a fix saying %q", unwritten, tt.fix004)
			}
		})
	}
}

// Credentials through envFrom and projected volumes reach the pod; without
// them the pod is skipped.
func TestCredentialSources(t *testing.T) {
	good := readGood(t)
	keys := "---\napiVersion: v1\nkind: Secret\nmetadata: {name: keys, namespace: kube-system}\nstringData: {AWS_ACCESS_KEY_ID: placeholder}\n"
	withoutVolume := strings.Replace(strings.Replace(good, "        volumeMounts:\n        - {name: creds, mountPath: /etc/aws-credentials, readOnly: true}\n", "", 1),
		"      volumes:\n      - name: creds\n        secret: {secretName: ccm-credentials}\n", "", 1)
	withoutVolume = strings.Replace(withoutVolume, "        - {name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws-credentials/credentials}\n", "", 1)
	tests := []struct {
		name, manifests, want string
	}{
		{"no Secret, no token: skipped", withoutVolume, ""},
		{"envFrom a Secret holding AWS_ACCESS_KEY_ID", strings.Replace(withoutVolume, "        env:\n", "        envFrom: [{secretRef: {name: keys}}]\n        env:\n", 1) + keys, "LEASH-WL-004"},
		{"envFrom a Secret holding credential keys, optional", strings.Replace(withoutVolume, "        env:\n", "        envFrom: [{secretRef: {name: keys, optional: true}}]\n        env:\n", 1) + keys, "LEASH-WL-004," + idOptional},
		{"envFrom a Secret of no credential keys: skipped", strings.Replace(withoutVolume, "        env:\n", "        envFrom: [{secretRef: {name: other}}]\n        env:\n", 1), ""},
		{"a projected Secret a request writes, on the host network", strings.Replace(strings.Replace(good, "        secret: {secretName: ccm-credentials}", "        projected: {sources: [{secret: {name: ccm-credentials}}]}", 1),
			"      containers:", "      hostNetwork: true\n      containers:", 1), "LEASH-WL-001,LEASH-WL-006"},
		{"a projected Secret, optional", strings.Replace(good, "        secret: {secretName: ccm-credentials}", "        projected: {sources: [{secret: {name: ccm-credentials, optional: true}}]}", 1), idOptional},
		{"a projected STS token alone, on the host network", strings.Replace(strings.Replace(withoutVolume, "      containers:", "      hostNetwork: true\n      volumes: [{name: token, projected: {sources: [{serviceAccountToken: {audience: sts.amazonaws.com, path: token}}]}}]\n      containers:", 1),
			"        env:\n", "        volumeMounts: [{name: token, mountPath: /var/run/secrets/eks}]\n        env:\n", 1), "LEASH-WL-001,LEASH-WL-006"},
		{"a projected token for another audience: skipped", strings.Replace(strings.Replace(withoutVolume, "      containers:", "      hostNetwork: true\n      volumes: [{name: token, projected: {sources: [{serviceAccountToken: {audience: vault, path: token}}]}}]\n      containers:", 1),
			"        env:\n", "        volumeMounts: [{name: token, mountPath: /var/run/secrets/vault}]\n        env:\n", 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(check(t, tt.manifests), ",")
			if got != tt.want {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// Each pod's suggested policy has its own name, keeps the API server's
// 6443 and the ports its containers declare, and clears LEASH-WL-006.
func TestSuggestPerPod(t *testing.T) {
	s, _ := controller(t, "aws-load-balancer-controller.yaml")
	s2, _ := controller(t, "aws-cloud-controller-manager.yaml", "      hostNetwork: true\n", "")
	s.Pods = append(s.Pods, s2.Pods...)
	names := map[string]bool{}
	for _, p := range s.Pods {
		np, err := Suggest(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(np)
		name := text[strings.Index(text, "  name: ")+len("  name: "):]
		name = name[:strings.Index(name, "\n")]
		if names[name] {
			t.Errorf("two pods' policies are named %s", name)
		}
		names[name] = true
		for _, port := range []string{"port: 6443", "port: 443", "fd00:ec2::254/128", "169.254.169.254/32"} {
			if !strings.Contains(text, port) {
				t.Errorf("%s: the suggestion has no %q:\n%s", p.Source, port, text)
			}
		}
		if p.Name == "aws-load-balancer-controller" && (!strings.Contains(text, "port: 9443") || !strings.Contains(text, "port: 8080")) {
			t.Errorf("%s: the suggestion drops the containers' ports:\n%s", p.Source, text)
		}
	}
	// The cloud controller manager without its policy, then with the suggested one.
	ccm, fs := controller(t, "aws-cloud-controller-manager.yaml", "      hostNetwork: true\n", "", "kind: NetworkPolicy", "kind: NetworkPolicyGone")
	if !slices.Contains(ids(fs), "LEASH-WL-006") {
		t.Fatalf("without its policy: findings %v, want LEASH-WL-006", ids(fs))
	}
	np, err := Suggest(ccm.Pods[0])
	if err != nil {
		t.Fatal(err)
	}
	var sug Set
	if err := sug.add("suggestion", 1, np); err != nil {
		t.Fatal(err)
	}
	ccm.Policies = sug.Policies
	if fs := Check(ccm); len(fs) != 0 {
		t.Errorf("with the suggested policy: findings %v\n%s", ids(fs), np)
	}
}

// A pod without labels gets no suggestion: an empty selector would select
// the whole namespace.
func TestSuggestRefusesUnlabelledPod(t *testing.T) {
	s, _ := controller(t, "aws-ebs-csi-driver.yaml", "      labels: {app: ebs-csi-controller}\n", "")
	if _, err := Suggest(s.Pods[0]); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("error %v, want one naming the missing labels", err)
	}
}

// Skipped lists the pods no credentials reach.
func TestSkipped(t *testing.T) {
	s, _ := controller(t, "aws-load-balancer-controller.yaml")
	if got := Skipped(s); len(got) != 1 || !strings.Contains(got[0], "Deployment kube-system/aws-load-balancer-controller") {
		t.Errorf("skipped %v", got)
	}
	s, _ = controller(t, "aws-ebs-csi-driver.yaml")
	if got := Skipped(s); len(got) != 0 {
		t.Errorf("skipped %v, want none", got)
	}
}
