package realcontrollers

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/workload"
)

// atContainer matches a finding's path under the pod spec: the container
// and, when there, the variable.
var atContainer = regexp.MustCompile(`^\.(initContainers|containers)\[(\d+)\](?:\.env\[(\d+)\])?`)

// Fix is the edit of a pod's manifest (p, and the cluster's objects
// beside it, to which a NetworkPolicy is added) that finding f's Fix asks
// for: each a mechanical edit, and the fix's text must say it. The edit is
// resolved now and made when called, so that the paths of the other
// findings of one verdict stay true until all are resolved. A finding
// whose fix says no edit made here is an error: its Fix must be one that
// can be made, and that admits the pod.
func Fix(cluster *string, p *workload.Pod, f analyze.Finding) (func(), error) {
	path := strings.TrimPrefix(f.Path, p.Path)
	says := func(edit string) error {
		if !strings.Contains(f.Fix, edit) {
			return fmt.Errorf("%s at %s: its fix %q does not say %q, the edit that admits the pod", f.ID, path, f.Fix, edit)
		}
		return nil
	}
	switch {
	case f.ID == "LEASH-WL-001":
		return func() { p.Spec.HostNetwork = false }, says("remove hostNetwork: true")
	case f.ID == "LEASH-WL-006":
		// The policy leash check workload --suggest prints.
		np, err := workload.Suggest(*p)
		if err != nil {
			return nil, err
		}
		if path == ".hostNetwork" {
			return func() { p.Spec.HostNetwork = false; *cluster += "\n---\n" + string(np) },
				firstErr(says("remove hostNetwork: true, then add an egress NetworkPolicy"), says("leash check workload --suggest prints one"))
		}
		return func() { *cluster += "\n---\n" + string(np) },
			firstErr(says("add an egress NetworkPolicy"), says("leash check workload --suggest prints one"))
	case f.ID == "LEASH-WL-002":
		c, _, err := container(p, path)
		if err != nil {
			return nil, err
		}
		return func() { c.Env = append(c.Env, corev1.EnvVar{Name: "AWS_EC2_METADATA_DISABLED", Value: "true"}) },
			says(`add env AWS_EC2_METADATA_DISABLED: "true"`)
	case (f.ID == "LEASH-WL-004" || f.ID == "LEASH-WL-007") && strings.HasSuffix(strings.TrimSuffix(path, ".optional"), ".valueFrom.secretKeyRef"):
		c, env, err := container(p, path)
		if err != nil {
			return nil, err
		}
		name := c.Env[env].Name
		return func() { c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name }) },
			says("remove variable " + name + " from container " + c.Name)
	}
	return nil, fmt.Errorf("%s at %s: no mechanical edit for its fix %q", f.ID, path, f.Fix)
}

// container is the container a path under the pod spec names, and the
// index of its variable (-1: none).
func container(p *workload.Pod, path string) (*corev1.Container, int, error) {
	m := atContainer.FindStringSubmatch(path)
	if m == nil {
		return nil, 0, fmt.Errorf("%s names no container", path)
	}
	i, _ := strconv.Atoi(m[2])
	list := p.Spec.Containers
	if m[1] == "initContainers" {
		list = p.Spec.InitContainers
	}
	if i >= len(list) {
		return nil, 0, fmt.Errorf("%s names no container of the pod", path)
	}
	env := -1
	if m[3] != "" {
		env, _ = strconv.Atoi(m[3])
		if env >= len(list[i].Env) {
			return nil, 0, fmt.Errorf("%s names no variable of container %s", path, list[i].Name)
		}
	}
	return &list[i], env, nil
}

// firstErr is the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// FixAll makes the edits of every finding of one verdict: all are resolved
// first, while the findings' paths still point where they did, then made.
func FixAll(cluster *string, p *workload.Pod, findings []analyze.Finding) error {
	edits := make([]func(), 0, len(findings))
	for _, f := range findings {
		edit, err := Fix(cluster, p, f)
		if err != nil {
			return err
		}
		edits = append(edits, edit)
	}
	for _, e := range edits {
		e()
	}
	return nil
}
