package workload

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// LastEnv is the entry of c.Env that sets the variable name, as the kubelet
// reads a container's environment: it applies envFrom first, then env in
// order, so that a later entry of env overrides an earlier one of the same
// name (the API server warns that it "hides previous definition") and any
// entry of env overrides what envFrom sets. The rules judge the value the
// container runs with, so they read this one, never the first.
// https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#environment-variables
func LastEnv(c corev1.Container, name string) (corev1.EnvVar, bool) {
	for i := len(c.Env) - 1; i >= 0; i-- {
		if c.Env[i].Name == name {
			return c.Env[i], true
		}
	}
	return corev1.EnvVar{}, false
}

// envValue is a container's literal value of a variable: the last entry of
// env that sets it, when it sets it by value (not valueFrom).
func envValue(c corev1.Container, name string) (string, bool) {
	e, ok := LastEnv(c, name)
	if !ok || e.ValueFrom != nil {
		return "", false
	}
	return e.Value, true
}

// envFromMayBeAWS says whether the variables an envFrom source sets, named
// prefix followed by each of its keys, can be named AWS_*: with no prefix,
// with one that AWS_ begins with ("AWS"), or with one that begins with
// AWS_.
func envFromMayBeAWS(prefix string) bool {
	return strings.HasPrefix("AWS_", prefix) || strings.HasPrefix(prefix, "AWS_")
}
