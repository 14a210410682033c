// Package admission is the operator's admission webhook for pods: it wires
// a pod that names a leash credential to the request's Secret (wire.go),
// refuses or warns about a pod that receives one and could fall back to the
// node's instance role (validate.go, through workload.CheckPod, the checks
// of leash check workload), and serves both on controller-runtime's webhook
// server (server.go, register.go).
package admission

import (
	"errors"
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/reqmode"
	"leash.dev/leash/internal/workload"
)

// What the mutation adds.
const (
	// CredentialsVolume is the Secret volume of the request's Secret.
	CredentialsVolume = "leash-credentials"
	// CredentialsDir is where it is mounted, read-only.
	CredentialsDir = workload.CredentialsDir
	// TokenVolume is the projected service account token of an STS
	// request; the workload checks judge the token in it as the request's.
	TokenVolume = workload.TokenVolume
	// TokenExpirationSeconds is the projected token's lifetime.
	TokenExpirationSeconds = 3600
)

// Wiring is what the operator's settings say about a request's
// credentials: the cluster's mode (a request's leash.dev/mode overrides it;
// empty is Manual, where a request with stsIAMRoleARN is STS) and the
// audience of the tokens its roles trust.
type Wiring struct {
	Mode     leashv1.CredentialsMode
	Audience string
	// Agent runs the broker agent in Broker-mode pods; nil when the
	// operator serves no broker, and such pods are refused.
	Agent *Agent
}

// Pod is what the mutation reads and changes: a pod's (or pod template's)
// annotations and spec.
type Pod struct {
	Annotations map[string]string
	Spec        corev1.PodSpec
}

// Wire returns the pod wired to req's Secret, and what it left as the pod
// set it (container/NAME). It adds, in each container and init container
// it wires (those annotation leash.dev/credentials-containers names, else
// every one) that lacks them, the Secret's volume mounted read-only at
// CredentialsDir, AWS_SHARED_CREDENTIALS_FILE, AWS_EC2_METADATA_DISABLED=true
// (not under the metadata profile, declared on the pod or in
// saAnnotations, the annotations of its ServiceAccount) and
// AWS_STS_REGIONAL_ENDPOINTS=regional; for a request in STS mode, the
// projected token its credentials file names. A request in Broker mode
// gets no Secret: its containers get the broker's variables and token and
// the pod the broker agent (see broker). A volume the pod already has
// for the Secret (or the token) is reused rather than doubled, and a
// variable or mount the pod sets otherwise is kept and listed, so that
// validation judges the pod as it is. Wiring a wired pod changes nothing.
// p is not modified. An annotation that names a container the pod does not
// have is an error (LEASH-WL-014).
func Wire(p Pod, saAnnotations map[string]string, req *leashv1.CredentialsRequest, o Wiring) (Pod, []string, error) {
	wires, f := workload.WiredContainers(workload.Pod{Annotations: p.Annotations, Spec: p.Spec, Path: "spec"})
	if f != nil {
		return Pod{}, nil, fmt.Errorf("%s: %s; fix: %s", f.ID, f.Message, f.Fix)
	}
	spec, err := reqmode.Spec(req)
	if errors.Is(err, reqmode.ErrNotAWS) {
		return Pod{}, nil, fmt.Errorf("CredentialsRequest %s/%s is not for AWS (its providerSpec is another cloud's): leash writes no Secret for it; name an AWS request in annotation %s", req.Namespace, req.Name, workload.AnnotationCredentials)
	}
	if err != nil {
		return Pod{}, nil, fmt.Errorf("CredentialsRequest %s/%s: %w", req.Namespace, req.Name, err)
	}
	cluster := o.Mode
	if cluster == "" {
		cluster = leashv1.ModeManual
	}
	mode, err := reqmode.Of(req, spec, cluster)
	if err != nil {
		return Pod{}, nil, fmt.Errorf("CredentialsRequest %s/%s: %w", req.Namespace, req.Name, err)
	}
	w := &wiring{pod: Pod{Annotations: copyMap(p.Annotations), Spec: *p.Spec.DeepCopy()}}
	if mode == leashv1.ModeBroker {
		if err := w.broker(p, saAnnotations, req, o, wires); err != nil {
			return Pod{}, nil, err
		}
		return w.finish(req)
	}
	secret := req.Spec.SecretRef.Name
	vol, key, err := w.secretVolume(secret)
	if err != nil {
		return Pod{}, nil, err
	}
	w.file = followed{env: "AWS_SHARED_CREDENTIALS_FILE", volume: vol, key: key}
	env := []corev1.EnvVar{{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: path.Join(CredentialsDir, key)}}
	env = append(env, imdsEnv(p.Annotations, saAnnotations)...)
	mounts := []corev1.VolumeMount{{Name: vol, MountPath: CredentialsDir, ReadOnly: true}}
	if mode == leashv1.ModeSTS {
		tokenPath := req.Spec.CloudTokenPath
		if tokenPath == "" {
			tokenPath = leashv1.DefaultCloudTokenPath
		}
		audience := o.Audience
		if audience == "" {
			audience = oidcissuer.DefaultAudience
		}
		tvol, _, err := w.tokenVolume(TokenVolume, tokenPath, audience)
		if err != nil {
			return Pod{}, nil, err
		}
		mounts = append(mounts, corev1.VolumeMount{Name: tvol, MountPath: path.Dir(tokenPath), ReadOnly: true})
	}
	w.containers(wires, mounts, env)
	return w.finish(req)
}

