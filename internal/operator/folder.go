package operator

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/atomicfile"
	"leash.dev/leash/internal/inputerr"
)

// ReadRequests reads every CredentialsRequest in the YAML files (*.yaml,
// *.yml) under dir, in path order; documents of other kinds are skipped, so
// a folder can hold the workloads beside their requests. A request from a
// file has no UID, so it gets one derived from its namespace and name: the
// same request finds the same IAM user on every run.
func ReadRequests(dir string) ([]*leashv1.CredentialsRequest, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	sort.Strings(files)
	var out []*leashv1.CredentialsRequest
	seen := map[string]string{}
	for _, f := range files {
		crs, err := readRequestFile(f)
		if err != nil {
			return nil, err
		}
		for _, cr := range crs {
			key := cr.Namespace + "/" + cr.Name
			if prev, ok := seen[key]; ok {
				return nil, &inputerr.Error{Field: f, Msg: fmt.Sprintf("CredentialsRequest %s is also in %s; names must be unique per namespace", key, prev)}
			}
			seen[key] = f
			out = append(out, cr)
		}
	}
	if len(out) == 0 {
		return nil, &inputerr.Error{Field: dir, Msg: "holds no CredentialsRequest manifest (apiVersion cloudcredential.openshift.io/v1, kind CredentialsRequest) in a .yaml or .yml file"}
	}
	return out, nil
}

func readRequestFile(path string) ([]*leashv1.CredentialsRequest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRequests(path, data)
}

// ParseRequests reads the CredentialsRequests in data, a stream of YAML
// documents, as ReadRequests reads a file; path names where data came
// from (a file, or a ConfigMap and its key) in errors.
func ParseRequests(path string, data []byte) ([]*leashv1.CredentialsRequest, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*leashv1.CredentialsRequest
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &inputerr.Error{Field: fmt.Sprintf("%s: document %d", path, doc), Msg: err.Error()}
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(raw, &head); err != nil {
			return nil, &inputerr.Error{Field: fmt.Sprintf("%s: document %d", path, doc), Msg: "is not YAML: " + err.Error()}
		}
		if head.Kind != "CredentialsRequest" || head.APIVersion != leashv1.GroupVersion.String() {
			continue
		}
		cr := &leashv1.CredentialsRequest{}
		if err := yaml.UnmarshalStrict(raw, cr); err != nil {
			return nil, &inputerr.Error{Field: fmt.Sprintf("%s: document %d", path, doc), Msg: "is not a valid CredentialsRequest: " + err.Error()}
		}
		if cr.Name == "" {
			return nil, &inputerr.Error{Field: fmt.Sprintf("%s: document %d: metadata.name", path, doc), Msg: "is empty; name the request"}
		}
		if cr.Namespace == "" {
			cr.Namespace = "default"
		}
		sum := sha256.Sum256([]byte("leash-apply/" + cr.Namespace + "/" + cr.Name))
		cr.UID = types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16]))
		out = append(out, cr)
	}
}

// FolderCluster keeps Secrets as manifests in a folder, one file per
// Secret (DIR/NAMESPACE/NAME.yaml, readable by the owner only), for leash
// apply. Every namespace exists: there is no cluster to ask.
type FolderCluster struct {
	Dir string
	// Requests are the requests being applied, among which a Secret's
	// owner is chosen.
	Requests []*leashv1.CredentialsRequest
	// SignToken, when set, signs a service-account token as the cluster's
	// issuer would, for the proof of a made role; nil skips the proof.
	SignToken func(namespace, name, audience string, expiry time.Duration) (string, error)
}

// ServiceAccountToken implements Cluster: a folder has no API server, so
// the token is signed with the issuer's key when apply was given it, and
// otherwise there is none (ErrNoTokenAPI).
func (f FolderCluster) ServiceAccountToken(_ context.Context, namespace, name, audience string, expiry time.Duration) (string, error) {
	if f.SignToken == nil {
		return "", ErrNoTokenAPI
	}
	return f.SignToken(namespace, name, audience, expiry)
}

func (f FolderCluster) path(namespace, name string) string {
	return filepath.Join(f.Dir, namespace, name+".yaml")
}

// NamespaceExists implements Cluster.
func (FolderCluster) NamespaceExists(context.Context, string) (bool, error) { return true, nil }

// Secret implements Cluster.
func (f FolderCluster) Secret(_ context.Context, namespace, name string) (*corev1.Secret, error) {
	data, err := os.ReadFile(f.path(namespace, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path(namespace, name), err)
	}
	return s, nil
}

// WriteSecret implements Cluster, replacing the file atomically.
func (f FolderCluster) WriteSecret(_ context.Context, s, _ *corev1.Secret) error {
	data, err := yaml.Marshal(s)
	if err != nil {
		return err
	}
	path := f.path(s.Namespace, s.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// RequestsNaming implements Cluster.
func (f FolderCluster) RequestsNaming(_ context.Context, namespace, name string) ([]leashv1.CredentialsRequest, error) {
	var out []leashv1.CredentialsRequest
	for _, cr := range f.Requests {
		if namesSecret(cr, namespace, name) {
			out = append(out, *cr)
		}
	}
	return out, nil
}

// DeleteSecret implements Cluster.
func (f FolderCluster) DeleteSecret(_ context.Context, namespace, name string, _ types.UID) error {
	err := os.Remove(f.path(namespace, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
