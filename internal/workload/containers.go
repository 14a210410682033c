package workload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// podContainer is a container of a pod, of any kind, with the JSON path of
// it under the pod spec (".initContainers[0]").
type podContainer struct {
	corev1.Container
	at string
	// ephemeral is set for an ephemeral container, which admission never
	// wires.
	ephemeral bool
}

// containers are every container of the pod that can receive its
// credentials, and each is judged by the same rules: init containers (which
// admission wires as it wires the others), the regular ones, and ephemeral
// containers (kubectl debug), which are added to a running pod and share
// its network, its volumes and so its reach to the instance metadata
// service. Container names are unique across the three lists.
func containers(spec corev1.PodSpec) []podContainer {
	out := make([]podContainer, 0, len(spec.InitContainers)+len(spec.Containers)+len(spec.EphemeralContainers))
	for i, c := range spec.InitContainers {
		out = append(out, podContainer{Container: c, at: fmt.Sprintf(".initContainers[%d]", i)})
	}
	for i, c := range spec.Containers {
		out = append(out, podContainer{Container: c, at: fmt.Sprintf(".containers[%d]", i)})
	}
	for i, c := range spec.EphemeralContainers {
		out = append(out, podContainer{Container: corev1.Container(c.EphemeralContainerCommon), at: fmt.Sprintf(".ephemeralContainers[%d]", i), ephemeral: true})
	}
	return out
}
