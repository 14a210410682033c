package admission

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/workload"
)

// testAgent is the operator's broker agent in these tests; its CA is
// public data, any PEM will do.
var testAgent = Agent{Image: "registry.example/leash:1.2.0", Upstream: "https://leash-broker.leash-system.svc:8443",
	CA: []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")}

func brokerWiring() Wiring { a := testAgent; return Wiring{Mode: leashv1.ModeMint, Agent: &a} }

func brokerRequest() *leashv1.CredentialsRequest {
	return request("app", keySpec, map[string]string{"leash.dev/mode": string(leashv1.ModeBroker)})
}

func brokerToken(name, audience string) corev1.Volume {
	seconds := int64(broker.TokenExpirationSeconds)
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
		ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, ExpirationSeconds: &seconds, Path: "token"}}}}}}
}

func TestWireBroker(t *testing.T) {
	tokenMount := corev1.VolumeMount{Name: broker.TokenVolume, MountPath: broker.TokenDir, ReadOnly: true}
	fullEnv := map[string]string{
		broker.EnvFullURI:            "http://127.0.0.1:9911/v1/credentials",
		broker.EnvTokenFile:          "/var/run/secrets/leash.dev/broker/token",
		"AWS_EC2_METADATA_DISABLED":  "true",
		"AWS_STS_REGIONAL_ENDPOINTS": "regional",
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range m {
			out[a] = b
		}
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name    string
		pod     Pod
		sa      map[string]string
		req     *leashv1.CredentialsRequest
		wiring  Wiring
		volumes []corev1.Volume
		mounts  map[string][]corev1.VolumeMount // by container
		env     map[string]map[string]string    // by container
		kept    []string
	}{
		{name: "a Broker request's containers get the container-credentials variables and the broker's token, read-only; no Secret",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"app": {tokenMount}},
			env:     map[string]map[string]string{"app": fullEnv}},
		{name: "a cluster in Broker mode wires a request without the annotation the same",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: request("app", keySpec, nil), wiring: func() Wiring { w := brokerWiring(); w.Mode = leashv1.ModeBroker; return w }(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"app": {tokenMount}},
			env:     map[string]map[string]string{"app": fullEnv}},
		{name: "the metadata profile keeps IMDS: no AWS_EC2_METADATA_DISABLED in the wired containers",
			pod: Pod{Annotations: map[string]string{workload.ProfileAnnotation: workload.ProfileMetadata}, Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"app": {tokenMount}},
			env:     map[string]map[string]string{"app": with(fullEnv, "AWS_EC2_METADATA_DISABLED", "")}},
		{name: "init containers are wired, after the agent; containers the annotation leaves out are not",
			pod: Pod{Annotations: map[string]string{workload.AnnotationCredentialsContainers: "init,app"},
				Spec: corev1.PodSpec{InitContainers: []corev1.Container{container("init")}, Containers: []corev1.Container{container("app"), container("sidecar")}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"init": {tokenMount}, "app": {tokenMount}, "sidecar": nil},
			env:     map[string]map[string]string{"init": fullEnv, "app": fullEnv, "sidecar": {}}},
		{name: "a pod's own volume of the broker's token is reused, and the token file variable follows its mount",
			pod: Pod{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "app:1", VolumeMounts: []corev1.VolumeMount{{Name: "broker", MountPath: "/tokens", ReadOnly: true}}}},
				Volumes:    []corev1.Volume{brokerToken("broker", broker.Audience)}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken("broker", broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"app": {{Name: "broker", MountPath: "/tokens", ReadOnly: true}}},
			env:     map[string]map[string]string{"app": with(fullEnv, broker.EnvTokenFile, "/tokens/token")}},
		{name: "a variable the pod sets otherwise is kept and listed",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app", corev1.EnvVar{Name: broker.EnvFullURI, Value: "http://127.0.0.1:8080/creds"})}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, broker.Audience)},
			mounts:  map[string][]corev1.VolumeMount{"app": {tokenMount}},
			env:     map[string]map[string]string{"app": with(fullEnv, broker.EnvFullURI, "http://127.0.0.1:8080/creds")},
			kept:    []string{"app/" + broker.EnvFullURI}},
		{name: "leash's broker token volume for another audience is kept and listed, for validation to judge",
			pod: Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}, Volumes: []corev1.Volume{brokerToken(broker.TokenVolume, "sts.amazonaws.com")}}},
			req: brokerRequest(), wiring: brokerWiring(),
			volumes: []corev1.Volume{brokerToken(broker.TokenVolume, "sts.amazonaws.com")},
			mounts:  map[string][]corev1.VolumeMount{"app": {tokenMount}},
			env:     map[string]map[string]string{"app": fullEnv},
			kept:    []string{"volume/" + broker.TokenVolume}},
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
			if len(got.Spec.InitContainers) == 0 || !reflect.DeepEqual(got.Spec.InitContainers[0], *agentContainer(*tt.wiring.Agent)) {
				t.Fatalf("the first init container is not the agent: %+v", got.Spec.InitContainers)
			}
			for _, c := range append(append([]corev1.Container{}, got.Spec.InitContainers[1:]...), got.Spec.Containers...) {
				if !reflect.DeepEqual(c.VolumeMounts, tt.mounts[c.Name]) {
					t.Errorf("container %s mounts %+v, want %+v", c.Name, c.VolumeMounts, tt.mounts[c.Name])
				}
				if e := envMap(c); !reflect.DeepEqual(e, tt.env[c.Name]) {
					t.Errorf("container %s env %v, want %v", c.Name, e, tt.env[c.Name])
				}
				if _, ok := workload.LastEnv(c, "AWS_SHARED_CREDENTIALS_FILE"); ok {
					t.Errorf("container %s was given a credentials file", c.Name)
				}
			}
			if !reflect.DeepEqual(kept, tt.kept) {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
			if a := got.Annotations[workload.AnnotationCredentialsInjected]; a != "apps/app" {
				t.Errorf("annotation %s %q, want apps/app", workload.AnnotationCredentialsInjected, a)
			}
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

// TestBrokerAgentContainer pins the agent's sidecar: a native sidecar
// (restartPolicy Always on an init container) that runs the operator's
// image as `leash broker agent` on the agent's loopback port, with the
// broker's URL and CA, and the restricted Pod Security Standard's settings.
// https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/
// https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
func TestBrokerAgentContainer(t *testing.T) {
	c := agentContainer(testAgent)
	if c.Name != AgentContainer || c.Image != testAgent.Image || c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Errorf("name %s image %s restart policy %v, want a native sidecar of the operator's image", c.Name, c.Image, c.RestartPolicy)
	}
	args := strings.Join(append(append([]string{}, c.Command...), c.Args...), " ")
	want := "/leash broker agent --listen=127.0.0.1:9911 --upstream=https://leash-broker.leash-system.svc:8443 --upstream-ca=" + base64.StdEncoding.EncodeToString(testAgent.CA)
	if args != want {
		t.Errorf("runs %q, want %q", args, want)
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil ||
		!reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("security context %+v is not the restricted standard's", sc)
	}
	if len(c.VolumeMounts) != 0 {
		t.Errorf("the agent mounts %v; it holds no token of its own", c.VolumeMounts)
	}
	if c.Resources.Requests.Cpu().MilliValue() > 50 || c.Resources.Requests.Memory().Value() > 32<<20 {
		t.Errorf("requests %v, want small ones", c.Resources.Requests)
	}
}