// imdsEnv are the variables every wired container gets beside its
// credentials: IMDS off (not under the metadata profile, declared on the
// pod or in saAnnotations, its ServiceAccount's), and STS's regional
// endpoint.
func imdsEnv(pod, saAnnotations map[string]string) []corev1.EnvVar {
	var env []corev1.EnvVar
	if !workload.DeclaresMetadata(pod, saAnnotations) {
		env = append(env, corev1.EnvVar{Name: "AWS_EC2_METADATA_DISABLED", Value: "true"})
	}
	return append(env, corev1.EnvVar{Name: "AWS_STS_REGIONAL_ENDPOINTS", Value: "regional"})
}

// containers wires the init and regular containers of wires.
func (w *wiring) containers(wires workload.Wired, mounts []corev1.VolumeMount, env []corev1.EnvVar) {
	for i, c := range w.pod.Spec.InitContainers {
		if wires.Has(c.Name) && !w.isAgent(c) {
			w.container(&w.pod.Spec.InitContainers[i], mounts, env)
		}
	}
	for i, c := range w.pod.Spec.Containers {
		if wires.Has(c.Name) {
			w.container(&w.pod.Spec.Containers[i], mounts, env)
		}
	}
}

// finish says in the pod's annotations which request was wired and what
// was kept.
func (w *wiring) finish(req *leashv1.CredentialsRequest) (Pod, []string, error) {
	if w.pod.Annotations == nil {
		w.pod.Annotations = map[string]string{}
	}
	w.pod.Annotations[workload.AnnotationCredentialsInjected] = req.Namespace + "/" + req.Name
	delete(w.pod.Annotations, workload.AnnotationCredentialsKept)
	if len(w.kept) > 0 {
		w.pod.Annotations[workload.AnnotationCredentialsKept] = strings.Join(w.kept, ",")
	}
	return w.pod, w.kept, nil
}

// wiring is a pod being wired and what was kept as it was.
type wiring struct {
	pod  Pod
	kept []string
	// file is the variable that names a file of a volume the mutation
	// mounts, which follows the pod's own mount of that volume.
	file followed
	// agent is the broker agent a Broker-mode pod gets; nil otherwise.
	agent *corev1.Container
}

// followed is a variable naming the file key of volume.
type followed struct{ env, volume, key string }

