package workload

import (
	"fmt"
	"path"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/broker"
)

// idBroker is the finding of a container wired to leash's credential
// broker that would not get its credentials from it, or would send the
// broker's token elsewhere.
const idBroker = "LEASH-WL-015"

// brokerCredentials are the ways the broker's credentials reach a pod: a
// projected service account token of the broker's audience (the broker
// exchanges it for a session), and a container whose
// AWS_CONTAINER_CREDENTIALS_FULL_URI is the agent's, which its AWS SDK
// calls for its credentials.
func brokerCredentials(p Pod) []credential {
	var out []credential
	for vi, v := range p.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for si, src := range v.Projected.Sources {
			if t := src.ServiceAccountToken; t != nil && t.Audience == broker.Audience {
				out = append(out, credential{at: fmt.Sprintf(".volumes[%d].projected.sources[%d].serviceAccountToken", vi, si),
					volume: v.Name, broker: true,
					what: fmt.Sprintf("projected volume %s (a service account token for leash's credential broker, audience %s)", v.Name, t.Audience)})
			}
		}
	}
	for _, c := range containers(p.Spec) {
		for ei, e := range c.Env {
			if e.Name == broker.EnvFullURI && e.ValueFrom == nil && e.Value == broker.AgentURL {
				out = append(out, credential{at: fmt.Sprintf("%s.env[%d]", c.at, ei), broker: true,
					what: fmt.Sprintf("variable %s of container %s (leash's broker agent)", e.Name, c.Name)})
			}
		}
	}
	return out
}

// brokerTokens are the files of the broker's tokens container c mounts:
// projected service account tokens of the broker's audience. others are
// the files of its other projected tokens, by audience.
func brokerTokens(p Pod, c podContainer) (files []string, others map[string]string) {
	others = map[string]string{}
	for _, m := range c.VolumeMounts {
		for _, v := range p.Spec.Volumes {
			if v.Name != m.Name || v.Projected == nil {
				continue
			}
			for _, src := range v.Projected.Sources {
				t := src.ServiceAccountToken
				switch {
				case t == nil:
				case m.SubPath != "":
					if m.SubPath == t.Path && t.Audience == broker.Audience {
						files = append(files, path.Clean(m.MountPath))
					}
				case t.Audience == broker.Audience:
					files = append(files, path.Join(m.MountPath, t.Path))
				default:
					others[path.Join(m.MountPath, t.Path)] = t.Audience
				}
			}
		}
	}
	return files, others
}

// checkBroker reports each judged container that the broker's credentials
// reach in a way that fails or leaks (LEASH-WL-015): one that calls the
// agent with no token of the broker's audience at its
// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (the broker refuses the call: the
// container has no credentials), and one that sends the broker's token to
// another endpoint than the agent (whoever serves it could exchange the
// token at the broker for the pod's session).
func checkBroker(p Pod, judged []podContainer) []analyze.Finding {
	var out []analyze.Finding
	add := func(c podContainer, msg, fix string) {
		out = append(out, analyze.Finding{ID: idBroker, Severity: analyze.High, Policy: p.Source, Path: p.Path + c.at + ".env", Message: msg, Fix: fix})
	}
	for _, c := range judged {
		uri, _ := envValue(c.Container, broker.EnvFullURI)
		file, hasFile := envValue(c.Container, broker.EnvTokenFile)
		files, others := brokerTokens(p, c)
		calls, sends := uri == broker.AgentURL, hasFile && contains(files, path.Clean(file))
		switch {
		case calls && sends:
		case calls && !hasFile:
			add(c, fmt.Sprintf("container %s calls leash's broker agent (%s %s) but sets no %s: its AWS SDK sends no token, the broker refuses the call, and the container has no credentials", c.Name, broker.EnvFullURI, uri, broker.EnvTokenFile),
				brokerFix(files))
		case calls && others[path.Clean(file)] != "":
			add(c, fmt.Sprintf("container %s sends the broker the token at %s, whose audience is %q; the broker accepts only %q, so it refuses the call and the container has no credentials", c.Name, file, others[path.Clean(file)], broker.Audience),
				fmt.Sprintf("set audience: %s on that token's projected volume (admission adds volume %s with it)", broker.Audience, broker.TokenVolume))
		case calls:
			add(c, fmt.Sprintf("container %s calls leash's broker agent (%s %s) but %s %q is not a service account token of the broker's audience %s that it mounts: the broker refuses the call, and the container has no credentials", c.Name, broker.EnvFullURI, uri, broker.EnvTokenFile, file, broker.Audience),
				brokerFix(files))
		case sends:
			add(c, fmt.Sprintf("container %s sends the broker's token (%s %s) to %s %q, not to leash's broker agent: whoever serves it could exchange the token at the broker for the pod's credentials", c.Name, broker.EnvTokenFile, file, broker.EnvFullURI, uri),
				fmt.Sprintf("set %s to %s, or remove %s", broker.EnvFullURI, broker.AgentURL, broker.EnvTokenFile))
		}
	}
	return out
}

// brokerFix is how a container that calls the agent gets the broker's
// token: the file it mounts, else the volume admission adds.
func brokerFix(files []string) string {
	if len(files) > 0 {
		return fmt.Sprintf("set %s to %s", broker.EnvTokenFile, files[0])
	}
	return fmt.Sprintf("mount a projected volume with a serviceAccountToken of audience %s (path token) at %s, read-only, and set %s to %s; admission wires both in a pod that names a Broker-mode request in annotation %s",
		broker.Audience, broker.TokenDir, broker.EnvTokenFile, broker.TokenPath, AnnotationCredentials)
}

// callsBroker says whether container c gets its credentials from the
// broker as admission wires it: its SDK calls the agent and sends it a
// token of the broker's audience that c mounts.
func callsBroker(p Pod, c podContainer) bool {
	uri, _ := envValue(c.Container, broker.EnvFullURI)
	file, ok := envValue(c.Container, broker.EnvTokenFile)
	files, _ := brokerTokens(p, c)
	return uri == broker.AgentURL && ok && contains(files, path.Clean(file))
}
