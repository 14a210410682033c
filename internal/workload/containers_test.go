package workload

import (
	"strings"
	"testing"
)

// TestEveryContainerKind pins that init and ephemeral containers are judged
// by the rules of the others, that a variable set twice is judged by its
// last value (the kubelet's), that env overrides envFrom, that a volume
// mounted where leash mounts the credentials is refused, and that a
// leash.dev/imds value naming no profile is a finding, not the default.
func TestEveryContainerKind(t *testing.T) {
	good := readGood(t)
	const ccm = "      containers:\n      - name: ccm\n        image: ccm:1\n"
	const imdsOff = "        - {name: AWS_EC2_METADATA_DISABLED, value: \"true\"}\n"
	const fileVar = "        - {name: AWS_SHARED_CREDENTIALS_FILE, value: /etc/aws-credentials/credentials}\n"
	// before puts a container list ahead of the regular containers.
	before := func(list string) string { return strings.Replace(good, ccm, list+ccm, 1) }
	// after adds a variable after the container's own.
	after := func(v string) string { return strings.Replace(good, imdsOff, imdsOff+"        - "+v+"\n", 1) }
	// wired is the good Deployment as admission stores it when it names
	// its request: the Secret at leash's path.
	wired := strings.NewReplacer(
		"    metadata: {labels: {app: ccm}}", "    metadata: {labels: {app: ccm}, annotations: {leash.dev/credentials: ccm}}",
		"/etc/aws-credentials", CredentialsDir).Replace(good)
	// clash is wired with the container's own volume at leash's path,
	// where admission keeps it and adds no mount of the Secret.
	clash := strings.NewReplacer(
		"{name: creds, mountPath: "+CredentialsDir+", readOnly: true}", "{name: cache, mountPath: "+CredentialsDir+"}",
		"      volumes:\n", "      volumes:\n      - {name: cache, emptyDir: {}}\n").Replace(wired)
	envSecret := func(data string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ccm-env, namespace: kube-system}\nstringData: {" + data + "}\n"
	}
	tests := []struct {
		name, manifests string
		annotation      string // a leash.dev/imds value set on the pod after reading
		want, at        string // finding IDs; a path one of them has
	}{
		{"an init container that sets AWS_EC2_METADATA_DISABLED=false is LEASH-WL-002 as a container is",
			before("      initContainers:\n      - name: init\n        image: ccm:1\n        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"false\"}]\n"), "",
			"LEASH-WL-002", "spec.template.spec.initContainers[0].env"},
		{"an init container without AWS_EC2_METADATA_DISABLED is LEASH-WL-002",
			before("      initContainers:\n      - {name: init, image: ccm:1}\n"), "", "LEASH-WL-002", "spec.template.spec.initContainers[0].env"},
		{"an init container that mounts the Secret and points elsewhere is LEASH-WL-003",
			before("      initContainers:\n      - name: init\n        image: ccm:1\n        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"true\"}, {name: AWS_SHARED_CREDENTIALS_FILE, value: /root/.aws/credentials}]\n        volumeMounts: [{name: creds, mountPath: /etc/aws-credentials}]\n"), "",
			"LEASH-WL-003", "spec.template.spec.initContainers[0].env"},
		{"an ephemeral container that enables IMDS is LEASH-WL-002",
			before("      ephemeralContainers:\n      - name: debug\n        image: busybox\n        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"false\"}]\n"), "",
			"LEASH-WL-002", "spec.template.spec.ephemeralContainers[0].env"},
		{"an ephemeral container that disables IMDS as the others do passes",
			before("      ephemeralContainers:\n      - name: debug\n        image: busybox\n        env: [{name: AWS_EC2_METADATA_DISABLED, value: \"true\"}]\n"), "", "", ""},
		{"AWS_EC2_METADATA_DISABLED set twice is judged by the last value, false", after(`{name: AWS_EC2_METADATA_DISABLED, value: "false"}`), "", "LEASH-WL-002", ""},
		{"AWS_EC2_METADATA_DISABLED set twice whose last value is true passes",
			strings.Replace(good, imdsOff, "        - {name: AWS_EC2_METADATA_DISABLED, value: \"false\"}\n"+imdsOff, 1), "", "", ""},
		{"AWS_EC2_METADATA_DISABLED set last from a Secret is not a literal true", after(`{name: AWS_EC2_METADATA_DISABLED, valueFrom: {secretKeyRef: {name: ccm-env, key: imds}}}`), "", "LEASH-WL-002", ""},
		{"AWS_SHARED_CREDENTIALS_FILE set twice is judged by the last value, outside the Secret", after("{name: AWS_SHARED_CREDENTIALS_FILE, value: /root/.aws/credentials}"), "", "LEASH-WL-003", ""},
		{"AWS_SHARED_CREDENTIALS_FILE set twice whose last value is the Secret's file passes",
			strings.Replace(good, fileVar, "        - {name: AWS_SHARED_CREDENTIALS_FILE, value: /root/.aws/credentials}\n"+fileVar, 1), "", "", ""},
		{"env overrides envFrom: a Secret's AWS_EC2_METADATA_DISABLED=false does not count",
			strings.Replace(good, "        env:\n", "        envFrom: [{secretRef: {name: ccm-env}}]\n        env:\n", 1) + envSecret(`AWS_EC2_METADATA_DISABLED: "false"`), "", "", ""},
		{"envFrom does not stand for env: a Secret's AWS_EC2_METADATA_DISABLED=true without env is LEASH-WL-002",
			strings.Replace(strings.Replace(good, imdsOff, "", 1), "        env:\n", "        envFrom: [{secretRef: {name: ccm-env}}]\n        env:\n", 1) + envSecret(`AWS_EC2_METADATA_DISABLED: "true"`), "", "LEASH-WL-002", ""},
		{"the pod as admission wires it passes", wired, "", "", ""},
		{"a volume mounted at leash's credentials path is LEASH-WL-003, naming the volume", clash, "", "LEASH-WL-003", "spec.template.spec.containers[0].volumeMounts[0]"},
		{"a volume mounted inside leash's credentials path is LEASH-WL-003",
			strings.Replace(clash, "{name: cache, mountPath: "+CredentialsDir+"}", "{name: cache, mountPath: "+CredentialsDir+"/credentials, subPath: x}", 1), "", "LEASH-WL-003", ""},
		{"the pod's own mount of its request's Secret at leash's path passes",
			strings.Replace(wired, "{name: creds, mountPath: "+CredentialsDir+", readOnly: true}", "{name: creds, mountPath: "+CredentialsDir+"}", 1), "", "", ""},
		{"a leash.dev/imds value that names no profile is LEASH-WL-013, not the default checks", good, "metdata", "LEASH-WL-013", "spec.template.metadata.annotations[leash.dev/imds]"},
		{"leash.dev/imds: metadata is the profile", good, ProfileMetadata, "LEASH-WL-011", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readManifests(t, tt.manifests)
			if tt.annotation != "" {
				s.Pods[0].Annotations = map[string]string{ProfileAnnotation: tt.annotation}
			}
			var ids []string
			paths := map[string]string{}
			for _, f := range Check(s) {
				ids = append(ids, f.ID)
				paths[f.Path] = f.Message + "; fix: " + f.Fix
			}
			if strings.Join(ids, ",") != tt.want {
				t.Errorf("findings %v, want exactly %q\n%v", ids, tt.want, paths)
			}
			if tt.at != "" {
				if _, ok := paths[tt.at]; !ok {
					t.Errorf("no finding at %s: %v", tt.at, paths)
				}
			}
			if strings.Contains(tt.name, "naming the volume") && !strings.Contains(paths[tt.at], "volume cache") {
				t.Errorf("finding %q does not name volume cache", paths[tt.at])
			}
			if tt.annotation == "metdata" && !strings.Contains(paths[tt.at], `"metadata"`) {
				t.Errorf("finding %q does not list the accepted values", paths[tt.at])
			}
		})
	}
}
