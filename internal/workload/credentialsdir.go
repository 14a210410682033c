package workload

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"

	"leash.dev/leash/analyze"
)

// CredentialsDir is where admission mounts, read-only, the Secret of the
// request a pod names, and where its AWS_SHARED_CREDENTIALS_FILE points.
const CredentialsDir = "/var/run/secrets/leash.dev/credentials"

// checkCredentialsDir reports, for a pod that names a request (n), each
// of its judged containers that mounts another volume at CredentialsDir or
// inside it (LEASH-WL-003): admission keeps the pod's own mount there and
// adds none, so the container reads that volume where its credentials file
// should be, and starts without its credentials.
func checkCredentialsDir(p Pod, n Named, judged []podContainer) []analyze.Finding {
	var out []analyze.Finding
	secret := n.Request.Spec.SecretRef.Name
	for _, c := range judged {
		for mi, m := range c.VolumeMounts {
			if !within(path.Clean(m.MountPath), CredentialsDir) || holdsSecret(p.Spec.Volumes, m.Name, secret) {
				continue
			}
			out = append(out, analyze.Finding{ID: "LEASH-WL-003", Severity: analyze.High, Policy: p.Source,
				Path:    fmt.Sprintf("%s%s.volumeMounts[%d]", p.Path, c.at, mi),
				Message: fmt.Sprintf("container %s mounts volume %s at %s, where leash mounts the credentials of the request the pod names (Secret %s): the container reads that volume instead, and starts without its credentials", c.Name, m.Name, m.MountPath, secret),
				Fix:     fmt.Sprintf("mount volume %s at another path (%s is leash's), or remove that mount", m.Name, CredentialsDir)})
		}
	}
	return out
}

// holdsSecret says whether the pod's volume name is the Secret secret, as a
// Secret volume or a projected one.
func holdsSecret(volumes []corev1.Volume, name, secret string) bool {
	for _, v := range volumes {
		if v.Name != name {
			continue
		}
		if v.Secret != nil && v.Secret.SecretName == secret {
			return true
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.Secret != nil && src.Secret.Name == secret {
					return true
				}
			}
		}
	}
	return false
}
