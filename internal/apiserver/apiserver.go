// Package apiserver starts a real Kubernetes API server (kube-apiserver and
// etcd, built from the Go module proxy by hack/envtest/build.sh) for tests,
// through controller-runtime's envtest, with the admission plugins a
// cluster runs (see asACluster): a pod gets its ServiceAccount's token
// volume before webhooks see it, and must run as a ServiceAccount that
// exists (ServiceAccounts creates them).
package apiserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// AssetsDir is where kube-apiserver and etcd are: KUBEBUILDER_ASSETS, else
// the folder hack/envtest/build.sh builds into by default.
func AssetsDir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	cache := os.Getenv("LEASH_CI_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "leash-ci")
	}
	return filepath.Join(cache, "envtest", "k8s-1.34.4")
}

// Options configure Start.
type Options struct {
	// Scheme is the client's scheme; nil means client-go's.
	Scheme *runtime.Scheme
	// CRDDirs are folders of CRD manifests to install; each must exist.
	CRDDirs []string
	// Issuer, when set, makes the API server sign service account tokens
	// (the TokenRequest API, projected tokens, the token volume every pod
	// gets) as this OIDC issuer. Nil means envtest's own: a key it makes
	// for each server, and the issuer https://127.0.0.1:PORT/.
	Issuer *Issuer
	// Flags are more kube-apiserver flags, "--name=value", set after
	// Issuer's: such as the ones leash sts create-issuer prints.
	Flags []string
	// Webhooks installs admission webhook configurations (Paths: files
	// such as deploy/base/webhook.yaml), their service clientConfigs pointed at
	// a local server: after Start, Server.Env.WebhookInstallOptions says
	// where to serve (LocalServingHost, LocalServingPort) and with which
	// certificate (LocalServingCertDir's tls.crt and tls.key).
	Webhooks envtest.WebhookInstallOptions
}

// Issuer is a service-account token issuer: its URL (the tokens' iss), the
// private key that signs them, and the public keys that verify them (the
// current key and any older one still published).
type Issuer struct {
	URL            string
	SigningKeyFile string
	PublicKeyFiles []string
	// Audiences are the API server's own audiences (--api-audiences);
	// empty means the issuer URL.
	Audiences []string
}

// Server is a running API server.
type Server struct {
	Config *rest.Config
	Client client.Client
	Env    *envtest.Environment
	scheme *runtime.Scheme
}

// Start starts kube-apiserver and etcd, as Run does, and stops them when
// the test ends. It fails the test, rather than skipping it, when the
// binaries are missing: a skipped test here would look like a pass in CI.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	start := time.Now()
	s, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("API server started in %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the API server: %v", err)
		}
	})
	return s
}

// Run starts kube-apiserver and etcd as a cluster runs them (see
// asACluster), for a program rather than a test: the benchmarks. The
// caller stops them with Stop.
func Run(o Options) (*Server, error) {
	dir := AssetsDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return nil, fmt.Errorf("%s is missing (%v); build kube-apiserver and etcd (5 to 10 minutes the first time) with\n"+
				"\texport KUBEBUILDER_ASSETS=\"$(hack/envtest/build.sh)\"\n"+
				"from the repository root, as `make test` and .ci/run do", bin, err)
		}
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDDirectoryPaths:     o.CRDDirs,
		ErrorIfCRDPathMissing: len(o.CRDDirs) > 0,
		Scheme:                o.Scheme,
		WebhookInstallOptions: o.Webhooks,
	}
	args := env.ControlPlane.GetAPIServer().Configure()
	asACluster(args)
	if is := o.Issuer; is != nil {
		args.Set("service-account-issuer", is.URL)
		args.Set("service-account-signing-key-file", is.SigningKeyFile)
		args.Set("service-account-key-file", is.PublicKeyFiles...)
		audiences := is.Audiences
		if len(audiences) == 0 {
			audiences = []string{is.URL}
		}
		args.Set("api-audiences", strings.Join(audiences, ","))
	}
	if err := setFlags(args, o.Flags); err != nil {
		return nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the API server from %s: %w", dir, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: o.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("client: %w", err)
	}
	return &Server{Config: cfg, Client: c, Env: env, scheme: o.Scheme}, nil
}

// Stop stops kube-apiserver and etcd.
func (s *Server) Stop() error {
	return s.Env.Stop()
}

// Kubectl is the kubectl hack/envtest/build.sh builds beside the API server,
// of the same version. It fails the test when it is missing.
func Kubectl(t testing.TB) string {
	t.Helper()
	p := filepath.Join(AssetsDir(), "kubectl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("kubectl is missing (%v); build it with the API server:\n"+
			"\texport KUBEBUILDER_ASSETS=\"$(hack/envtest/build.sh)\"", err)
	}
	return p
}

// Kubeconfig writes a kubeconfig of a cluster administrator (group
// system:masters) named user, for kubectl or an operator run as a process,
// and returns its path.
func (s *Server) Kubeconfig(t testing.TB, user string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := s.WriteKubeconfig(user, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteKubeconfig writes the kubeconfig Kubeconfig returns to path.
func (s *Server) WriteKubeconfig(user, path string) error {
	u, err := s.Env.AddUser(envtest.User{Name: user, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding user %s: %w", user, err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig of %s: %w", user, err)
	}
	return os.WriteFile(path, kc, 0o600)
}
