package admission

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/broker/agent"
	"leash.dev/leash/internal/workload"
)

// AgentContainer is the name of the broker agent's native sidecar.
const AgentContainer = "leash-broker-agent"

// agentCommand runs the agent (leash broker agent) in the operator's
// image, whose entrypoint is the operator.
var agentCommand = []string{"/leash", "broker", "agent"}

// Agent is what a Broker-mode pod's agent is run with: the operator's own
// image (--broker-agent-image), the broker Service's https URL
// (--broker-url) and the CA that signs the broker's certificate
// (--broker-ca-file), which is public and travels in the agent's
// arguments.
type Agent struct {
	Image    string
	Upstream string
	CA       []byte
}

// Validate names the setting that is wrong and how to fix it.
func (a *Agent) Validate() error {
	u, err := url.Parse(a.Upstream)
	switch {
	case a.Image == "":
		return fmt.Errorf("--broker-agent-image is required with --broker-url: give the operator's own image, which runs the agent in each Broker-mode pod")
	case a.Upstream == "" || err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/":
		return fmt.Errorf("--broker-url %q: give the broker Service's https base URL, such as https://leash-broker.leash-system.svc:8443", a.Upstream)
	case len(a.CA) == 0:
		return fmt.Errorf("--broker-ca-file is required with --broker-url: give the CA certificate (PEM) that signs the broker's serving certificate")
	}
	return nil
}

// broker wires a pod of a Broker-mode request: each wired container gets
// the container credentials variables, which send the SDK to the agent on
// loopback with the pod's token, and the projected token of the broker's
// audience, mounted read-only; the pod gets the agent as a native sidecar
// (an init container that restarts, Kubernetes 1.29 and later), first of
// its init containers so that the others can call it. No Secret is
// mounted: the broker hands out sessions, and leash writes no Secret for
// the request. A pod in the host's network is refused.
func (w *wiring) broker(p Pod, saAnnotations map[string]string, req *leashv1.CredentialsRequest, o Wiring, wires workload.Wired) error {
	if o.Agent == nil {
		return fmt.Errorf("CredentialsRequest %s/%s is in Broker mode, and the operator serves no broker agent: give the operator --broker-url, --broker-ca-file and --broker-agent-image, or give the request another mode", req.Namespace, req.Name)
	}
	if p.Spec.HostNetwork {
		// The agent's loopback would be the node's: shared by every
		// host-network pod there, one of which would take the port and
		// the others' tokens.
		return fmt.Errorf("CredentialsRequest %s/%s is in Broker mode, and the pod runs in the host's network, where the broker agent's loopback port %d is the node's, shared with every host-network pod on it; give the request another mode (leash.dev/mode: Mint or STS) for a host-network pod", req.Namespace, req.Name, broker.AgentPort)
	}
	w.agent = agentContainer(*o.Agent)
	if err := w.addAgent(); err != nil {
		return err
	}
	vol, file, err := w.tokenVolume(broker.TokenVolume, broker.TokenPath, broker.Audience)
	if err != nil {
		return err
	}
	w.file = followed{env: broker.EnvTokenFile, volume: vol, key: file}
	env := append([]corev1.EnvVar{
		{Name: broker.EnvFullURI, Value: broker.AgentURL},
		{Name: broker.EnvTokenFile, Value: path.Join(broker.TokenDir, file)},
	}, imdsEnv(p.Annotations, saAnnotations)...)
	w.containers(wires, []corev1.VolumeMount{{Name: vol, MountPath: broker.TokenDir, ReadOnly: true}}, env)
	return nil
}

// addAgent puts the agent first among the init containers, unless it is
// there. A container of the pod by its name that is not leash's agent is
// refused: wiring would replace it, or leave the pod without an agent.
func (w *wiring) addAgent() error {
	for _, c := range w.pod.Spec.InitContainers {
		if c.Name == AgentContainer {
			if w.isAgent(c) {
				return nil
			}
			break
		}
	}
	all := append(append([]corev1.Container{}, w.pod.Spec.InitContainers...), w.pod.Spec.Containers...)
	if slices.ContainsFunc(all, func(c corev1.Container) bool { return c.Name == AgentContainer }) {
		return fmt.Errorf("the pod has a container named %s that is not the broker agent leash would add there; rename that container (leash adds %s)", AgentContainer, AgentContainer)
	}
	w.pod.Spec.InitContainers = append([]corev1.Container{*w.agent}, w.pod.Spec.InitContainers...)
	return nil
}

// isAgent says whether c is the agent leash adds: its name, image, command,
// arguments and restart policy. The API server fills in the fields leash
// leaves unset (terminationMessagePath ...) before admission calls the
// webhook again, so those are not compared.
func (w *wiring) isAgent(c corev1.Container) bool {
	a := w.agent
	return a != nil && c.Name == a.Name && c.Image == a.Image && slices.Equal(c.Command, a.Command) &&
		slices.Equal(c.Args, a.Args) && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// agentContainer is the agent's native sidecar. It calls no AWS API and
// holds no token (the SDK sends it each call's): it runs as a non-root
// user with no capabilities, no privilege escalation and a read-only root
// file system, and IMDS off like every container the checks judge.
func agentContainer(a Agent) *corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	no, yes := false, true
	return &corev1.Container{
		Name:    AgentContainer,
		Image:   a.Image,
		Command: append([]string(nil), agentCommand...),
		Args: []string{
			"--listen=" + agent.DefaultListen,
			"--upstream=" + a.Upstream,
			"--upstream-ca=" + base64.StdEncoding.EncodeToString(a.CA),
		},
		Env:           []corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: "true"}},
		RestartPolicy: &always,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
		},
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             &yes,
			ReadOnlyRootFilesystem:   &yes,
			AllowPrivilegeEscalation: &no,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}
