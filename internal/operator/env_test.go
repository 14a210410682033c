package operator

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/faults"
)

// env is a Provisioner as leash apply wires it: Secrets as files in a
// folder, IAM an in-process leash local signed with its administrator's
// key. The endpoint and the provisioner share a clock the test moves, so
// that rotation and grace periods pass without sleeping.
type env struct {
	ctx     context.Context
	local   *localaws.Loopback
	clock   *clock
	cluster FolderCluster
	events  *recorder
	newIAM  IAMFactory
	p       *Provisioner
	// admin signs with the endpoint's administrator key, to read and
	// arrange IAM behind the provisioner's back.
	admin   *iamclient.Client
	account string
	// resign sits between every client and the endpoint; it does nothing
	// until a case gives it a key to re-sign with.
	resign *resigner
	// watch sees every call's answer; it does nothing until a case gives
	// it a check to run after each call.
	watch *callWatcher
}

// envOptions are what a case changes; the zero value mints for cluster
// "unit" with no rotation.
type envOptions struct {
	cfg    Config
	faults faults.Config
	// jwks maps an OIDC issuer to its key set file, for leash local.
	jwks map[string]string
	// otherAccounts are accounts leash local holds beside the root's.
	otherAccounts []string
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	dir := t.TempDir()
	clk := &clock{}
	local, err := localaws.StartLoopback(localaws.Config{DataDir: filepath.Join(dir, "local"), Now: clk.Now, Faults: o.faults, JWKSFiles: o.jwks, OtherAccounts: o.otherAccounts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := local.Stop(); err != nil {
			t.Errorf("stop leash local: %v", err)
		}
	})
	httpClient := iamclient.NewHTTPClient(1)
	t.Cleanup(httpClient.CloseIdleConnections)
	watch := &callWatcher{base: httpClient.Transport}
	resign := &resigner{base: watch}
	httpClient.Transport = resign
	newIAM := func(key iamclient.AccessKey) *iamclient.Client {
		return iamclient.New(iamclient.Config{Endpoint: local.URL, Credentials: key.Provider(), HTTPClient: httpClient, MaxAttempts: 3})
	}
	root := FileRoot{Path: local.AdminCredentialsPath()}
	r, err := root.Root(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: context.Background(), local: local, clock: clk, cluster: FolderCluster{Dir: filepath.Join(dir, "secrets")},
		events: &recorder{}, newIAM: newIAM, admin: newIAM(r.Key), account: local.AccountID(), resign: resign, watch: watch}
	e.p = e.provisioner(t, o.cfg)
	return e
}

// provisioner is another Provisioner on the same endpoint, folder and
// clock: another cluster when cfg names one.
func (e *env) provisioner(t *testing.T, cfg Config) *Provisioner {
	t.Helper()
	if cfg.Mode == "" {
		cfg.Mode = leashv1.ModeMint
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = "unit"
	}
	if cfg.AdminNamespaces == nil {
		cfg.AdminNamespaces = []string{"*"} // a folder, as leash apply has it: its user wrote every request
	}
	p, err := NewProvisioner(cfg, FileRoot{Path: e.local.AdminCredentialsPath()}, e.newIAM, e.cluster, e.events)
	if err != nil {
		t.Fatal(err)
	}
	p.now = e.clock.Now
	return p
}

// sync runs one sync and records its outcome in the request's status, as
// the reconciler does, so that the next sync sees what this one made.
func (e *env) sync(t *testing.T, p *Provisioner, cr *leashv1.CredentialsRequest) (Outcome, error) {
	t.Helper()
	out, err := p.Sync(e.ctx, cr)
	applyOutcome(cr, out, err == nil, metav1.NewTime(e.clock.Now()))
	return out, err
}

// ready syncs and fails the test unless the request ends ready.
func (e *env) ready(t *testing.T, cr *leashv1.CredentialsRequest) Outcome {
	t.Helper()
	out, err := e.sync(t, e.p, cr)
	if err != nil || out.Failure != nil || !out.Provisioned {
		t.Fatalf("sync %s/%s: error %v, failure %+v, provisioned %v", cr.Namespace, cr.Name, err, out.Failure, out.Provisioned)
	}
	return out
}

