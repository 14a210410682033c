// Package workload checks how Kubernetes workloads consume the credentials
// leash issues, so that a controller fails closed instead of falling back
// to the node's instance role: no host network, IMDS disabled, the SDK
// pointed at the mounted Secret, the projected token where the request
// says, and an egress policy that keeps pods away from 169.254.169.254.
// A pod that must keep IMDS declares the metadata profile instead (see
// profile.go), which asks for a required Secret and a pruned node role.
package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/reqmode"
	"leash.dev/leash/policy"
)

// imds are the instance metadata service's addresses, IPv4 and IPv6.
var imds = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}

// Set is what a folder of manifests holds: the workloads' pod templates,
// the CredentialsRequests, and the NetworkPolicies.
type Set struct {
	Pods     []Pod
	Requests []*leashv1.CredentialsRequest
	Policies []networkingv1.NetworkPolicy
	// Secrets are the Secrets in the manifests: their keys say whether
	// they hold credentials.
	Secrets []corev1.Secret
	// ServiceAccounts are the ServiceAccounts in the manifests: one may
	// declare the metadata profile for the pods that run as it.
	ServiceAccounts []corev1.ServiceAccount
	// NodeRole are the node role's policies, which the metadata profile
	// checks against NodeRoleOnly (nil: DefaultNodeRoleOnly).
	NodeRole     []policy.Named
	NodeRoleOnly []string
	// Audience is the audience the roles trust in a projected token (the
	// operator's --oidc-audience); empty means oidcissuer.DefaultAudience.
	Audience string
	// Mode is the cluster's credentials mode, which decides with each
	// request's leash.dev/mode whether it is STS and needs a token; empty
	// means Manual, where a request with stsIAMRoleARN is STS.
	Mode leashv1.CredentialsMode
}

// isSTS says whether the request is in STS mode, as the operator takes
// it (reqmode): its credentials file names a role and a token, no key.
func (s *Set) isSTS(r *leashv1.CredentialsRequest) bool {
	spec, err := reqmode.Spec(r)
	if err != nil {
		return false
	}
	cluster := s.Mode
	if cluster == "" {
		cluster = leashv1.ModeManual
	}
	mode, err := reqmode.Of(r, spec, cluster)
	return err == nil && mode == leashv1.ModeSTS
}

// audience is the audience a projected token must carry.
func (s *Set) audience() string {
	if s.Audience == "" {
		return oidcissuer.DefaultAudience
	}
	return s.Audience
}

// Pod is a pod template with where it came from.
type Pod struct {
	// Source is "file: Kind namespace/name".
	Source    string
	Kind      string
	Name      string
	Namespace string
	Labels    map[string]string
	// Annotations are the pod template's: leash.dev/imds declares the
	// metadata profile.
	Annotations map[string]string
	Spec        corev1.PodSpec
	// Path is the JSON path of the pod spec in its manifest.
	Path string
}

