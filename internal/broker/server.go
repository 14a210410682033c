package broker

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/policy"
)

// Options configure a Broker.
type Options struct {
	// Kube reaches the API server. Its identity needs create tokenreviews
	// (ClusterRole system:auth-delegator) and get, list and watch of pods
	// and credentialsrequests.
	Kube *rest.Config
	// STS assumes the requests' roles as the broker's own identity, the
	// one principal those roles trust.
	STS AssumeRoler
	// ClusterName is the value of the leash-cluster session tag.
	ClusterName string
	// SessionDuration is each session's length; 0 means
	// DefaultSessionDuration.
	SessionDuration time.Duration
	// Log receives every refusal, with the pod when known, and every
	// session issued; never a token or a key. Nil discards.
	Log *slog.Logger

	// now is the broker's clock; nil means time.Now. Tests move it to
	// bring a cached session near its expiry.
	now func() time.Time
}

// Validate names the option that is wrong and how to fix it.
func (o *Options) Validate() error {
	switch {
	case o.Kube == nil:
		return errors.New("no Kubernetes API server to check tokens with")
	case o.STS == nil:
		return errors.New("no STS client to assume roles with")
	}
	if o.SessionDuration != 0 {
		if err := CheckSessionDuration(o.SessionDuration); err != nil {
			return err
		}
	}
	return CheckClusterName(o.ClusterName)
}

// CheckSessionDuration refuses a session length STS would refuse.
func CheckSessionDuration(d time.Duration) error {
	if d < MinSessionDuration || d > MaxSessionDuration || d%time.Second != 0 {
		return fmt.Errorf("session duration %v is not whole seconds from %v to %v, as STS's DurationSeconds must be; give one such as 1h", d, MinSessionDuration, MaxSessionDuration)
	}
	return nil
}

// CheckClusterName refuses a cluster name that cannot be the leash-cluster
// session tag's value.
func CheckClusterName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > maxTagValue || !tagValue.MatchString(name) {
		return fmt.Errorf("cluster name %q cannot be a session tag value (1 to 256 letters, digits, spaces and _ . : / = + - @); give one such as prod-eu", name)
	}
	return nil
}

// Broker serves pods sessions of their requests' roles over the AWS
// container credentials protocol. It is an http.Handler: CredentialsPath,
// /healthz and /readyz.
type Broker struct {
	cache cache.Cache
	// live reads the API server itself, for a pod the cache has not seen
	// yet.
	live     client.Reader
	reviews  *reviewer
	sessions *sessions
	log      *slog.Logger
	ready    atomic.Bool
	// cluster is the operator's --cluster-name: the roles it makes are
	// under /leash/CLUSTER/.
	cluster string
}

// New makes a broker; Start fills its caches, until which it answers
// NotReady.
func New(ctx context.Context, o Options) (*Broker, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.SessionDuration == 0 {
		o.SessionDuration = DefaultSessionDuration
	}
	if o.now == nil {
		o.now = time.Now
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := leashv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	direct, err := client.New(o.Kube, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	c, err := cache.New(o.Kube, cache.Options{
		Scheme: scheme,
		// Every read is of an informer registered here, none made on demand.
		ReaderFailOnMissingInformer: true,
		DefaultTransform:            cache.TransformStripManagedFields(),
	})
	if err != nil {
		return nil, fmt.Errorf("kubernetes cache: %w", err)
	}
	b := &Broker{
		cache:   c,
		live:    direct,
		log:     log,
		cluster: o.ClusterName,
		reviews: &reviewer{client: direct, now: o.now, log: log,
			accepted: map[[sha256.Size]byte]reviewed{}},
		sessions: &sessions{sts: o.STS, duration: o.SessionDuration, cluster: o.ClusterName, now: o.now,
			cached: map[sessionKey]session{}},
	}
	// Pods are read as metadata only: the name, UID and annotations are
	// all the broker needs, and the informer holds no pod specs.
	pods, err := c.GetInformer(ctx, podMetadata())
	if err != nil {
		return nil, fmt.Errorf("pod informer: %w", err)
	}
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: b.podDeleted}); err != nil {
		return nil, fmt.Errorf("pod handler: %w", err)
	}
	if err := c.IndexField(ctx, &leashv1.CredentialsRequest{}, indexServiceAccount, serviceAccountKeys); err != nil {
		return nil, fmt.Errorf("CredentialsRequest index: %w", err)
	}
	requests, err := c.GetInformer(ctx, &leashv1.CredentialsRequest{})
	if err != nil {
		return nil, fmt.Errorf("CredentialsRequest informer: %w", err)
	}
	if _, err := requests.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(old, _ any) { b.requestChanged(old) },
		DeleteFunc: b.requestChanged,
	}); err != nil {
		return nil, fmt.Errorf("CredentialsRequest handler: %w", err)
	}
	return b, nil
}

