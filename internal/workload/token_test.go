package workload

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// stsManifests are the good set with an STS request: without a projected
// token (sts), and with the token mounted at the request's cloudTokenPath
// for the roles' audience (stsGood).
func stsManifests(t *testing.T) (sts, stsGood string) {
	t.Helper()
	good := readGood(t)
	sts = strings.Replace(good, "    statementEntries:", "    stsIAMRoleARN: arn:aws:iam::111122223333:role/ccm\n    statementEntries:", 1)
	stsGood = strings.Replace(sts, `      volumes:
      - name: creds`, `        - {name: token, mountPath: /var/run/secrets/openshift/serviceaccount}
      volumes:
      - name: token
        projected:
          sources:
          - serviceAccountToken: {audience: sts.amazonaws.com, path: token}
      - name: creds`, 1)
	return sts, stsGood
}

// apiAccessDir is where a cluster's ServiceAccount admission mounts the API
// server's own token, CA and namespace in every container.
const apiAccessDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// withAPIAccess is spec as a cluster's ServiceAccount admission leaves it
// before webhooks run: a kube-api-access-* projected volume with a token
// for the API server (no audience: the API server's own), its CA and the
// pod's namespace, mounted read-only at apiAccessDir in every container and
// init container.
// https://kubernetes.io/docs/concepts/security/service-accounts/#get-a-token
func withAPIAccess(spec corev1.PodSpec) corev1.PodSpec {
	out := *spec.DeepCopy()
	const name = "kube-api-access-x8k2p"
	seconds, mode := int64(3607), int32(0o644)
	out.Volumes = append(out.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &seconds, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}})
	mount := corev1.VolumeMount{Name: name, MountPath: apiAccessDir, ReadOnly: true}
	for i := range out.InitContainers {
		out.InitContainers[i].VolumeMounts = append(out.InitContainers[i].VolumeMounts, mount)
	}
	for i := range out.Containers {
		out.Containers[i].VolumeMounts = append(out.Containers[i].VolumeMounts, mount)
	}
	return out
}

// TestAPIServerTokenIsNotTheRequests pins that the token checks judge the
// request's token, not the API server's own token that a cluster adds to
// every pod: a pod has the same findings with the kube-api-access volume
// (as the admission webhook sees it) as without (as leash check workload
// reads its manifest).
func TestAPIServerTokenIsNotTheRequests(t *testing.T) {
	good := readGood(t)
	sts, stsGood := stsManifests(t)
	example, err := Read(filepath.Join("..", "..", "examples", "ccm-sts", "credentialsrequest.yaml"), filepath.Join("..", "..", "examples", "ccm-sts", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sidecar := strings.Replace(stsGood, "      containers:\n", "      containers:\n      - {name: proxy, image: proxy:1, env: [{name: AWS_EC2_METADATA_DISABLED, value: \"true\"}]}\n", 1)
	tests := []struct {
		name string
		set  *Set
		want string // finding IDs, with and without the API server's token
	}{
		{"a key pod has no token to judge", parse(t, good), ""},
		{"an STS pod with its token at cloudTokenPath is clean", parse(t, stsGood), ""},
		{"an STS pod with a sidecar that mounts only the API server's token is clean", parse(t, sidecar), ""},
		{"examples/ccm-sts is clean", example, ""},
		{"an STS pod without its token has one finding, not one per API server token", parse(t, sts), "LEASH-WL-005"},
		{"an STS token for another audience at cloudTokenPath is judged", parse(t, strings.Replace(stsGood, "audience: sts.amazonaws.com", "audience: kubernetes", 1)), "LEASH-WL-005"},
		{"an STS token for the roles' audience at another path is judged", parse(t, strings.Replace(stsGood, "path: token}", "path: aws-token}", 1)), "LEASH-WL-005"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			without := Check(tt.set)
			for i := range tt.set.Pods {
				tt.set.Pods[i].Spec = withAPIAccess(tt.set.Pods[i].Spec)
			}
			with := Check(tt.set)
			if got := strings.Join(ids(with), ","); got != tt.want {
				t.Errorf("with the API server's token: findings %s, want %q", got, tt.want)
				for _, f := range with {
					t.Logf("%s %s: %s", f.ID, f.Path, f.Message)
				}
			}
			if !reflect.DeepEqual(with, without) {
				t.Errorf("the API server's token changed the findings:\nwith    %+v\nwithout %+v", with, without)
			}
		})
	}
}

// TestAPIServerTokenAtCloudTokenPathIsJudged pins that a token is the
// request's by where it is mounted, not by its volume's name: a request
// whose cloudTokenPath is the API server's token is told that token's
// audience is not the one the roles trust.
func TestAPIServerTokenAtCloudTokenPathIsJudged(t *testing.T) {
	sts, _ := stsManifests(t)
	s := parse(t, strings.Replace(sts, "  secretRef:", "  cloudTokenPath: "+apiAccessDir+"/token\n  secretRef:", 1))
	s.Pods[0].Spec = withAPIAccess(s.Pods[0].Spec)
	findings := Check(s)
	if strings.Join(ids(findings), ",") != "LEASH-WL-005" || !strings.Contains(findings[0].Message, `audience is ""`) {
		t.Errorf("findings %+v, want one LEASH-WL-005 on the token's audience", findings)
	}
}

func parse(t *testing.T, manifests string) *Set {
	t.Helper()
	s, err := Parse("m.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