// Read reads the manifests of files: Deployments, DaemonSets,
// StatefulSets, Pods, CronJobs and Jobs, CredentialsRequests, Secrets and
// NetworkPolicies; other kinds are skipped.
func Read(files ...string) (*Set, error) {
	s := &Set{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := s.addManifests(f, data); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Parse reads manifests as Read reads a file of them; name says where they
// came from, in messages and in each pod's Source.
func Parse(name string, data []byte) (*Set, error) {
	s := &Set{}
	if err := s.addManifests(name, data); err != nil {
		return nil, err
	}
	return s, nil
}

// addManifests adds the documents of data, the manifests of file.
func (s *Set) addManifests(file string, data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		if err := s.add(file, doc, raw); err != nil {
			return err
		}
	}
}

func (s *Set) add(file string, doc int, raw []byte) error {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(raw, &head); err != nil {
		return fmt.Errorf("%s: document %d: %w", file, doc, err)
	}
	decode := func(into any) error {
		if err := yaml.UnmarshalStrict(raw, into); err != nil {
			return fmt.Errorf("%s: document %d (%s): %w", file, doc, head.Kind, err)
		}
		return nil
	}
	var annotationErr error // a leash.dev/imds annotation no profile has
	pod := func(meta metav1.ObjectMeta, tmpl corev1.PodTemplateSpec, p string) {
		ns := meta.Namespace
		if ns == "" {
			ns = "default"
		}
		annotationErr = profileAnnotation(file, doc, head.Kind, tmpl.Annotations)
		s.Pods = append(s.Pods, Pod{Source: fmt.Sprintf("%s: %s %s/%s", file, head.Kind, ns, meta.Name),
			Kind: head.Kind, Name: meta.Name, Namespace: ns, Labels: tmpl.Labels, Annotations: tmpl.Annotations, Spec: tmpl.Spec, Path: p})
	}
	switch head.Kind {
	case "Deployment":
		var o appsv1.Deployment
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, o.Spec.Template, "spec.template.spec")
	case "DaemonSet":
		var o appsv1.DaemonSet
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, o.Spec.Template, "spec.template.spec")
	case "StatefulSet":
		var o appsv1.StatefulSet
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, o.Spec.Template, "spec.template.spec")
	case "Job":
		var o batchv1.Job
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, o.Spec.Template, "spec.template.spec")
	case "CronJob":
		var o batchv1.CronJob
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, o.Spec.JobTemplate.Spec.Template, "spec.jobTemplate.spec.template.spec")
	case "Pod":
		var o corev1.Pod
		if err := decode(&o); err != nil {
			return err
		}
		pod(o.ObjectMeta, corev1.PodTemplateSpec{ObjectMeta: o.ObjectMeta, Spec: o.Spec}, "spec")
	case "CredentialsRequest":
		var o leashv1.CredentialsRequest
		if err := decode(&o); err != nil {
			return err
		}
		s.Requests = append(s.Requests, &o)
	case "Secret":
		var o corev1.Secret
		if err := decode(&o); err != nil {
			return err
		}
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		s.Secrets = append(s.Secrets, o)
	case "ServiceAccount":
		var o corev1.ServiceAccount
		if err := decode(&o); err != nil {
			return err
		}
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		annotationErr = profileAnnotation(file, doc, head.Kind, o.Annotations)
		s.ServiceAccounts = append(s.ServiceAccounts, o)
	case "NetworkPolicy":
		var o networkingv1.NetworkPolicy
		if err := decode(&o); err != nil {
			return err
		}
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		s.Policies = append(s.Policies, o)
	}
	return annotationErr
}

// Check reports, for every pod that receives AWS credentials (see
// credentials), what would let it reach the node's instance role or miss
// its credentials.
func Check(s *Set) []analyze.Finding {
	var out []analyze.Finding
	for _, p := range s.Pods {
		out = append(out, CheckPod(s, p)...)
	}
	analyze.SortFindings(out)
	return out
}

