package admission

import (
	"fmt"

	"leash.dev/leash/internal/workload"
)

// WireSet wires, in place, every pod of s that names a request with
// leash.dev/credentials, as admission would store it, so that leash check
// workload judges the pod the cluster would run. A pod whose annotation
// names no usable request, or containers it does not have, is left as it
// is: CheckPod reports it (LEASH-WL-012, LEASH-WL-014), as admission
// refuses it.
//
// Without o.Agent (leash check workload knows no broker), a Broker-mode pod
// is wired with a stand-in agent: the agent's image and upstream change
// nothing the checks judge, which read the pod's variables and token.
func WireSet(s *workload.Set, o Wiring) error {
	if o.Agent == nil {
		o.Agent = &Agent{Image: "leash", Upstream: "https://leash-broker.leash-system.svc:8443"}
	}
	for i, p := range s.Pods {
		n, ok, problem := workload.NamedRequest(s, p)
		if _, f := workload.WiredContainers(p); !ok || problem != nil || f != nil {
			continue
		}
		var sa map[string]string
		if a := s.ServiceAccountOf(p); a != nil {
			sa = a.Annotations
		}
		wired, _, err := Wire(Pod{Annotations: p.Annotations, Spec: p.Spec}, sa, n.Request, o)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Source, err)
		}
		s.Pods[i].Annotations, s.Pods[i].Spec = wired.Annotations, wired.Spec
	}
	return nil
}
