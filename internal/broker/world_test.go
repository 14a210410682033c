package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// The test world's names.
const (
	testNamespace = "apps"
	testCluster   = "test-cluster"
	// rolePath is where the operator makes the roles of testCluster.
	rolePath = "/leash/" + testCluster + "/"
	roleName = "broker-app"
)

// world is a real API server (RBAC, the default admission plugins, the
// TokenRequest API, the CRD installed) and leash local in this process,
// with the IAM user the broker acts as and a role that trusts only it.
type world struct {
	api     *apiserver.Server
	aws     *localtest.Endpoint
	dataDir string
	roleARN string
	// untrustedARN is a role that trusts another principal than the broker.
	untrustedARN string
	brokerAK     aws.CredentialsProvider
	// brokerKube is the broker's Kubernetes identity, with the RBAC a
	// deployment grants it; noReviewKube lacks create tokenreviews.
	brokerKube, noReviewKube *rest.Config
}

func newWorld(t *testing.T) *world {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := leashv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	w := &world{dataDir: t.TempDir()}
	w.api = apiserver.Start(t, apiserver.Options{Scheme: scheme, CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}})
	w.aws = localtest.Start(t, localaws.Config{DataDir: w.dataDir})
	ctx := context.Background()

	// The broker's AWS identity: a user allowed to assume and tag the
	// Broker roles; the role trusts that user alone.
	admin := w.aws.IAM(nil)
	user, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("leash-broker")})
	if err != nil {
		t.Fatal(err)
	}
	account := w.aws.AccountID()
	w.roleARN = "arn:aws:iam::" + account + ":role" + rolePath + roleName
	mustJSON := func(v any) *string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return aws.String(string(b))
	}
	if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user.User.UserName, PolicyName: aws.String("assume-broker-roles"),
		PolicyDocument: mustJSON(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Action": []string{"sts:AssumeRole", "sts:TagSession"}, "Resource": "arn:aws:iam::" + account + ":role" + rolePath + "broker-*"}}})}); err != nil {
		t.Fatal(err)
	}
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user.User.UserName})
	if err != nil {
		t.Fatal(err)
	}
	w.brokerAK = credentials.NewStaticCredentialsProvider(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey, "")
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(roleName), Path: aws.String(rolePath),
		AssumeRolePolicyDocument: mustJSON(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Principal": map[string]any{"AWS": *user.User.Arn}, "Action": []string{"sts:AssumeRole", "sts:TagSession"}}}})}); err != nil {
		t.Fatal(err)
	}
	// A role that does not trust the broker: STS refuses its sessions.
	w.untrustedARN = "arn:aws:iam::" + account + ":role" + rolePath + "broker-untrusted"
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("broker-untrusted"), Path: aws.String(rolePath),
		AssumeRolePolicyDocument: mustJSON(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Principal": map[string]any{"AWS": w.roleARN}, "Action": "sts:AssumeRole"}}})}); err != nil {
		t.Fatal(err)
	}
	// The request's statements: read its own role, nothing else.
	if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(roleName), PolicyName: aws.String("request"),
		PolicyDocument: mustJSON(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Action": "iam:GetRole", "Resource": w.roleARN}}})}); err != nil {
		t.Fatal(err)
	}

	// The broker's Kubernetes identities: both read pods and requests
	// (deploy's ClusterRole); only one may create tokenreviews, through
	// system:auth-delegator as a deployment binds it.
	c := w.api.Client
	mk := func(o client.Object) {
		t.Helper()
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	mk(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "leash-broker-read"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{leashv1.GroupVersion.Group}, Resources: []string{"credentialsrequests"}, Verbs: []string{"get", "list", "watch"}},
	}})
	bind := func(name, role, user string) {
		mk(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}})
	}
	bind("broker-read", "leash-broker-read", "broker")
	bind("broker-auth-delegator", "system:auth-delegator", "broker")
	bind("no-review-read", "leash-broker-read", "no-review")
	for name, cfg := range map[string]**rest.Config{"broker": &w.brokerKube, "no-review": &w.noReviewKube} {
		u, err := w.api.Env.AddUser(envtest.User{Name: name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		*cfg = u.Config()
	}
	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}})
	return w
}

// request creates a CredentialsRequest for the service accounts, and sets
// its status as the operator does in Broker mode.
func (w *world) request(t *testing.T, name string, serviceAccounts ...string) *leashv1.CredentialsRequest {
	t.Helper()
	return w.requestFor(t, name, w.roleARN, serviceAccounts...)
}