// CheckPod reports the findings of one pod against the requests, Secrets
// and NetworkPolicies of s: a leash.dev/credentials annotation that names
// no usable request (LEASH-WL-012), and, when credentials reach the pod,
// what would let it fall back to the node's role.
func CheckPod(s *Set, p Pod) []analyze.Finding {
	var out []analyze.Finding
	add := func(id string, sev analyze.Severity, at, msg, fix string) {
		out = append(out, analyze.Finding{ID: id, Severity: sev, Policy: p.Source, Path: p.Path + at, Message: msg, Fix: fix})
	}
	n, named, problem := NamedRequest(s, p)
	if problem != nil {
		out = append(out, *problem)
	}
	if _, f := WiredContainers(p); named && f != nil {
		out = append(out, *f)
	}
	creds := credentials(s, p)
	if len(creds) == 0 {
		return out
	}
	out = append(out, checkProfileValue(s, p)...)
	if named && problem == nil {
		out = append(out, checkCredentialsDir(p, n, judged(p, creds))...)
	}
	profile, leash := MetadataProfile(s, p), ReceivesLeash(s, p)
	for _, c := range creds {
		if c.secret != "" && c.req == nil {
			add("LEASH-WL-004", analyze.High, c.at, unwrittenMessage(c), unwrittenFix(c, leash))
		}
		if c.optional && !profile {
			add(idOptional, analyze.High, c.at+".optional",
				fmt.Sprintf("%s is optional: when the Secret is absent the pod starts without its credentials and the AWS SDK silently falls back to the node's instance role (IMDS)", c.what),
				optionalFix(c, leash))
		}
	}
	if profile {
		// The metadata profile's checks take the place of WL-001, -002,
		// -003, -006 and -007 (see profile.go); the token's stay.
		out = append(out, checkProfile(s, p, creds)...)
		out = append(out, checkBroker(p, judged(p, creds))...)
		return append(out, checkTokens(s, p, creds)...)
	}
	if p.Spec.HostNetwork {
		add("LEASH-WL-001", analyze.Critical, ".hostNetwork",
			"the pod receives AWS credentials and runs in the host's network, where the node's instance metadata (and its role) is one request away",
			"remove hostNetwork: true")
	}
	mounts := mountedCredentials(p, creds)
	for _, c := range judged(p, creds) {
		at := c.at
		if v, _ := envValue(c.Container, "AWS_EC2_METADATA_DISABLED"); !strings.EqualFold(v, "true") {
			add("LEASH-WL-002", analyze.High, at+".env",
				fmt.Sprintf("container %s does not set AWS_EC2_METADATA_DISABLED=true: if its credentials (file or variables) are missing or empty, the AWS SDK silently uses the node's instance role", c.Name),
				"add env AWS_EC2_METADATA_DISABLED: \"true\"")
		}
		file, ok := envValue(c.Container, "AWS_SHARED_CREDENTIALS_FILE")
		if want := mounts[c.Name]; !want.empty() && (!ok || !want.holds(path.Clean(file))) {
			add("LEASH-WL-003", analyze.High, at+".env",
				fmt.Sprintf("container %s has AWS_SHARED_CREDENTIALS_FILE %q, not the credentials file of its mounted Secret (%s)", c.Name, file, want),
				"set AWS_SHARED_CREDENTIALS_FILE to "+want.suggestion())
		}
	}
	out = append(out, checkBroker(p, judged(p, creds))...)
	out = append(out, checkTokens(s, p, creds)...)
	switch {
	case p.Spec.HostNetwork:
		add("LEASH-WL-006", analyze.Medium, ".hostNetwork",
			"the pod runs in the host's network, which no NetworkPolicy governs: nothing keeps it from the instance metadata service (169.254.169.254, fd00:ec2::254)",
			"remove hostNetwork: true, then add an egress NetworkPolicy that excludes the metadata service (leash check workload --suggest prints one)")
	case !egressExcludesIMDS(s, p):
		add("LEASH-WL-006", analyze.Medium, "",
			"no NetworkPolicy limits this pod's egress so that the instance metadata service (169.254.169.254, fd00:ec2::254) is unreachable",
			"add an egress NetworkPolicy for its pods that excludes 169.254.169.254/32 and fd00:ec2::254/128 (leash check workload --suggest prints one)")
	}
	return out
}

// checkTokens checks the projected token of each STS request that writes
// one of creds, once per request.
func checkTokens(s *Set, p Pod, creds []credential) []analyze.Finding {
	var out []analyze.Finding
	seen := map[*leashv1.CredentialsRequest]bool{}
	for _, c := range creds {
		if c.req == nil || seen[c.req] {
			continue
		}
		seen[c.req] = true
		out = append(out, checkToken(s, p, c.req)...)
	}
	return out
}

// unwrittenMessage is LEASH-WL-004's message for credentials c from a
// Secret no request writes. Variables are named for what they do: the AWS
// SDK reads AWS_ACCESS_KEY_ID and the like before any credentials file
// (https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html),
// so they take the place of the file leash wires.
func unwrittenMessage(c credential) string {
	msg := fmt.Sprintf("the pod takes credentials from %s, which no CredentialsRequest in the checked manifests writes", c.what)
	if c.drop != "" {
		msg += ": the AWS SDK reads credential variables before the credentials file leash wires, so these would take its place"
	}
	return msg
}

// unwrittenFix is LEASH-WL-004's fix: for a variable, remove it, since
// the file of the pod's request is its credentials (leash says whether a
// leash credential reaches the pod; if none does, the fix names the
// annotation that wires one); adding a request for the Secret would leave
// two sources of keys. For a volume, the request that writes the Secret.
func unwrittenFix(c credential, leash bool) string {
	switch {
	case c.drop != "" && leash:
		return c.drop + " (the pod's credentials are the file of its CredentialsRequest's Secret, which admission wires)"
	case c.drop != "":
		return c.drop + ", and name the pod's CredentialsRequest in annotation " + AnnotationCredentials + " on the pod template (admission wires its Secret's credentials file)"
	}
	return "add the CredentialsRequest that writes it, or check the Secret's name against spec.secretRef"
}

