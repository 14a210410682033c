package admission

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/workload"
)

func request(name, providerSpec string, annotations map[string]string) *leashv1.CredentialsRequest {
	return &leashv1.CredentialsRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps", Annotations: annotations},
		Spec: leashv1.CredentialsRequestSpec{
			SecretRef:    corev1.ObjectReference{Namespace: "apps", Name: name + "-credentials"},
			ProviderSpec: &runtime.RawExtension{Raw: []byte(providerSpec)},
		},
	}
}

const (
	keySpec = `{"apiVersion":"cloudcredential.openshift.io/v1","kind":"AWSProviderSpec","statementEntries":[{"effect":"Allow","action":["s3:GetObject"],"resource":"*"}]}`
	stsSpec = `{"apiVersion":"cloudcredential.openshift.io/v1","kind":"AWSProviderSpec","stsIAMRoleARN":"arn:aws:iam::111122223333:role/app","statementEntries":[{"effect":"Allow","action":["s3:GetObject"],"resource":"*"}]}`
)

func container(name string, env ...corev1.EnvVar) corev1.Container {
	return corev1.Container{Name: name, Image: "app:1", Env: env}
}

// envMap is a container's literal variables.
func envMap(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func TestWire(t *testing.T) {
	credentialsVolume := corev1.Volume{Name: CredentialsVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-credentials"}}}
	credentialsMount := corev1.VolumeMount{Name: CredentialsVolume, MountPath: CredentialsDir, ReadOnly: true}
	fullEnv := map[string]string{
		"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/credentials",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_STS_REGIONAL_ENDPOINTS":  "regional",
	}
	withoutIMDS := map[string]string{
		"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/credentials",
		"AWS_STS_REGIONAL_ENDPOINTS":  "regional",
	}
	seconds := int64(TokenExpirationSeconds)
	token := func(audience, file string) corev1.Volume {
		return corev1.Volume{Name: TokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
			ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, ExpirationSeconds: &seconds, Path: file}}}}}}
	}
	tests := []struct {
		name    string
		pod     Pod
		sa      map[string]string
		req     *leashv1.CredentialsRequest
		wiring  Wiring
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount // of every container
		env     map[string]string    // of every container
		kept    []string
	}{
		{name: "a key request gets the Secret's volume, its read-only mount and the three variables",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: request("app", keySpec, nil), wiring: Wiring{Mode: leashv1.ModeMint},
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount}, env: fullEnv},
		{name: "an STS request (Manual with a role) also gets the projected token at cloudTokenPath's folder, for the audience",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: request("app", stsSpec, nil), wiring: Wiring{Mode: leashv1.ModeManual},
			volumes: []corev1.Volume{credentialsVolume, token(oidcissuer.DefaultAudience, "token")},
			mounts:  []corev1.VolumeMount{credentialsMount, {Name: TokenVolume, MountPath: "/var/run/secrets/openshift/serviceaccount", ReadOnly: true}},
			env:     fullEnv},
		{name: "an STS request's own cloudTokenPath and the operator's audience are followed",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: func() *leashv1.CredentialsRequest {
				r := request("app", keySpec, map[string]string{"leash.dev/mode": "STS"})
				r.Spec.CloudTokenPath = "/var/run/aws/web-identity"
				return r
			}(), wiring: Wiring{Mode: leashv1.ModeMint, Audience: "leash"},
			volumes: []corev1.Volume{credentialsVolume, token("leash", "web-identity")},
			mounts:  []corev1.VolumeMount{credentialsMount, {Name: TokenVolume, MountPath: "/var/run/aws", ReadOnly: true}},
			env:     fullEnv},
		{name: "a request with a role in a Mint cluster is a key request, as the operator takes it",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: request("app", stsSpec, nil), wiring: Wiring{Mode: leashv1.ModeMint},
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount}, env: fullEnv},
		{name: "the metadata profile on the pod keeps IMDS: no AWS_EC2_METADATA_DISABLED",
			pod:     Pod{Annotations: map[string]string{workload.ProfileAnnotation: workload.ProfileMetadata}, Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount}, env: withoutIMDS},
		{name: "the metadata profile on the ServiceAccount only keeps IMDS too",
			pod:     Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			sa:      map[string]string{workload.ProfileAnnotation: workload.ProfileMetadata},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount}, env: withoutIMDS},
		{name: "a pod that already mounts the Secret keeps its volume and mount, and the file variable follows the mount",
			pod: Pod{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "app:1", VolumeMounts: []corev1.VolumeMount{{Name: "aws", MountPath: "/etc/aws", ReadOnly: true}}}},
				Volumes:    []corev1.Volume{{Name: "aws", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-credentials"}}}}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{{Name: "aws", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-credentials"}}}},
			mounts:  []corev1.VolumeMount{{Name: "aws", MountPath: "/etc/aws", ReadOnly: true}},
			env:     map[string]string{"AWS_SHARED_CREDENTIALS_FILE": "/etc/aws/credentials", "AWS_EC2_METADATA_DISABLED": "true", "AWS_STS_REGIONAL_ENDPOINTS": "regional"}},
		{name: "a pod's volume of the Secret that moves the credentials key is followed to its path",
			pod: Pod{Spec: corev1.PodSpec{
				Containers: []corev1.Container{container("app")},
				Volumes: []corev1.Volume{{Name: "aws", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-credentials",
					Items: []corev1.KeyToPath{{Key: "credentials", Path: "aws/config"}}}}}}}},
			req: request("app", keySpec, nil),
			volumes: []corev1.Volume{{Name: "aws", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-credentials",
				Items: []corev1.KeyToPath{{Key: "credentials", Path: "aws/config"}}}}}},
			mounts: []corev1.VolumeMount{{Name: "aws", MountPath: CredentialsDir, ReadOnly: true}},
			env:    map[string]string{"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/aws/config", "AWS_EC2_METADATA_DISABLED": "true", "AWS_STS_REGIONAL_ENDPOINTS": "regional"}},
		{name: "a pod that sets AWS_EC2_METADATA_DISABLED=false keeps it, and the annotation lists it",
			pod:     Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app", corev1.EnvVar{Name: "AWS_EC2_METADATA_DISABLED", Value: "false"})}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount},
			env:  map[string]string{"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/credentials", "AWS_EC2_METADATA_DISABLED": "false", "AWS_STS_REGIONAL_ENDPOINTS": "regional"},
			kept: []string{"app/AWS_EC2_METADATA_DISABLED"}},
		{name: "a variable taken from elsewhere (valueFrom) is kept and listed",
			pod:     Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app", corev1.EnvVar{Name: "AWS_STS_REGIONAL_ENDPOINTS", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}})}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount},
			env:  map[string]string{"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/credentials", "AWS_EC2_METADATA_DISABLED": "true", "AWS_STS_REGIONAL_ENDPOINTS": ""},
			kept: []string{"app/AWS_STS_REGIONAL_ENDPOINTS"}},
		{name: "a mount of another volume at the credentials folder is kept and listed",
			pod: Pod{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "app:1", VolumeMounts: []corev1.VolumeMount{{Name: "other", MountPath: CredentialsDir}}}},
				Volumes:    []corev1.Volume{{Name: "other", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{{Name: "other", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, credentialsVolume},
			mounts:  []corev1.VolumeMount{{Name: "other", MountPath: CredentialsDir}},
			env:     fullEnv,
			kept:    []string{"app/mount:" + CredentialsDir}},
		{name: "leash's token volume wired for another audience is kept and listed, for validation to judge",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}, Volumes: []corev1.Volume{token("old", "token")}}},
			req: request("app", stsSpec, nil), wiring: Wiring{Mode: leashv1.ModeManual},
			volumes: []corev1.Volume{token("old", "token"), credentialsVolume},
			mounts:  []corev1.VolumeMount{credentialsMount, {Name: TokenVolume, MountPath: "/var/run/secrets/openshift/serviceaccount", ReadOnly: true}},
			env:     fullEnv, kept: []string{"volume/" + TokenVolume}},
		{name: "the pod's own token volume for another audience is left to it; leash adds its own",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}, Volumes: []corev1.Volume{func() corev1.Volume {
				v := token("vault", "token")
				v.Name = "vault-token"
				return v
			}()}}},
			req: request("app", stsSpec, nil), wiring: Wiring{Mode: leashv1.ModeManual},
			volumes: []corev1.Volume{func() corev1.Volume {
				v := token("vault", "token")
				v.Name = "vault-token"
				return v
			}(), credentialsVolume, token(oidcissuer.DefaultAudience, "token")},
			mounts: []corev1.VolumeMount{credentialsMount, {Name: TokenVolume, MountPath: "/var/run/secrets/openshift/serviceaccount", ReadOnly: true}},
			env:    fullEnv},
		{name: "init containers are wired as containers are",
			pod:     Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{container("init")}, Containers: []corev1.Container{container("app"), container("sidecar")}}},
			req:     request("app", keySpec, nil),
			volumes: []corev1.Volume{credentialsVolume}, mounts: []corev1.VolumeMount{credentialsMount}, env: fullEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.Spec.DeepCopy()
			got, kept, err := Wire(tt.pod, tt.sa, tt.req, tt.wiring)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&tt.pod.Spec, before) {
				t.Error("Wire changed the pod it was given")
			}
			if !reflect.DeepEqual(got.Spec.Volumes, tt.volumes) {
				t.Errorf("volumes\n%+v\nwant\n%+v", got.Spec.Volumes, tt.volumes)
			}
			for _, c := range append(append([]corev1.Container{}, got.Spec.InitContainers...), got.Spec.Containers...) {
				if !reflect.DeepEqual(c.VolumeMounts, tt.mounts) {
					t.Errorf("container %s mounts %+v, want %+v", c.Name, c.VolumeMounts, tt.mounts)
				}
				if e := envMap(c); !reflect.DeepEqual(e, tt.env) {
					t.Errorf("container %s env %v, want %v", c.Name, e, tt.env)
				}
			}
			if !reflect.DeepEqual(kept, tt.kept) {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
			if a := got.Annotations[workload.AnnotationCredentialsKept]; a != strings.Join(tt.kept, ",") {
				t.Errorf("annotation %s %q, want %q", workload.AnnotationCredentialsKept, a, strings.Join(tt.kept, ","))
			}
			if a := got.Annotations[workload.AnnotationCredentialsInjected]; a != "apps/app" {
				t.Errorf("annotation %s %q, want apps/app", workload.AnnotationCredentialsInjected, a)
			}
			// Admission reinvokes the webhook on the pod it wired: nothing
			// more may change, or the patch would grow at every call.
			again, keptAgain, err := Wire(got, tt.sa, tt.req, tt.wiring)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, got) || !reflect.DeepEqual(keptAgain, kept) {
				t.Errorf("wiring the wired pod changed it:\n%+v\nthen\n%+v", got, again)
			}
		})
	}
}

func TestWireRefuses(t *testing.T) {
	pod := Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}}
	clash := Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")},
		Volumes: []corev1.Volume{{Name: CredentialsVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
	tests := []struct {
		name string
		pod  Pod
		req  *leashv1.CredentialsRequest
		want string
	}{
		{"a request for another cloud", pod, request("app", `{"kind":"GCPProviderSpec"}`, nil), "is not for AWS"},
		{"a request whose mode annotation names no mode", pod, request("app", keySpec, map[string]string{"leash.dev/mode": "Magic"}), `metadata.annotations[leash.dev/mode]: "Magic" is not a mode`},
		{"a pod whose own volume has the name leash adds", clash, request("app", keySpec, nil), "rename that volume"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Wire(tt.pod, nil, tt.req, Wiring{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
