package cli

import (
	"os"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
)

// nextRequestSources reads --next-requests and --next-requests-configmap.
// The folder must exist at start (a ConfigMap volume always does); the
// ConfigMap may come later, and until it does the check says so.
func nextRequestSources(dir, configMap string) (operator.NextRequestSources, error) {
	var s operator.NextRequestSources
	if dir != "" {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return s, &inputerr.Error{Source: "--next-requests " + dir, Msg: "not a folder: give the folder holding the next release's CredentialsRequest manifests (*.yaml, *.yml), such as a mounted ConfigMap"}
		}
		s.Dir = dir
	}
	if configMap != "" {
		nn, err := operator.ParseNamespacedName("--next-requests-configmap", configMap)
		if err != nil {
			return s, &inputerr.Error{Msg: err.Error()}
		}
		s.ConfigMap = nn
	}
	return s, nil
}