// optionalFix is LEASH-WL-007's fix. A Secret a request writes will be
// written: make it required. One no request writes is not, and the rule
// that made it optional (a fallback to the node's role) is what leash
// replaces: a variable of it is removed as LEASH-WL-004 says (removing
// optional: true alone leaves that finding), a volume of it replaced by
// the request's.
func optionalFix(c credential, leash bool) string {
	switch {
	case c.req != nil:
		return "remove optional: true, so that the pod does not start until its credentials exist"
	case c.drop != "":
		return unwrittenFix(c, leash) + "; removing optional: true alone leaves the variable reading a Secret no CredentialsRequest writes (LEASH-WL-004)"
	default:
		return fmt.Sprintf("add the CredentialsRequest that writes Secret %s and remove optional: true, or remove the volume and its mounts", c.secret)
	}
}

// idOptional is the finding of a credential Secret marked optional.
const idOptional = "LEASH-WL-007"

// credentialPaths are where a container may find its credentials file:
// exact files, or any file under a folder (a Secret whose keys are not in
// the manifests).
type credentialPaths struct{ files, dirs []string }

func (w credentialPaths) empty() bool { return len(w.files)+len(w.dirs) == 0 }

func (w credentialPaths) holds(file string) bool {
	if contains(w.files, file) {
		return true
	}
	for _, d := range w.dirs {
		if within(file, d) && file != d {
			return true
		}
	}
	return false
}

func (w credentialPaths) String() string {
	all := append([]string{}, w.files...)
	for _, d := range w.dirs {
		all = append(all, d+"/...")
	}
	return strings.Join(all, ", ")
}

func (w credentialPaths) suggestion() string {
	if len(w.files) > 0 {
		return w.files[0]
	}
	return "the credentials file's key under " + w.dirs[0]
}

// mountedCredentials maps each container to the credentials files its
// mounts of credential Secrets make visible.
func mountedCredentials(p Pod, creds []credential) map[string]credentialPaths {
	out := map[string]credentialPaths{}
	for _, c := range containers(p.Spec) {
		w := out[c.Name]
		for _, m := range c.VolumeMounts {
			for _, v := range creds {
				if v.secret == "" || m.Name != v.volume {
					continue
				}
				switch {
				case m.SubPath != "":
					w.files = append(w.files, path.Clean(m.MountPath))
				case v.files == nil:
					w.dirs = append(w.dirs, path.Clean(m.MountPath))
				default:
					for _, f := range v.files {
						w.files = append(w.files, path.Join(m.MountPath, f))
					}
				}
			}
		}
		out[c.Name] = w
	}
	return out
}

// checkToken checks the projected service account token of an STS request:
// its audience (the Set's) and where it is mounted. Only the request's own
// token is judged (requestToken): a pod holds others, such as the
// kube-api-access-* volume that a cluster's ServiceAccount admission adds to
// every pod, before webhooks run, with a token for the API server itself;
// judging that one as the request's would refuse every STS pod in the
// webhook while leash check workload, which never sees it, admits it.
func checkToken(s *Set, p Pod, r *leashv1.CredentialsRequest) []analyze.Finding {
	audience := s.audience()
	if !s.isSTS(r) {
		return nil
	}
	want := r.Spec.CloudTokenPath
	if want == "" {
		want = leashv1.DefaultCloudTokenPath
	}
	var out []analyze.Finding
	found := false
	for _, v := range p.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			t := src.ServiceAccountToken
			if t == nil || !requestToken(p, v.Name, t, want, audience) {
				continue
			}
			for _, c := range containers(p.Spec) {
				for _, m := range c.VolumeMounts {
					if m.Name != v.Name {
						continue
					}
					found = true
					if got := path.Join(m.MountPath, t.Path); got != want {
						out = append(out, analyze.Finding{ID: "LEASH-WL-005", Severity: analyze.High, Policy: p.Source,
							Path:    fmt.Sprintf("%s.containers[%s].volumeMounts[%s]", p.Path, c.Name, m.Name),
							Message: fmt.Sprintf("the projected token is at %s, but the credentials file names %s (spec.cloudTokenPath of %s)", got, want, requestLabel(p, r)),
							Fix:     "mount the token so that its path is " + want + ", or set cloudTokenPath to " + got})
					}
				}
			}
			if t.Audience != audience {
				out = append(out, analyze.Finding{ID: "LEASH-WL-005", Severity: analyze.High, Policy: p.Source,
					Path:    fmt.Sprintf("%s.volumes[%s].projected", p.Path, v.Name),
					Message: fmt.Sprintf("the projected token's audience is %q; the roles trust %q (the cluster's OIDC audience), so STS refuses the token", t.Audience, audience),
					Fix:     "set audience: " + audience + " (or check with the audience the roles trust: --oidc-audience)"})
			}
		}
	}
	if !found {
		out = append(out, analyze.Finding{ID: "LEASH-WL-005", Severity: analyze.High, Policy: p.Source, Path: p.Path + ".volumes",
			Message: fmt.Sprintf("%s uses STS, but the pod mounts no projected service account token for it: none at %s, in volume %s, or for audience %s", requestLabel(p, r), want, TokenVolume, audience),
			Fix:     fmt.Sprintf("add a projected volume with a serviceAccountToken (audience %s) mounted at %s", audience, want)})
	}
	return out
}

