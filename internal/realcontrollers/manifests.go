// Package realcontrollers reads the real controllers' manifests kept
// unchanged under test/e2e/testdata/controllers, with the overlay and the
// request a platform engineer adds, and makes the edit each workload
// finding's fix asks for. The admission webhook's tests and the end-to-end
// tests judge the same pods and apply the same fixes through it.
package realcontrollers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Overlay and Request are the files a folder holds beside the upstream
// manifests: strategic merge patches, one per upstream object by kind and
// name, and the CredentialsRequest. Another route an engineer may take
// with the same controller is an overlay named overlay-ROUTE.yaml.
const (
	Overlay = "overlay.yaml"
	Request = "leash.yaml"
)

// isOverlay says whether a file of a folder is an overlay.
func isOverlay(base string) bool {
	return base == Overlay || strings.HasPrefix(base, "overlay-") && strings.HasSuffix(base, ".yaml")
}

// schemas are the kinds an overlay patches, for the strategic merge.
var schemas = map[string]any{"Deployment": appsv1.Deployment{}, "DaemonSet": appsv1.DaemonSet{}, "ServiceAccount": corev1.ServiceAccount{}}

// Manifests are the manifests of folder dir: each upstream object patched
// by the overlay's patch of its kind and name, as kustomize applies a
// strategic merge patch, then the request, as one YAML stream. A patch that
// finds no object is an error: the upstream file changed under it. route
// names the overlay overlay-ROUTE.yaml; "" is overlay.yaml.
func Manifests(dir, route string) (string, error) {
	overlayFile := Overlay
	if route != "" {
		overlayFile = "overlay-" + route + ".yaml"
	}
	overlay, err := docs(filepath.Join(dir, overlayFile))
	if err != nil {
		return "", err
	}
	patches := map[string][]byte{}
	for _, d := range overlay {
		key, err := kindName(d)
		if err != nil {
			return "", err
		}
		patches[key] = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return "", err
	}
	var out []string
	for _, f := range files {
		if base := filepath.Base(f); isOverlay(base) || base == Request {
			continue
		}
		upstream, err := docs(f)
		if err != nil {
			return "", err
		}
		for _, d := range upstream {
			key, err := kindName(d)
			if err != nil {
				return "", fmt.Errorf("%s: %w", f, err)
			}
			if patch, ok := patches[key]; ok {
				delete(patches, key)
				kind, _, _ := strings.Cut(key, "/")
				schema, ok := schemas[kind]
				if !ok {
					return "", fmt.Errorf("%s: no schema to patch a %s with", f, kind)
				}
				if d, err = strategicpatch.StrategicMergePatch(d, patch, schema); err != nil {
					return "", fmt.Errorf("%s: patch %s: %w", f, key, err)
				}
			}
			out = append(out, string(d))
		}
	}
	for key := range patches {
		return "", fmt.Errorf("%s: the patch of %s finds no upstream object", filepath.Join(dir, overlayFile), key)
	}
	req, err := os.ReadFile(filepath.Join(dir, Request))
	if err != nil {
		return "", err
	}
	return strings.Join(append(out, string(req)), "\n---\n"), nil
}

// docs are the non-empty documents of a YAML file, as JSON.
func docs(file string) ([][]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		j, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if string(j) != "null" {
			out = append(out, j)
		}
	}
}

// kindName is "Kind/name" of a JSON object.
func kindName(doc []byte) (string, error) {
	var o metav1.PartialObjectMetadata
	if err := json.Unmarshal(doc, &o); err != nil {
		return "", err
	}
	return o.Kind + "/" + o.Name, nil
}
