package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/faults"
)

// cluster is a real API server with the CRD installed and an in-process
// leash local, for the operator to reconcile against.
type cluster struct {
	api     *apiserver.Server
	c       client.Client
	local   *localaws.Server
	url     string
	dataDir string
	admin   *iam.Client
}

// clusterOptions tune the local endpoint.
type clusterOptions struct {
	faults    faults.Config
	afterCall func(action, code string)
	// issuer makes the API server a service-account issuer, and jwks lets
	// leash local trust issuers by their key set files.
	issuer *apiserver.Issuer
	jwks   map[string]string
	// webhooks installs deploy/base/webhook.yaml, pointed at the local serving
	// address in api.Env.WebhookInstallOptions.
	webhooks bool
	// otherAccounts are accounts leash local holds beside account.
	otherAccounts []string
	// clockOffset moves leash local's clock (localaws.Config.ClockOffset).
	clockOffset time.Duration
}

func newCluster(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	ao := apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}, Issuer: o.issuer}
	if o.webhooks {
		ao.Webhooks.Paths = []string{filepath.Join("..", "..", "deploy", "base", "webhook.yaml")}
	}
	api := apiserver.Start(t, ao)
	dir := t.TempDir()
	local, url := startInProcessLocal(t, localaws.Config{DataDir: dir, AccountID: account, Faults: o.faults, AfterCall: o.afterCall, JWKSFiles: o.jwks, OtherAccounts: o.otherAccounts, ClockOffset: o.clockOffset})
	cl := &cluster{api: api, c: api.Client, local: local, url: url, dataDir: dir}
	cl.admin = cl.iamAs(t, cl.adminKey(t))
	return cl
}

// startInProcessLocal serves leash local on a free loopback port until the
// test ends.
func startInProcessLocal(t *testing.T, cfg localaws.Config) (*localaws.Server, string) {
	t.Helper()
	l, err := localaws.StartLoopback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("leash local: %v", err)
		}
	})
	return l.Server, l.URL
}

func (cl *cluster) adminKey(t *testing.T) iamclient.AccessKey {
	t.Helper()
	root, err := operator.FileRoot{Path: cl.local.AdminCredentialsPath()}.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return root.Key
}

func (cl *cluster) iamAs(t *testing.T, key iamclient.AccessKey) *iam.Client {
	t.Helper()
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(cl.url), Credentials: key.Provider()})
}

// iamClient is leash's own client for a key, as the operator builds it.
func (cl *cluster) iamClient(key iamclient.AccessKey) *iamclient.Client {
	return iamclient.New(iamclient.Config{Endpoint: cl.url, Credentials: key.Provider()})
}

// operatorOptions are the defaults of the tests' operators: the root key
// from leash local's admin file unless the test sets a root Secret, quick
// rechecks, no leader election.
func (cl *cluster) operatorOptions(cfg operator.Config) operator.Options {
	if cfg.Mode == "" {
		cfg.Mode = leashv1.ModeMint
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = "e2e"
	}
	if cfg.AdminNamespaces == nil {
		// The tests' requests live in apps, the administrator's namespace
		// as the operator's own is by default, or where OpenShift keeps
		// them, unless a test says otherwise (operator_deputy_test.go).
		cfg.AdminNamespaces = append([]string{"apps"}, operator.DefaultAdminNamespaces...)
	}
	return operator.Options{Config: cfg, IAM: iamclient.Config{Endpoint: cl.url, MaxBackoff: time.Second},
		RootFile: cl.local.AdminCredentialsPath(), Recheck: 2 * time.Second, Registry: prometheus.NewRegistry(), ManyPerProcess: true}
}

