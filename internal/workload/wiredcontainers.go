package workload

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"leash.dev/leash/analyze"
)

// AnnotationCredentialsContainers on a pod (template) names, separated by
// commas, the containers (init or regular) that admission wires to the
// request the pod names; without it every one is wired. A controller's
// sidecars (a CSI driver's provisioner, attacher and liveness probe) never
// call AWS, and a key they hold is one more place it can leak from.
const AnnotationCredentialsContainers = "leash.dev/credentials-containers"

// idContainers is the finding of a leash.dev/credentials-containers
// annotation that names a container the pod does not have, or none.
const idContainers = "LEASH-WL-014"

// Wired is the set of containers admission wires; nil is every container.
type Wired map[string]bool

// Has says whether admission wires the container name.
func (w Wired) Has(name string) bool { return w == nil || w[name] }

// WiredContainers reads the pod's leash.dev/credentials-containers
// annotation: the containers admission wires, nil (every init and regular
// container) when the pod has none. A problem (LEASH-WL-014), with nil, is
// returned when it names a container the pod does not have, or none: the
// container meant to hold the credentials (a misspelt name) would start
// without them and its AWS SDK fall back to the node's instance role, so
// admission refuses the pod rather than wire the others.
func WiredContainers(p Pod) (Wired, *analyze.Finding) {
	v, ok := p.Annotations[AnnotationCredentialsContainers]
	if !ok {
		return nil, nil
	}
	var have []string
	for _, c := range p.Spec.InitContainers {
		have = append(have, c.Name)
	}
	for _, c := range p.Spec.Containers {
		have = append(have, c.Name)
	}
	w := Wired{}
	var unknown []string
	for _, name := range strings.Split(v, ",") {
		switch name = strings.TrimSpace(name); {
		case name == "":
		case slices.Contains(have, name):
			w[name] = true
		default:
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) == 0 && len(w) > 0 {
		return w, nil
	}
	what := "names no container"
	if len(unknown) > 0 {
		what = "names " + strings.Join(unknown, ", ") + ", which the pod does not have"
	}
	its := strings.Join(have, ", ")
	if its == "" {
		its = "none"
	}
	return nil, &analyze.Finding{ID: idContainers, Severity: analyze.High, Policy: p.Source,
		Path:    strings.TrimSuffix(p.Path, "spec") + "metadata.annotations[" + AnnotationCredentialsContainers + "]",
		Message: fmt.Sprintf("annotation %s %s (its init and regular containers: %s): the container meant to receive the credentials would start without them and its AWS SDK fall back to the node's instance role", AnnotationCredentialsContainers, what, its),
		Fix:     fmt.Sprintf("name the containers to wire, separated by commas, among %s; or remove the annotation to wire every container", its)}
}

// judged are the containers of a pod that receives creds that the rules
// judge: every one, unless the pod names the containers admission wires
// (AnnotationCredentialsContainers). Then they are the named ones, the
// ephemeral ones (never wired, added later by a person with a shell, and
// judged as before), and any other that receives the credentials all the
// same: it mounts a volume of creds, takes a variable from one of their
// Secrets, or points AWS_SHARED_CREDENTIALS_FILE into leash's credentials
// path. A container deliberately left unwired holds no credential, and is
// not asked for leash's variables.
func judged(p Pod, creds []credential) []podContainer {
	all := containers(p.Spec)
	wired, _ := WiredContainers(p)
	if wired == nil {
		return all
	}
	var out []podContainer
	for _, c := range all {
		if c.ephemeral || wired.Has(c.Name) || receives(c, creds) {
			out = append(out, c)
		}
	}
	return out
}

// receives says whether container c takes one of creds itself.
func receives(c podContainer, creds []credential) bool {
	if file, ok := envValue(c.Container, "AWS_SHARED_CREDENTIALS_FILE"); ok && within(path.Clean(file), CredentialsDir) {
		return true
	}
	for _, cr := range creds {
		if strings.HasPrefix(cr.at, c.at+".") {
			return true // env valueFrom or envFrom of this container
		}
		for _, m := range c.VolumeMounts {
			if cr.volume != "" && m.Name == cr.volume {
				return true
			}
		}
	}
	return false
}
