package workload

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/inputerr"
)

// The metadata profile is for a workload that must keep the instance
// metadata service: the AWS cloud controller manager reads its instance's
// identity, zone and network from IMDS and runs in the host's network. For
// it, disabling IMDS, denying it egress and leaving the host network (what
// LEASH-WL-001, -002 and -006 ask) would break the controller. The profile
// replaces those demands with what keeps the node's role out of its AWS
// calls: the credentials Secret is required, the SDK reads its file, no
// other credential source is set, and the node role may do no more than
// the allow-list (by default ec2:Describe*), so that what IMDS still
// hands out is worth little.
const (
	// ProfileAnnotation on a pod template, or on the ServiceAccount its
	// pods run as, declares a profile; ProfileMetadata is the only one.
	ProfileAnnotation = "leash.dev/imds"
	ProfileMetadata   = "metadata"

	// idProfileUnknown is the finding of a leash.dev/imds value that names
	// no profile.
	idProfileUnknown = "LEASH-WL-013"

	idProfileOptional  = "LEASH-WL-008"
	idProfileFile      = "LEASH-WL-009"
	idProfileOtherCred = "LEASH-WL-010"
	idProfileNodeRole  = "LEASH-WL-011"
)

// DefaultNodeRoleOnly is what the node role may grant under the metadata
// profile when the Set names no allow-list: the reads the node's own
// components make.
var DefaultNodeRoleOnly = []string{"ec2:Describe*"}

// otherCredentialEnv are the variables that give the AWS SDK credentials
// (or a profile) other than the shared credentials file; under the
// metadata profile the file must be the only source. Names ending in "_"
// are prefixes.
var otherCredentialEnv = []string{
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE",
	"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
	"AWS_CONTAINER_CREDENTIALS_",
}

func isOtherCredentialEnv(name string) bool {
	for _, v := range otherCredentialEnv {
		if name == v || strings.HasSuffix(v, "_") && strings.HasPrefix(name, v) {
			return true
		}
	}
	return false
}

// ProfileValues are the values leash.dev/imds accepts.
var ProfileValues = []string{ProfileMetadata}

// profileValueProblem says what is wrong with a leash.dev/imds value that
// names no profile, "" when ann has none or a known one: a misspelt value
// must not pass silently for the default checks, whose wiring disables the
// IMDS the workload meant to keep.
func profileValueProblem(ann map[string]string) string {
	v, ok := ann[ProfileAnnotation]
	if !ok || contains(ProfileValues, v) {
		return ""
	}
	return fmt.Sprintf("%q is no profile: set it to %s (the workload keeps IMDS) or remove it", v, quoted(ProfileValues))
}

func quoted(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, " or ")
}

// profileAnnotation refuses, when manifests are read, a leash.dev/imds
// annotation that names no profile.
func profileAnnotation(file string, doc int, kind string, ann map[string]string) error {
	if msg := profileValueProblem(ann); msg != "" {
		return &inputerr.Error{Source: fmt.Sprintf("%s: document %d (%s)", file, doc, kind), Field: "annotation " + ProfileAnnotation, Msg: msg}
	}
	return nil
}

// checkProfileValue reports a leash.dev/imds value that names no profile,
// on the pod or its ServiceAccount (LEASH-WL-013): admission, which reads
// no manifest file, judges it here, as leash check workload refuses it
// when it reads the file.
func checkProfileValue(s *Set, p Pod) []analyze.Finding {
	var out []analyze.Finding
	add := func(on, at string, ann map[string]string) {
		if msg := profileValueProblem(ann); msg != "" {
			out = append(out, analyze.Finding{ID: idProfileUnknown, Severity: analyze.High, Policy: p.Source, Path: at,
				Message: fmt.Sprintf("annotation %s on %s: %s", ProfileAnnotation, on, msg),
				Fix:     fmt.Sprintf("set %s to one of %s, or remove it", ProfileAnnotation, strings.Join(ProfileValues, ", "))})
		}
	}
	add("the pod", strings.TrimSuffix(p.Path, "spec")+"metadata.annotations["+ProfileAnnotation+"]", p.Annotations)
	if sa := serviceAccount(s, p); sa != nil {
		add(fmt.Sprintf("ServiceAccount %s/%s", sa.Namespace, sa.Name), p.Path+".serviceAccountName", sa.Annotations)
	}
	return out
}

// MetadataProfile says whether the pod declares the metadata profile: on
// its template, or on its ServiceAccount when the Set holds it.
func MetadataProfile(s *Set, p Pod) bool {
	var sa map[string]string
	if a := serviceAccount(s, p); a != nil {
		sa = a.Annotations
	}
	return DeclaresMetadata(p.Annotations, sa)
}

// DeclaresMetadata says whether a pod with these annotations, running as a
// ServiceAccount with saAnnotations, declares the metadata profile.
func DeclaresMetadata(pod, saAnnotations map[string]string) bool {
	return pod[ProfileAnnotation] == ProfileMetadata || saAnnotations[ProfileAnnotation] == ProfileMetadata
}