// secretVolume is the name of the pod's volume of the Secret, added when
// the pod has none, and the path of the credentials file inside it.
func (w *wiring) secretVolume(secret string) (name, key string, err error) {
	key = credfile.SecretKeyCredentials
	for _, v := range w.pod.Spec.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		for _, it := range v.Secret.Items {
			if it.Key == credfile.SecretKeyCredentials {
				key = it.Path
			}
		}
		return v.Name, key, nil
	}
	if err := w.freeVolume(CredentialsVolume); err != nil {
		return "", "", err
	}
	w.pod.Spec.Volumes = append(w.pod.Spec.Volumes, corev1.Volume{Name: CredentialsVolume,
		VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}})
	return CredentialsVolume, key, nil
}

// tokenVolume is the name of the pod's projected volume with a service
// account token for audience at base(tokenPath), added as volume name when
// it has none, and the token's file in it. A volume name the pod already
// has for another audience (wired when the operator trusted another) is
// kept and listed as volume/NAME, for validation to judge (LEASH-WL-005,
// LEASH-WL-015); the pod's other token volumes are its own business.
func (w *wiring) tokenVolume(name, tokenPath, audience string) (string, string, error) {
	for _, v := range w.pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			t := src.ServiceAccountToken
			if t == nil || t.Path != path.Base(tokenPath) {
				continue
			}
			if t.Audience == audience {
				return v.Name, t.Path, nil
			}
			if v.Name == name {
				w.kept = append(w.kept, "volume/"+v.Name)
				return v.Name, t.Path, nil
			}
		}
	}
	if err := w.freeVolume(name); err != nil {
		return "", "", err
	}
	seconds := int64(TokenExpirationSeconds)
	w.pod.Spec.Volumes = append(w.pod.Spec.Volumes, corev1.Volume{Name: name,
		VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
			ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, ExpirationSeconds: &seconds, Path: path.Base(tokenPath)},
		}}}}})
	return name, path.Base(tokenPath), nil
}

// freeVolume refuses a pod whose own volume already has a name the
// mutation adds: wiring it would replace the pod's volume.
func (w *wiring) freeVolume(name string) error {
	for _, v := range w.pod.Spec.Volumes {
		if v.Name == name {
			return fmt.Errorf("the pod has a volume named %s that is not the one leash would add there; rename that volume (leash adds %s)", name, name)
		}
	}
	return nil
}

// container adds the mounts and variables c lacks. A mount of the same
// volume is reused (the file variable, w.file, follows it); a mount of another
// volume at the same path, or a variable of the same name with another
// value, is kept and listed.
func (w *wiring) container(c *corev1.Container, mounts []corev1.VolumeMount, env []corev1.EnvVar) {
	fileDir := ""
	for _, m := range mounts {
		if at, ok := mountOf(c, m.Name); ok {
			if m.Name == w.file.volume {
				fileDir = at
			}
			continue
		}
		if other, ok := mountAt(c, m.MountPath); ok {
			w.kept = append(w.kept, fmt.Sprintf("%s/mount:%s", c.Name, other.MountPath))
			continue
		}
		c.VolumeMounts = append(c.VolumeMounts, m)
	}
	for _, e := range env {
		if e.Name == w.file.env && fileDir != "" {
			e.Value = path.Join(fileDir, w.file.key)
		}
		if cur, ok := workload.LastEnv(*c, e.Name); ok {
			if cur.ValueFrom != nil || cur.Value != e.Value {
				w.kept = append(w.kept, c.Name+"/"+e.Name)
			}
			continue
		}
		c.Env = append(c.Env, e)
	}
}

// mountOf is where c mounts volume (the whole volume, not a key of it).
func mountOf(c *corev1.Container, volume string) (string, bool) {
	for _, m := range c.VolumeMounts {
		if m.Name == volume && m.SubPath == "" && m.SubPathExpr == "" {
			return m.MountPath, true
		}
	}
	return "", false
}

func mountAt(c *corev1.Container, at string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) == path.Clean(at) {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