// requestLabel names request r in a message about pod p: by its name when
// it is in the pod's namespace, else by the Secret it writes there, so that
// a message (an admission refusal, which a dry-run create returns) names
// only what the pod's author may see.
func requestLabel(p Pod, r *leashv1.CredentialsRequest) string {
	if r.Namespace == p.Namespace {
		return fmt.Sprintf("CredentialsRequest %s/%s", r.Namespace, r.Name)
	}
	return fmt.Sprintf("the CredentialsRequest that writes Secret %s/%s", p.Namespace, r.Spec.SecretRef.Name)
}

// requestToken says whether a projected token of volume is the one an STS
// request's credentials file names: mounted at its cloudTokenPath (want) in
// a container, in the volume admission wires (TokenVolume), or for the
// audience the roles trust. Each is judged, audience and place, rather than
// trusted by its name; any other token (the API server's kube-api-access-*,
// a token for another audience mounted elsewhere) is not the request's.
func requestToken(p Pod, volume string, t *corev1.ServiceAccountTokenProjection, want, audience string) bool {
	if volume == TokenVolume || t.Audience == audience {
		return true
	}
	for _, c := range containers(p.Spec) {
		for _, m := range c.VolumeMounts {
			if m.Name == volume && path.Join(m.MountPath, t.Path) == want {
				return true
			}
		}
	}
	return false
}

// egressExcludesIMDS says whether a NetworkPolicy selecting the pod limits
// its egress and none of the pod's egress rules reaches the metadata
// service. It does not look at hostNetwork: CheckPod does, since no
// NetworkPolicy governs a host-network pod.
func egressExcludesIMDS(s *Set, p Pod) bool {
	limited := false
	for _, np := range s.Policies {
		if np.Namespace != p.Namespace || !selects(np.Spec.PodSelector, p.Labels) || !hasEgress(np) {
			continue
		}
		limited = true
		for _, rule := range np.Spec.Egress {
			if ruleReachesIMDS(rule) {
				return false
			}
		}
	}
	return limited
}

// ruleReachesIMDS says whether an egress rule allows HTTP (TCP 80) to
// 169.254.169.254 or fd00:ec2::254 (so ::/0 reaches it as 0.0.0.0/0 does): its ports include it (or it names none) and a peer's
// ipBlock contains the address (or it names no peer). Pod and namespace
// selectors select pods, never the metadata service.
func ruleReachesIMDS(rule networkingv1.NetworkPolicyEgressRule) bool {
	portOK := len(rule.Ports) == 0
	for _, p := range rule.Ports {
		tcp := p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP
		if !tcp {
			continue
		}
		if p.Port == nil {
			portOK = true
			continue
		}
		n := p.Port.IntValue()
		end := n
		if p.EndPort != nil {
			end = int(*p.EndPort)
		}
		if p.Port.Type == intstr.String && p.Port.StrVal == "http" || n <= 80 && 80 <= end {
			portOK = true
		}
	}
	if !portOK {
		return false
	}
	if len(rule.To) == 0 {
		return true
	}
	for _, peer := range rule.To {
		if peer.IPBlock == nil {
			continue
		}
		for _, a := range imds {
			if blockReaches(*peer.IPBlock, a) {
				return true
			}
		}
	}
	return false
}

func hasEgress(np networkingv1.NetworkPolicy) bool {
	for _, t := range np.Spec.PolicyTypes {
		if t == networkingv1.PolicyTypeEgress {
			return true
		}
	}
	return len(np.Spec.Egress) > 0
}

func selects(sel metav1.LabelSelector, l map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(&sel)
	return err == nil && s.Matches(labels.Set(l))
}

// blockReaches says whether an ipBlock lets traffic reach addr: inside
// its CIDR and outside every except.
func blockReaches(b networkingv1.IPBlock, addr netip.Addr) bool {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil || !cidr.Contains(addr) {
		return false
	}
	for _, e := range b.Except {
		if ex, err := netip.ParsePrefix(e); err == nil && ex.Contains(addr) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