// runOperator runs the operator in the test process until the returned
// stop is called or the test ends.
func (cl *cluster) runOperator(t *testing.T, o operator.Options) (stop func(), metrics *operator.Metrics) {
	t.Helper()
	// controller-runtime's logger is set once per process, so it cannot be
	// one test's log; the tests read outcomes from the API server instead.
	ctrl.SetLogger(logr.Discard())
	mgr, metrics, err := operator.NewManager(cl.api.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop, metrics
}

func (cl *cluster) namespace(t *testing.T, name string) {
	t.Helper()
	err := cl.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// request builds a CredentialsRequest from YAML statement entries.
func request(t *testing.T, ns, name, secretNS string, entries string) *leashv1.CredentialsRequest {
	t.Helper()
	manifest := fmt.Sprintf(`apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: %s
  namespace: %s
spec:
  secretRef:
    name: %s-creds
    namespace: %s
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
%s`, name, ns, name, secretNS, indent(entries, "    "))
	cr := &leashv1.CredentialsRequest{}
	if err := yaml.UnmarshalStrict([]byte(manifest), cr); err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	return cr
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func (cl *cluster) create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := cl.c.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

func (cl *cluster) get(t *testing.T, ns, name string) *leashv1.CredentialsRequest {
	t.Helper()
	cr := &leashv1.CredentialsRequest{}
	if err := cl.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// waitFor polls until ok returns true or the timeout passes; what says
// what was awaited, and last reports the state at the time of the failure.
func waitFor(t *testing.T, timeout time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		var done bool
		done, last = ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s; last state: %s", timeout, what, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitCondition waits until the request's condition has status and reason.
func (cl *cluster) waitCondition(t *testing.T, ns, name string, ct leashv1.CredentialsRequestConditionType, status corev1.ConditionStatus, reason string) *leashv1.CredentialsRequest {
	t.Helper()
	var cr *leashv1.CredentialsRequest
	waitFor(t, 60*time.Second, fmt.Sprintf("%s/%s condition %s=%s (%s)", ns, name, ct, status, reason), func() (bool, string) {
		cr = &leashv1.CredentialsRequest{}
		if err := cl.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, cr); err != nil {
			return false, err.Error()
		}
		for _, c := range cr.Status.Conditions {
			if c.Type == ct && c.Status == status && (reason == "" || c.Reason == reason) {
				return true, ""
			}
		}
		out, _ := yaml.Marshal(cr.Status)
		return false, string(out)
	})
	return cr
}

func (cl *cluster) waitReady(t *testing.T, ns, name string) *leashv1.CredentialsRequest {
	t.Helper()
	return cl.waitCondition(t, ns, name, leashv1.Ready, corev1.ConditionTrue, "")
}

// secret reads a Secret; nil when it does not exist.
func (cl *cluster) secret(t *testing.T, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	err := cl.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, s)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// secretKey is the key pair in a Secret leash wrote.
func secretKey(t *testing.T, s *corev1.Secret) iamclient.AccessKey {
	t.Helper()
	if s == nil {
		t.Fatal("the Secret does not exist")
	}
	id, secret := string(s.Data["aws_access_key_id"]), string(s.Data["aws_secret_access_key"])
	if id == "" || secret == "" {
		t.Fatalf("Secret %s/%s has no key pair (keys: %v)", s.Namespace, s.Name, dataKeys(s))
	}
	return iamclient.AccessKey{ID: id, Secret: iamclient.NewSecret(secret)}
}

func dataKeys(s *corev1.Secret) []string {
	var keys []string
	for k := range s.Data {
		keys = append(keys, k)
	}
	return keys
}

// users lists the IAM users under a path in leash local.
func (cl *cluster) users(t *testing.T, prefix string) []string {
	t.Helper()
	out, err := cl.admin.ListUsers(context.Background(), &iam.ListUsersInput{PathPrefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range out.Users {
		names = append(names, aws.ToString(u.UserName))
	}
	return names
}

// keys lists a user's access key IDs in leash local.
func (cl *cluster) keys(t *testing.T, user string) []string {
	t.Helper()
	out, err := cl.admin.ListAccessKeys(context.Background(), &iam.ListAccessKeysInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range out.AccessKeyMetadata {
		ids = append(ids, aws.ToString(k.AccessKeyId))
	}
	return ids
}

func userOf(t *testing.T, cr *leashv1.CredentialsRequest) string {
	t.Helper()
	var st leashv1.AWSProviderStatus
	if cr.Status.ProviderStatus == nil {
		t.Fatal("status.providerStatus is empty")
	}
	if err := yaml.Unmarshal(cr.Status.ProviderStatus.Raw, &st); err != nil {
		t.Fatal(err)
	}
	return st.User
}

func apiErrCode(err error) string { return iamclient.ResultCode(err) }