// Start runs the caches until ctx ends, and returns once they have synced
// (or failed to): from then on the broker is ready.
func (b *Broker) Start(ctx context.Context) error {
	failed := make(chan error, 1)
	go func() { failed <- b.cache.Start(ctx) }()
	synced := make(chan bool, 1)
	go func() { synced <- b.cache.WaitForCacheSync(ctx) }()
	select {
	case err := <-failed:
		if err == nil { // it ends only with ctx
			err = ctx.Err()
		}
		return fmt.Errorf("kubernetes cache: %w", err)
	case ok := <-synced:
		if !ok {
			return errors.New("the caches of pods and CredentialsRequests did not sync: can the broker list and watch pods and credentialsrequests?")
		}
	}
	b.ready.Store(true)
	return nil
}

// requestChanged drops the cached sessions of a request's role as soon as
// the request is revoked, leaves Broker mode, names another role or is
// deleted: none of them is served again.
func (b *Broker) requestChanged(old any) {
	if d, ok := old.(toolscache.DeletedFinalStateUnknown); ok {
		old = d.Obj
	}
	if r, ok := old.(*leashv1.CredentialsRequest); ok && r.Status.Principal != "" {
		b.dropUnlessServing(r)
	}
}

// dropUnlessServing drops the sessions of r's role unless r, as the cache now
// holds it, still serves the same role unrevoked.
func (b *Broker) dropUnlessServing(old *leashv1.CredentialsRequest) {
	now := &leashv1.CredentialsRequest{}
	err := b.cache.Get(context.Background(), client.ObjectKeyFromObject(old), now)
	if err == nil && serves(now) && now.Status.Principal == old.Status.Principal && now.Annotations[annotationRevoke] == "" {
		return
	}
	b.sessions.dropRole(old.Status.Principal)
}

// podDeleted drops a deleted pod's sessions: none is served again (the
// pod check refuses its token), and they need not wait for their expiry
// to leave memory.
func (b *Broker) podDeleted(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if m, ok := obj.(metav1.Object); ok {
		b.sessions.dropPod(m.GetUID())
	}
}

func podMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	return m
}

// ServeHTTP answers CredentialsPath, /healthz and /readyz.
func (b *Broker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	case "/readyz":
		if !b.ready.Load() {
			writeRefusal(w, refuse(http.StatusServiceUnavailable, CodeNotReady, "the caches of pods and CredentialsRequests have not synced"))
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	case CredentialsPath:
		if r.Method != http.MethodGet {
			writeRefusal(w, refuse(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "use GET"))
			return
		}
		b.serveCredentials(w, r)
	default:
		writeRefusal(w, refuse(http.StatusNotFound, CodeNotFound, "the broker serves "+CredentialsPath))
	}
}

// containerCredentials is the answer the AWS SDKs' container credentials provider
// reads.
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html
type containerCredentials struct {
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string `json:"SecretAccessKey"`
	Token           string `json:"Token"`
	Expiration      string `json:"Expiration"`
}

// serveCredentials answers one pod: credentials only when every check
// passed, a refusal (logged with the pod) otherwise.
func (b *Broker) serveCredentials(w http.ResponseWriter, r *http.Request) {
	sess, id, req, ref := b.credentials(r.Context(), r.Header.Get("Authorization"))
	if ref != nil {
		attrs := []any{"code", ref.code, "reason", ref.message, "remote", r.RemoteAddr}
		if id.PodName != "" {
			attrs = append(attrs, "pod", id.pod(), "serviceAccount", id.ServiceAccount)
		} else if c := tokenClaims(bearer(r.Header.Get("Authorization"))); c.pod != "" {
			attrs = append(attrs, "claimedPod", c.pod) // unverified: the token was refused
		}
		if req != "" {
			attrs = append(attrs, "request", req)
		}
		b.log.Warn("refused credentials", attrs...)
		writeRefusal(w, ref)
		return
	}
	writeJSON(w, http.StatusOK, containerCredentials{
		AccessKeyID:     sess.AccessKeyID,
		SecretAccessKey: sess.SecretAccessKey,
		Token:           sess.Token,
		Expiration:      sess.Expiration.UTC().Format(time.RFC3339),
	})
}