// checkProfile reports what the metadata profile asks of a pod that
// receives credentials (creds, never empty).
func checkProfile(s *Set, p Pod, creds []credential) []analyze.Finding {
	var out []analyze.Finding
	add := func(id string, sev analyze.Severity, at, msg, fix string) {
		out = append(out, analyze.Finding{ID: id, Severity: sev, Policy: p.Source, Path: p.Path + at, Message: msg, Fix: fix})
	}
	for _, c := range creds {
		if c.optional {
			add(idProfileOptional, analyze.Critical, c.at+".optional",
				fmt.Sprintf("%s is optional, and the pod keeps IMDS (metadata profile): when the Secret is absent the AWS SDK uses the node's instance role", c.what),
				optionalFix(c, ReceivesLeash(s, p)))
		}
	}
	mounts := mountedCredentials(p, creds)
	for _, c := range judged(p, creds) {
		at := c.at
		// A container wired to the broker gets its credentials from it
		// (the container provider comes before IMDS in the SDK's chain):
		// its two variables are its source, as the file is the others'.
		// One whose SDK has IMDS off (the broker agent, which calls no AWS
		// API) does not fall back to the node's role without a file.
		viaBroker := callsBroker(p, c)
		imdsOff, _ := envValue(c.Container, "AWS_EC2_METADATA_DISABLED")
		file, ok := envValue(c.Container, "AWS_SHARED_CREDENTIALS_FILE")
		if want := mounts[c.Name]; !viaBroker && !strings.EqualFold(imdsOff, "true") && (want.empty() || !ok || !want.holds(path.Clean(file))) {
			fix := "mount the credentials Secret in the container and set AWS_SHARED_CREDENTIALS_FILE to its credentials file"
			if !want.empty() {
				fix = "set AWS_SHARED_CREDENTIALS_FILE to " + want.suggestion()
			}
			add(idProfileFile, analyze.High, at+".env",
				fmt.Sprintf("container %s keeps IMDS (metadata profile) but its AWS_SHARED_CREDENTIALS_FILE %q is not a file of a mounted credentials Secret: the AWS SDK finds no file and uses the node's instance role", c.Name, file),
				fix)
		}
		for ei, e := range c.Env {
			if e.Name == "AWS_SHARED_CREDENTIALS_FILE" || !isOtherCredentialEnv(e.Name) ||
				viaBroker && (e.Name == broker.EnvFullURI || e.Name == broker.EnvTokenFile) {
				continue
			}
			add(idProfileOtherCred, analyze.High, fmt.Sprintf("%s.env[%d]", at, ei),
				fmt.Sprintf("container %s sets %s: under the metadata profile the credentials file must be the AWS SDK's only credentials, or it calls AWS as something leash did not issue", c.Name, e.Name),
				"remove "+e.Name)
		}
		out = append(out, s.checkEnvFrom(p, c)...)
	}
	allowed := s.NodeRoleOnly
	if allowed == nil {
		allowed = DefaultNodeRoleOnly
	}
	if len(s.NodeRole) == 0 {
		add(idProfileNodeRole, analyze.High, "",
			"the pod keeps IMDS (metadata profile), so the node's instance role is within its reach, and the node role's policies were not given to check that they grant only "+strings.Join(allowed, ", "),
			"give the node role's policies (leash check workload --node-role-policy FILE, or --node-role NAME to read them from IAM)")
		return out
	}
	for _, f := range analyze.Only(s.NodeRole, allowed, nil) {
		add(idProfileNodeRole, analyze.Critical, "",
			fmt.Sprintf("the pod keeps IMDS (metadata profile), so the node's instance role is within its reach, and it grants more than %s: %s %s: %s", strings.Join(allowed, ", "), f.Policy, f.Path, f.Message),
			"prune the node role to "+strings.Join(allowed, ", ")+" ("+f.Fix+")")
	}
	return out
}

// checkEnvFrom reports, under the metadata profile, an envFrom of c that
// sets or may set another credential variable (LEASH-WL-010). A Secret of
// the Set shows its keys; a Secret the check does not hold, or any
// ConfigMap, does not (admission reads neither: it must not read the
// Secrets of every namespace), so one whose variables can be named AWS_* is
// reported as it could set them, and the fix says how to show them.
func (s *Set) checkEnvFrom(p Pod, c podContainer) []analyze.Finding {
	var out []analyze.Finding
	for fi, from := range c.EnvFrom {
		var what string
		var keys map[string]string
		switch {
		case from.SecretRef != nil:
			what = fmt.Sprintf("Secret %s/%s", p.Namespace, from.SecretRef.Name)
			if sec := s.secret(p.Namespace, from.SecretRef.Name); sec != nil {
				keys = secretData(sec)
			}
		case from.ConfigMapRef != nil:
			what = fmt.Sprintf("ConfigMap %s/%s", p.Namespace, from.ConfigMapRef.Name)
		default:
			continue
		}
		at := fmt.Sprintf("%s%s.envFrom[%d]", p.Path, c.at, fi)
		if keys == nil {
			if envFromMayBeAWS(from.Prefix) {
				out = append(out, analyze.Finding{ID: idProfileOtherCred, Severity: analyze.High, Policy: p.Source, Path: at,
					Message: fmt.Sprintf("container %s takes every key of %s as a variable, and its keys are not in what was checked: one may set %s, and under the metadata profile the credentials file must be the AWS SDK's only credentials", c.Name, what, strings.Join(otherCredentialEnv, ", ")+"*"),
					Fix:     "give the envFrom a prefix that keeps its variables off AWS_ (prefix: APP_), or take the variables the container needs one by one with env valueFrom"})
			}
			continue
		}
		var names []string
		for k := range keys {
			if isOtherCredentialEnv(from.Prefix + k) {
				names = append(names, from.Prefix+k)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, analyze.Finding{ID: idProfileOtherCred, Severity: analyze.High, Policy: p.Source, Path: at,
				Message: fmt.Sprintf("container %s sets %s from %s (envFrom): under the metadata profile the credentials file must be the AWS SDK's only credentials, or it calls AWS as something leash did not issue", c.Name, n, what),
				Fix:     fmt.Sprintf("remove key %s from %s, or give the envFrom a prefix that keeps its variables off AWS_", strings.TrimPrefix(n, from.Prefix), what)})
		}
	}
	return out
}
