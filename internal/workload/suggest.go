package workload

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// apiServerPorts are where a controller reaches the Kubernetes API server:
// the in-cluster service's 443 and the API server's own 6443 (which a
// host-network or out-of-cluster address such as the cloud controller
// manager's uses).
var apiServerPorts = []int32{443, 6443}

// Suggest is an egress NetworkPolicy for a pod, as YAML: DNS anywhere, and
// TCP to the API server's ports and to the ports the pod's containers
// declare, anywhere but the instance metadata service (IPv4 and IPv6). Its
// name is the workload's kind and name, so that each pod's policy is its
// own. A pod without labels is refused: an empty podSelector would select
// every pod in the namespace.
func Suggest(p Pod) ([]byte, error) {
	if len(p.Labels) == 0 {
		return nil, fmt.Errorf("%s: the pod template has no labels for a NetworkPolicy to select it by; add metadata.labels to it", p.Source)
	}
	udp, tcp := corev1.ProtocolUDP, corev1.ProtocolTCP
	port := func(n int32, proto corev1.Protocol) networkingv1.NetworkPolicyPort {
		v := intstr.FromInt32(n)
		return networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &v}
	}
	var ports []networkingv1.NetworkPolicyPort
	for _, pp := range podPorts(p) {
		ports = append(ports, port(pp.n, pp.proto))
	}
	np := networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: suggestionName(p), Namespace: p.Namespace},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: p.Labels},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{Ports: []networkingv1.NetworkPolicyPort{port(53, udp), port(53, tcp)}},
				{Ports: ports, To: []networkingv1.NetworkPolicyPeer{
					{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"169.254.169.254/32"}}},
					{IPBlock: &networkingv1.IPBlock{CIDR: "::/0", Except: []string{"fd00:ec2::254/128"}}},
				}},
			},
		},
	}
	return yaml.Marshal(np)
}

// suggestionName is unique per workload of a namespace: its kind and name.
func suggestionName(p Pod) string {
	name := strings.ToLower(p.Kind) + "-" + p.Name + "-deny-instance-metadata"
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.TrimRight(name, "-.")
}

type portProto struct {
	n     int32
	proto corev1.Protocol
}

// podPorts are the API server's ports and the ports the pod's containers
// declare, each once, in order.
func podPorts(p Pod) []portProto {
	seen := map[portProto]bool{}
	var out []portProto
	addPort := func(pp portProto) {
		if pp.n == 53 || seen[pp] {
			return
		}
		seen[pp] = true
		out = append(out, pp)
	}
	for _, n := range apiServerPorts {
		addPort(portProto{n, corev1.ProtocolTCP})
	}
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, cp := range c.Ports {
			proto := cp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			addPort(portProto{cp.ContainerPort, proto})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n < out[j].n
		}
		return out[i].proto < out[j].proto
	})
	return out
}
