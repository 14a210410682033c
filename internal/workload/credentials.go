package workload

import (
	"fmt"
	"path"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
)

// credentialEnv are the variables through which the AWS SDK reads a key
// pair from the environment.
var credentialEnv = map[string]bool{
	"AWS_ACCESS_KEY_ID":     true,
	"AWS_SECRET_ACCESS_KEY": true,
	"AWS_SESSION_TOKEN":     true,
}

// credentialKeys are the Secret keys that hold a key pair: the variables'
// names, and the credentials file's own names (which leash writes).
var credentialKeys = map[string]bool{
	"AWS_ACCESS_KEY_ID":            true,
	"AWS_SECRET_ACCESS_KEY":        true,
	credfile.SecretKeyID:           true,
	credfile.SecretKeySecret:       true,
	credfile.SecretKeySessionToken: true,
}

// credential is one way AWS credentials reach the pod: a Secret volume (or
// a Secret in a projected volume), a variable from a Secret's key, a
// Secret's keys as variables, or a projected token with STS's audience.
type credential struct {
	// at is the JSON path, under the pod spec, of where the pod names it.
	at string
	// what says it in a message: "volume creds (Secret kube-system/x)".
	what string
	// secret is the Secret's name; empty for a service account token.
	secret string
	// volume is the volume's name when the Secret is mounted.
	volume string
	// files are the Secret's keys that hold a credentials file; nil when
	// the keys are not known (any file inside the mount will do).
	files    []string
	optional bool
	// drop is the edit that takes a variable's credentials out of the pod
	// ("remove variable AWS_ACCESS_KEY_ID from container x"); empty for a
	// volume or a token.
	drop string
	req  *leashv1.CredentialsRequest // the request that writes it, if any
	// broker marks the credentials of leash's credential broker (see
	// brokerCredentials).
	broker bool
}

// credentials finds every way AWS credentials reach the pod, the broker's
// among them (brokerCredentials). A Secret is
// credentials when a CredentialsRequest writes it, when a container's
// AWS_SHARED_CREDENTIALS_FILE points into its mount, when a credential
// variable takes a key of it, or when the Secret (if in the manifests)
// holds credential keys; its name says nothing (a TLS Secret named
// aws-load-balancer-webhook-tls is not credentials).
func credentials(s *Set, p Pod) []credential {
	var out []credential
	for vi, v := range p.Spec.Volumes {
		switch {
		case v.Secret != nil:
			c := s.secretCredential(p, v.Secret.SecretName, isOptional(v.Secret.Optional))
			c.at = fmt.Sprintf(".volumes[%d].secret", vi)
			c.volume, c.files = v.Name, itemPaths(c.files, v.Secret.Items)
			c.what = fmt.Sprintf("volume %s (Secret %s/%s)", v.Name, p.Namespace, c.secret)
			if s.isCredentials(p, c) {
				out = append(out, c)
			}
		case v.Projected != nil:
			for si, src := range v.Projected.Sources {
				at := fmt.Sprintf(".volumes[%d].projected.sources[%d]", vi, si)
				if src.Secret != nil {
					c := s.secretCredential(p, src.Secret.Name, isOptional(src.Secret.Optional))
					c.at, c.volume, c.files = at+".secret", v.Name, itemPaths(c.files, src.Secret.Items)
					c.what = fmt.Sprintf("projected volume %s (Secret %s/%s)", v.Name, p.Namespace, c.secret)
					if s.isCredentials(p, c) {
						out = append(out, c)
					}
				}
				if t := src.ServiceAccountToken; t != nil && t.Audience == s.audience() {
					out = append(out, credential{at: at + ".serviceAccountToken", volume: v.Name,
						what: fmt.Sprintf("projected volume %s (a service account token for %s)", v.Name, t.Audience)})
				}
			}
		}
	}
	for _, c := range containers(p.Spec) {
		for ei, e := range c.Env {
			ref := (*corev1.SecretKeySelector)(nil)
			if e.ValueFrom != nil {
				ref = e.ValueFrom.SecretKeyRef
			}
			if ref == nil {
				continue
			}
			cred := s.secretCredential(p, ref.Name, isOptional(ref.Optional))
			if !credentialEnv[e.Name] && !credentialKeys[ref.Key] && cred.req == nil {
				continue
			}
			cred.at = fmt.Sprintf("%s.env[%d].valueFrom.secretKeyRef", c.at, ei)
			cred.what = fmt.Sprintf("variable %s of container %s (Secret %s/%s, key %s)", e.Name, c.Name, p.Namespace, ref.Name, ref.Key)
			cred.drop = fmt.Sprintf("remove variable %s from container %s", e.Name, c.Name)
			out = append(out, cred)
		}
		for fi, from := range c.EnvFrom {
			if from.SecretRef == nil {
				continue
			}
			cred := s.secretCredential(p, from.SecretRef.Name, isOptional(from.SecretRef.Optional))
			if cred.req == nil && !s.holdsKeys(p.Namespace, cred.secret) {
				continue
			}
			cred.at = fmt.Sprintf("%s.envFrom[%d].secretRef", c.at, fi)
			cred.what = fmt.Sprintf("the variables of container %s from Secret %s/%s", c.Name, p.Namespace, cred.secret)
			cred.drop = fmt.Sprintf("remove envFrom secretRef %s from container %s", cred.secret, c.Name)
			out = append(out, cred)
		}
	}
	return append(out, brokerCredentials(p)...)
}