func TestWireBrokerRefuses(t *testing.T) {
	pod := func(edit func(*corev1.PodSpec)) Pod {
		p := Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app")}}}
		edit(&p.Spec)
		return p
	}
	tests := []struct {
		name   string
		pod    Pod
		wiring Wiring
		want   string
	}{
		{"an operator that serves no broker agent", pod(func(*corev1.PodSpec) {}), Wiring{}, "serves no broker agent: give the operator --broker-url"},
		{"a pod in the host's network, whose loopback is the node's", pod(func(s *corev1.PodSpec) { s.HostNetwork = true }), brokerWiring(), "runs in the host's network"},
		{"a pod's own container named as the agent", pod(func(s *corev1.PodSpec) { s.Containers = append(s.Containers, container(AgentContainer)) }), brokerWiring(), "rename that container"},
		{"a pod's own init container named as the agent, another image", pod(func(s *corev1.PodSpec) { s.InitContainers = []corev1.Container{container(AgentContainer)} }), brokerWiring(), "rename that container"},
		{"a pod's own volume named as the broker's token", pod(func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: broker.TokenVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}), brokerWiring(), "rename that volume"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Wire(tt.pod, nil, brokerRequest(), tt.wiring)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestWireSetBrokerThenCheck pins that leash check workload judges a pod
// naming a Broker-mode request as admission stores it: wired (with a
// stand-in agent, since the check knows no broker), it has no finding.
func TestWireSetBrokerThenCheck(t *testing.T) {
	m := strings.Replace(setRequests, "metadata: {name: app, namespace: apps}", "metadata: {name: app, namespace: apps, annotations: {leash.dev/mode: Broker}}", 1) +
		deployment("{leash.dev/credentials: app}", "")
	s, err := workload.Parse("m.yaml", []byte(m))
	if err != nil {
		t.Fatal(err)
	}
	if err := WireSet(s, Wiring{Mode: leashv1.ModeManual}); err != nil {
		t.Fatal(err)
	}
	p := s.Pods[0]
	if len(p.Spec.InitContainers) != 2 || p.Spec.InitContainers[0].Name != AgentContainer {
		t.Fatalf("init containers %+v, want the agent then init", p.Spec.InitContainers)
	}
	if fs := workload.CheckPod(s, p); len(fs) != 0 {
		t.Errorf("findings on the wired pod: %v", fs)
	}
}

// TestWireSetBrokerUnderTheMetadataProfile pins that a Broker-mode pod
// that keeps IMDS (metadata profile, node role given) is judged by the
// profile's rules: its containers' credentials come from the broker, not
// a file (no LEASH-WL-009, and the agent's variables are no LEASH-WL-010),
// and the agent, whose SDK has IMDS off, is asked for no file.
func TestWireSetBrokerUnderTheMetadataProfile(t *testing.T) {
	m := strings.Replace(setRequests, "metadata: {name: app, namespace: apps}", "metadata: {name: app, namespace: apps, annotations: {leash.dev/mode: Broker}}", 1) +
		deployment("{leash.dev/credentials: app, leash.dev/imds: metadata}", "")
	s, err := workload.Parse("m.yaml", []byte(m))
	if err != nil {
		t.Fatal(err)
	}
	s.NodeRole = exampleNodeRole(t)
	if err := WireSet(s, Wiring{Mode: leashv1.ModeManual}); err != nil {
		t.Fatal(err)
	}
	if fs := workload.CheckPod(s, s.Pods[0]); len(fs) != 0 {
		t.Errorf("findings on the wired pod: %v", fs)
	}
	// Without the broker's token, the profile's file rule holds again.
	s.Pods[0].Spec.Volumes = nil
	for i := range s.Pods[0].Spec.Containers {
		s.Pods[0].Spec.Containers[i].VolumeMounts = nil
	}
	if got := ids(workload.CheckPod(s, s.Pods[0])); !strings.Contains(got, "LEASH-WL-009") {
		t.Errorf("findings %s on the pod without the broker's token, want LEASH-WL-009", got)
	}
}