// requestFor is request with the role the operator made.
func (w *world) requestFor(t *testing.T, name, role string, serviceAccounts ...string) *leashv1.CredentialsRequest {
	t.Helper()
	ctx := context.Background()
	r := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name},
		Spec: leashv1.CredentialsRequestSpec{SecretRef: corev1.ObjectReference{Namespace: testNamespace, Name: name}, ServiceAccountNames: serviceAccounts}}
	if err := w.api.Client.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Status = leashv1.CredentialsRequestStatus{Mode: leashv1.ModeBroker, Principal: role, Provisioned: true, LastSyncGeneration: r.Generation}
	if err := w.api.Client.Status().Update(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// pod creates a pod of the service account (which it creates too), with
// annotations; envtest runs no kubelet, the object is enough.
func (w *world) pod(t *testing.T, name, serviceAccount string, annotations map[string]string) *corev1.Pod {
	t.Helper()
	w.api.ServiceAccounts(t, testNamespace, serviceAccount)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{ServiceAccountName: serviceAccount, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	if err := w.api.Client.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// token is a projected-style token of the pod's service account for the
// audience, bound to the pod unless pod is nil, as the kubelet requests it.
func (w *world) token(t *testing.T, serviceAccount string, pod *corev1.Pod, audience string) string {
	t.Helper()
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{audience}, ExpirationSeconds: aws.Int64(TokenExpirationSeconds)}}
	if pod != nil {
		tr.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: serviceAccount}}
	if err := w.api.Client.SubResource("token").Create(context.Background(), sa, tr); err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	return tr.Status.Token
}

// tokenFile writes a token where a pod's SDK reads it.
func tokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// running is a broker served on loopback, its log and its TokenReview
// calls counted.
type running struct {
	*Broker
	url     string
	log     *syncBuffer
	reviews *atomic.Int64
	offset  *atomic.Int64 // the broker's clock's offset, in nanoseconds
}

func (w *world) start(t *testing.T, kube *rest.Config) *running {
	t.Helper()
	cfg := rest.CopyConfig(kube)
	reviews := &atomic.Int64{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tokenreviews") {
				reviews.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	logs := &syncBuffer{}
	offset := &atomic.Int64{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b, err := New(ctx, Options{Kube: cfg, STS: w.aws.STS(w.brokerAK), ClusterName: testCluster,
		Log: slog.New(slog.NewJSONHandler(logs, nil)),
		now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	return &running{Broker: b, url: srv.URL, log: logs, reviews: reviews, offset: offset}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// syncBuffer is a log several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logged returns the log's lines of message msg, decoded.
func (s *syncBuffer) logged(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(s.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// answer is one GET of the credentials path.
type answer struct {
	status      int
	contentType string
	body        string
	creds       containerCredentials
	err         errorBody
}

// String says what the answer is without its secret: the status and the
// refusal, or the session's key ID.
func (a answer) String() string {
	if a.status == http.StatusOK {
		return fmt.Sprintf("%d session %s (%s), expiring %s", a.status, a.creds.AccessKeyID, a.contentType, a.creds.Expiration)
	}
	return fmt.Sprintf("%d (%s) %s", a.status, a.contentType, a.body)
}

func (r *running) fetch(t *testing.T, authorization string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.url+CredentialsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(body)}
	if resp.StatusCode == http.StatusOK {
		err = json.Unmarshal(body, &a.creds)
	} else {
		err = json.Unmarshal(body, &a.err)
	}
	if err != nil {
		t.Fatalf("answer %d (%d bytes) is not the JSON expected: %v", resp.StatusCode, len(body), err)
	}
	return a
}

// assumeRoles are leash local's audit records of AssumeRole calls on the
// role, in order.
func (w *world) assumeRoles(t *testing.T) []*audit.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(w.dataDir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []*audit.Event
	if _, err := audit.Read(f, audit.Filter{EventName: "AssumeRole"}, func(e *audit.Event) error {
		if strings.Contains(string(e.RequestParameters), w.roleARN) {
			out = append(out, e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// assumedFor are the AssumeRole records whose session name is the pod's.
func (w *world) assumedFor(t *testing.T, pod string) []*audit.Event {
	t.Helper()
	var out []*audit.Event
	for _, e := range w.assumeRoles(t) {
		var p struct {
			RoleSessionName string `json:"roleSessionName"`
		}
		if json.Unmarshal(e.RequestParameters, &p) == nil && p.RoleSessionName == sessionName(pod) {
			out = append(out, e)
		}
	}
	return out
}