// secretCredential is a Secret of the pod's namespace with the request
// that writes it and the keys that hold a credentials file.
func (s *Set) secretCredential(p Pod, name string, optional bool) credential {
	c := credential{secret: name, optional: optional}
	for _, r := range s.Requests {
		if r.Spec.SecretRef.Name == name && r.Spec.SecretRef.Namespace == p.Namespace {
			c.req = r
		}
	}
	if c.req != nil {
		c.files = []string{credfile.SecretKeyCredentials}
	}
	if sec := s.secret(p.Namespace, name); sec != nil {
		c.files = credentialFiles(sec)
	}
	return c
}

// isCredentials says whether a mounted Secret carries AWS credentials.
func (s *Set) isCredentials(p Pod, c credential) bool {
	if c.req != nil || s.holdsKeys(p.Namespace, c.secret) {
		return true
	}
	for _, ctr := range containers(p.Spec) {
		file, ok := envValue(ctr.Container, "AWS_SHARED_CREDENTIALS_FILE")
		if !ok {
			continue
		}
		for _, m := range ctr.VolumeMounts {
			if m.Name == c.volume && within(path.Clean(file), path.Clean(m.MountPath)) {
				return true
			}
		}
	}
	return false
}

// holdsKeys says whether the named Secret is in the manifests and holds a
// key pair: as credential keys, or as a credentials file.
func (s *Set) holdsKeys(ns, name string) bool {
	sec := s.secret(ns, name)
	if sec == nil {
		return false
	}
	for k := range secretData(sec) {
		if credentialKeys[k] {
			return true
		}
	}
	return len(credentialFiles(sec)) > 0
}

func (s *Set) secret(ns, name string) *corev1.Secret {
	for i := range s.Secrets {
		if s.Secrets[i].Namespace == ns && s.Secrets[i].Name == name {
			return &s.Secrets[i]
		}
	}
	return nil
}

// credentialFiles are the keys of a Secret whose values are a credentials
// file (they name aws_access_key_id).
func credentialFiles(sec *corev1.Secret) []string {
	var out []string
	for k, v := range secretData(sec) {
		if strings.Contains(v, credfile.SecretKeyID) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func secretData(sec *corev1.Secret) map[string]string {
	out := map[string]string{}
	for k, v := range sec.Data {
		out[k] = string(v)
	}
	for k, v := range sec.StringData {
		out[k] = v
	}
	return out
}

// within says whether file is dir or under it.
func within(file, dir string) bool {
	return file == dir || strings.HasPrefix(file, strings.TrimSuffix(dir, "/")+"/")
}

// itemPaths are where a volume's items put the keys that hold a
// credentials file (all keys when those are not known); files when the
// volume names no items.
func itemPaths(files []string, items []corev1.KeyToPath) []string {
	if len(items) == 0 {
		return files
	}
	out := []string{}
	for _, it := range items {
		if files == nil || contains(files, it.Key) {
			out = append(out, it.Path)
		}
	}
	return out
}

func isOptional(b *bool) bool { return b != nil && *b }