// credentials runs the checks in order: the token (TokenReview, cached),
// the pod it is bound to (it exists, with that UID), the request serving
// its service account (in Broker mode, not revoked), then the session.
func (b *Broker) credentials(ctx context.Context, header string) (session, identity, string, *refusal) {
	if !b.ready.Load() {
		return session{}, identity{}, "", refuse(http.StatusServiceUnavailable, CodeNotReady, "the broker is starting; try again")
	}
	token := bearer(header)
	if token == "" {
		return session{}, identity{}, "", refuse(http.StatusUnauthorized, CodeTokenMissing,
			"no token in the Authorization header: set "+EnvTokenFile+" to the pod's projected token file ("+TokenPath+")")
	}
	id, ref := b.reviews.review(ctx, token)
	if ref != nil {
		return session{}, id, "", ref
	}
	injected, ref := b.pod(ctx, id)
	if ref != nil {
		return session{}, id, "", ref
	}
	req, ref := request(ctx, b.cache, id, injected)
	if ref != nil {
		return session{}, id, "", ref
	}
	name := req.Namespace + "/" + req.Name
	role := req.Status.Principal
	if !b.madeRole(role) {
		return session{}, id, name, refuse(http.StatusForbidden, CodeForeignRole,
			fmt.Sprintf("CredentialsRequest %s's status.principal %s is not a role leash makes for cluster %s (path /leash/%s/): the broker assumes no other; check the operator's --cluster-name and the broker's are the same", name, role, b.cluster, b.cluster))
	}
	if v := req.Annotations[annotationRevoke]; v != "" {
		b.sessions.dropRole(role)
		return session{}, id, name, refuse(http.StatusForbidden, CodeRevoked,
			fmt.Sprintf("CredentialsRequest %s is revoked (%s %s): its role's sessions are no longer issued", name, annotationRevoke, v))
	}
	sess, fresh, err := b.sessions.get(ctx, id, role)
	if err != nil {
		b.log.Error("AssumeRole failed", "pod", id.pod(), "request", name, "role", role, "error", err)
		return session{}, id, name, refuse(http.StatusInternalServerError, CodeAssumeRoleFailed,
			fmt.Sprintf("the broker could not assume role %s of CredentialsRequest %s: %v", role, name, err))
	}
	if fresh {
		b.log.Info("issued session", "pod", id.pod(), "serviceAccount", id.ServiceAccount, "request", name, "role", role,
			"sessionName", sessionName(id.PodName), "expiration", sess.Expiration.UTC().Format(time.RFC3339))
	}
	return sess, id, name, nil
}

// pod checks, in the cache, that the pod the token is bound to exists with
// the token's UID, and returns its leash.dev/credentials-injected. A pod
// deleted since its token was reviewed is refused at once, and its
// sessions dropped. A pod the cache does not hold with that UID is read
// from the API server before it is refused: a pod created a moment ago
// may call before the cache's watch has brought it.
func (b *Broker) pod(ctx context.Context, id identity) (string, *refusal) {
	p := podMetadata()
	key := client.ObjectKey{Namespace: id.Namespace, Name: id.PodName}
	err := b.cache.Get(ctx, key, p)
	if apierrors.IsNotFound(err) || err == nil && p.UID != id.PodUID {
		p = podMetadata()
		err = b.live.Get(ctx, key, p)
	}
	switch {
	case apierrors.IsNotFound(err), err == nil && p.UID != id.PodUID:
		b.sessions.dropPod(id.PodUID)
		return "", refuse(http.StatusForbidden, CodePodGone,
			fmt.Sprintf("pod %s (uid %s), which the token is bound to, no longer exists", id.pod(), id.PodUID))
	case err != nil:
		return "", refuse(http.StatusServiceUnavailable, CodeNotReady, "the broker could not read pods: "+err.Error())
	}
	return p.Annotations[annotationInjected], nil
}

// madeRole says whether role is one the operator makes for this cluster:
// a role under the path /leash/CLUSTER/ (the operator's userPath). The
// broker reads which role to assume from a request's status, which
// whoever may write that status could point at any role that trusts the
// broker; the path keeps it to the operator's roles, each of which admits
// only sessions tagged with its own request's namespace.
func (b *Broker) madeRole(role string) bool {
	a, ok := policy.ParseARN(role)
	return ok && a.Service == "iam" && strings.HasPrefix(a.Resource, "role/leash/"+b.cluster+"/")
}
