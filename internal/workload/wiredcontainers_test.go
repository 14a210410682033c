package workload

import (
	"strings"
	"testing"
)

// TestWiredContainers pins which containers the rules judge in a pod that
// names the containers admission wires (leash.dev/credentials-containers):
// the named ones, the ephemeral ones, and any other that receives the
// credentials all the same; a container deliberately left unwired is not
// asked for leash's variables. A name the pod does not have is
// LEASH-WL-014, listing the pod's containers.
func TestWiredContainers(t *testing.T) {
	good := readGood(t)
	const ccm = "      containers:\n      - name: ccm\n"
	// pod is the good Deployment as admission stores it when it names its
	// request and wires only ccm: the Secret at leash's path; ann is
	// added to its annotations (flow style), spec to its containers.
	pod := func(ann, before, after string) string {
		return strings.NewReplacer(
			"    metadata: {labels: {app: ccm}}", "    metadata: {labels: {app: ccm}, annotations: {leash.dev/credentials: ccm"+ann+"}}",
			"/etc/aws-credentials", CredentialsDir,
			ccm, before+ccm,
			"      volumes:\n", after+"      volumes:\n").Replace(good)
	}
	const only = ", leash.dev/credentials-containers: ccm"
	const sidecar = "      - {name: probe, image: probe:1}\n"
	const init = "      initContainers:\n      - {name: init, image: ccm:1}\n"
	tests := []struct {
		name, manifests string
		want, at        string // finding IDs; a path one of them has
		says            string // a text that finding's message holds
	}{
		{"without the annotation a sidecar is wired and judged as every container: LEASH-WL-002",
			pod("", "", sidecar), "LEASH-WL-002", "spec.template.spec.containers[1].env", ""},
		{"a sidecar the annotation leaves out holds no credential and is not judged", pod(only, "", sidecar), "", "", ""},
		{"an init container the annotation leaves out is not judged", pod(only, init, ""), "", "", ""},
		{"names are separated by commas, spaces aside, and an init container named is judged: LEASH-WL-002",
			pod(`, leash.dev/credentials-containers: "ccm, init"`, init, sidecar), "LEASH-WL-002", "spec.template.spec.initContainers[0].env", "container init"},
		{"a sidecar left out that mounts the credentials Secret receives them, and is judged",
			pod(only, "", "      - {name: probe, image: probe:1, volumeMounts: [{name: creds, mountPath: /etc/aws}]}\n"),
			"LEASH-WL-002,LEASH-WL-003", "spec.template.spec.containers[1].env", ""},
		{"a sidecar left out that points AWS_SHARED_CREDENTIALS_FILE at leash's path is judged",
			pod(only, "", "      - {name: probe, image: probe:1, env: [{name: AWS_SHARED_CREDENTIALS_FILE, value: "+CredentialsDir+"/credentials}]}\n"),
			"LEASH-WL-002", "spec.template.spec.containers[1].env", "container probe"},
		{"a sidecar left out that takes a key from the request's Secret is judged",
			pod(only, "", "      - {name: probe, image: probe:1, env: [{name: AWS_ACCESS_KEY_ID, valueFrom: {secretKeyRef: {name: ccm-credentials, key: aws_access_key_id}}}]}\n"),
			"LEASH-WL-002", "spec.template.spec.containers[1].env", "container probe"},
		{"a sidecar left out that mounts its own volume at leash's path is not judged: leash mounts nothing there",
			strings.Replace(pod(only, "", "      - {name: probe, image: probe:1, volumeMounts: [{name: cache, mountPath: "+CredentialsDir+"}]}\n"),
				"      volumes:\n", "      volumes:\n      - {name: cache, emptyDir: {}}\n", 1),
			"", "", ""},
		{"an ephemeral container, which the annotation cannot name, is judged",
			pod(only, "      ephemeralContainers:\n      - {name: debug, image: busybox}\n", ""),
			"LEASH-WL-002", "spec.template.spec.ephemeralContainers[0].env", ""},
		{"under the metadata profile a sidecar left out is not asked for the credentials file",
			pod(only+", leash.dev/imds: metadata", "", sidecar), "LEASH-WL-011", "", ""},
		{"under the metadata profile without the annotation the sidecar is LEASH-WL-009",
			pod(", leash.dev/imds: metadata", "", sidecar), "LEASH-WL-011,LEASH-WL-009", "spec.template.spec.containers[1].env", ""},
		{"a name the pod does not have is LEASH-WL-014, naming it and the pod's containers, and every container is judged",
			pod(`, leash.dev/credentials-containers: "ccm,prob"`, init, sidecar), "LEASH-WL-014,LEASH-WL-002,LEASH-WL-002",
			"spec.template.metadata.annotations[leash.dev/credentials-containers]", `names "prob", which the pod does not have (its init and regular containers: init, ccm, probe)`},
		{"an annotation that names no container is LEASH-WL-014",
			pod(`, leash.dev/credentials-containers: " , "`, "", ""), "LEASH-WL-014", "spec.template.metadata.annotations[leash.dev/credentials-containers]", "names no container"},
		{"the annotation on a pod that names no request wires nothing, and is no finding",
			strings.Replace(good, "    metadata: {labels: {app: ccm}}", "    metadata: {labels: {app: ccm}, annotations: {leash.dev/credentials-containers: prob}}", 1), "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readManifests(t, tt.manifests)
			var ids []string
			paths := map[string]string{}
			for _, f := range Check(s) {
				ids = append(ids, f.ID)
				paths[f.Path] = f.Message + "; fix: " + f.Fix
			}
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want exactly %q\n%v", ids, tt.want, paths)
			}
			if tt.at == "" {
				return
			}
			if msg, ok := paths[tt.at]; !ok || !strings.Contains(msg, tt.says) {
				t.Errorf("no finding at %s saying %q: %v", tt.at, tt.says, paths)
			}
		})
	}
}