// secret reads the request's Secret file; nil when there is none.
func (e *env) secret(t *testing.T, cr *leashv1.CredentialsRequest) *corev1.Secret {
	t.Helper()
	ref := cr.Spec.SecretRef
	s, err := e.cluster.Secret(e.ctx, ref.Namespace, ref.Name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// publishedKey is the key in the request's Secret file, after checking
// that its three data keys agree.
func (e *env) publishedKey(t *testing.T, cr *leashv1.CredentialsRequest) iamclient.AccessKey {
	t.Helper()
	s := e.secret(t, cr)
	if s == nil {
		t.Fatalf("no Secret for %s/%s", cr.Namespace, cr.Name)
	}
	id, secret := string(s.Data[SecretKeyID]), string(s.Data[SecretKeySecret])
	f, err := credfile.Parse(string(s.Data[SecretKeyCredentials]))
	if err != nil {
		t.Fatalf("the Secret's %s: %v", SecretKeyCredentials, err)
	}
	fid, fsecret, _, ok := f.StaticKey("default")
	if id == "" || secret == "" || !ok || fid != id || fsecret != secret {
		t.Fatalf("Secret %s/%s: %s %q, %s set %v, and a [default] profile with the same pair %v; want all three to agree",
			s.Namespace, s.Name, SecretKeyID, id, SecretKeySecret, secret != "", ok && fid == id && fsecret == secret)
	}
	return iamclient.AccessKey{ID: id, Secret: iamclient.NewSecret(secret)}
}

// keyIDs lists the IDs of a user's access keys in IAM, sorted.
func (e *env) keyIDs(t *testing.T, user string) []string {
	t.Helper()
	keys, err := e.admin.AccessKeys(e.ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	slices.Sort(ids)
	return ids
}

// actsAs fails the test unless key works and belongs to arn.
func (e *env) actsAs(t *testing.T, key iamclient.AccessKey, arn string) {
	t.Helper()
	id, err := e.admin.WithKey(key).CallerIdentity(e.ctx)
	if err != nil {
		t.Fatalf("key %s does not work: %v", key.ID, err)
	}
	if id.ARN != arn {
		t.Fatalf("key %s acts as %s, want %s", key.ID, id.ARN, arn)
	}
}

// sdk is the AWS SDK's IAM client signed with the administrator's key, for
// the calls leash never makes (such as CreateLoginProfile).
func (e *env) sdk(t *testing.T) *iam.Client {
	t.Helper()
	r, err := FileRoot{Path: e.local.AdminCredentialsPath()}.Root(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.local.URL), Credentials: r.Key.Provider()})
}

// userARN is the ARN of a user minted for cluster "unit".
func (e *env) userARN(name string) string {
	return "arn:aws:iam::" + e.account + ":user/leash/unit/" + name
}

// mintRequest is a request in namespace apps for its own Secret
// NAME-creds, with a UID of its own.
func mintRequest(t *testing.T, name string, entries ...leashv1.StatementEntry) *leashv1.CredentialsRequest {
	t.Helper()
	cr := &leashv1.CredentialsRequest{}
	cr.Name, cr.Namespace, cr.UID = name, "apps", types.UID("uid-"+name)
	cr.Spec.SecretRef = corev1.ObjectReference{Namespace: "apps", Name: name + "-creds"}
	setEntries(t, cr, entries...)
	return cr
}

// setEntries replaces the request's statementEntries, as an upgrade of
// its controller does.
func setEntries(t *testing.T, cr *leashv1.CredentialsRequest, entries ...leashv1.StatementEntry) {
	t.Helper()
	spec := leashv1.AWSProviderSpec{StatementEntries: entries}
	spec.APIVersion, spec.Kind = leashv1.GroupVersion.String(), "AWSProviderSpec"
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cr.Spec.ProviderSpec = &runtime.RawExtension{Raw: raw}
	cr.Generation++
}

func allow(resource string, actions ...string) leashv1.StatementEntry {
	return leashv1.StatementEntry{Effect: "Allow", Action: actions, Resource: resource}
}

// clock is the time of the endpoint and the provisioner: the real time
// moved forward by the test. It stays within leash local's 15 minutes of
// allowed signature skew, since the SDK signs with the real time.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// recorder keeps the Events a provisioner records.
type recorder struct {
	mu     sync.Mutex
	events []recordedEvent
}

type recordedEvent struct {
	object                  string
	eventtype, reason, text string
}

// Event implements Recorder.
func (r *recorder) Event(o runtime.Object, eventtype, reason, message string) {
	cr, _ := o.(*leashv1.CredentialsRequest)
	name := ""
	if cr != nil {
		name = cr.Namespace + "/" + cr.Name
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recordedEvent{object: name, eventtype: eventtype, reason: reason, text: message})
}

// reasons lists the reasons of the Events of one type, in order.
func (r *recorder) reasons(eventtype string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.eventtype == eventtype {
			out = append(out, e.reason)
		}
	}
	return out
}
