package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxReviewAge bounds how long a TokenReview is trusted: the broker asks
// the API server again about a token at most this often, and a token the
// API server stops accepting (its ServiceAccount deleted) is refused within
// it. Whether the pod exists is checked on every request, from the cache.
const maxReviewAge = 5 * time.Minute

// The user.extra keys the API server sets for a token bound to a pod.
// https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#bound-service-account-tokens
const (
	extraPodName = "authentication.kubernetes.io/pod-name"
	extraPodUID  = "authentication.kubernetes.io/pod-uid"
)

// serviceAccountPrefix starts the username of a service account's token.
const serviceAccountPrefix = "system:serviceaccount:"

// identity is what a reviewed token proves: the service account it was
// issued to and the pod it is bound to.
type identity struct {
	Namespace, ServiceAccount string
	PodName                   string
	PodUID                    types.UID
}

// pod is the pod as NAMESPACE/NAME, for logs and messages.
func (id identity) pod() string { return id.Namespace + "/" + id.PodName }

// reviewer checks tokens with the TokenReview API and remembers the
// answers it accepted, by the token's SHA-256 (never the token), until the
// token expires or maxReviewAge passes, whichever is first. Concurrent
// checks of one token share one TokenReview.
type reviewer struct {
	client client.Client
	now    func() time.Time
	log    *slog.Logger

	mu        sync.Mutex
	accepted  map[[sha256.Size]byte]reviewed
	nextSweep time.Time
	flight    singleflight.Group
}

type reviewed struct {
	id    identity
	until time.Time
}

// review returns the identity the token proves, or a refusal.
func (r *reviewer) review(ctx context.Context, token string) (identity, *refusal) {
	key := sha256.Sum256([]byte(token))
	if id, ok := r.remembered(key); ok {
		return id, nil
	}
	v, _, _ := r.flight.Do(hex.EncodeToString(key[:]), func() (any, error) {
		// A flight that ended between the look above and this one has
		// remembered its answer: take it rather than ask again.
		if id, ok := r.remembered(key); ok {
			return reviewAnswer{id, nil}, nil
		}
		id, ref := r.ask(ctx, token)
		if ref == nil {
			r.remember(key, id, tokenClaims(token).exp)
		}
		return reviewAnswer{id, ref}, nil
	})
	a := v.(reviewAnswer)
	return a.id, a.ref
}

// remembered returns the identity of an accepted review of the token
// whose SHA-256 is key, while it holds.
func (r *reviewer) remembered(key [sha256.Size]byte) (identity, bool) {
	r.mu.Lock()
	got, ok := r.accepted[key]
	r.mu.Unlock()
	if !ok || !r.now().Before(got.until) {
		return identity{}, false
	}
	return got.id, true
}

type reviewAnswer struct {
	id  identity
	ref *refusal
}

// ask makes one TokenReview for Audience and checks what it says: the
// token is authenticated for Audience, is a service account's, and is bound
// to a pod.
func (r *reviewer) ask(ctx context.Context, token string) (identity, *refusal) {
	// A shared review outlives the request that started it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	tr := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: []string{Audience}}}
	if err := r.client.Create(ctx, tr); err != nil {
		if apierrors.IsForbidden(err) {
			r.log.Error("TokenReview forbidden: the broker's Kubernetes identity lacks RBAC permission to create tokenreviews (authentication.k8s.io); bind it to the ClusterRole system:auth-delegator", "error", err)
		} else {
			r.log.Error("TokenReview failed", "error", err)
		}
		return identity{}, refuse(http.StatusServiceUnavailable, CodeReviewFailed, "the broker could not check the token with the Kubernetes API server; try again")
	}
	st := tr.Status
	if !st.Authenticated {
		return identity{}, refuse(http.StatusUnauthorized, CodeTokenInvalid,
			fmt.Sprintf("the API server does not accept the token for audience %s (%s): give a projected service-account token of that audience", Audience, st.Error))
	}
	if !slices.Contains(st.Audiences, Audience) {
		return identity{}, refuse(http.StatusUnauthorized, CodeTokenInvalid,
			fmt.Sprintf("the token's audiences %v do not include %s", st.Audiences, Audience))
	}
	ns, sa, ok := strings.Cut(strings.TrimPrefix(st.User.Username, serviceAccountPrefix), ":")
	if !strings.HasPrefix(st.User.Username, serviceAccountPrefix) || !ok || ns == "" || sa == "" || strings.Contains(sa, ":") {
		return identity{}, refuse(http.StatusForbidden, CodeTokenNotBound,
			fmt.Sprintf("the token is of %q, not of a service account", st.User.Username))
	}
	name, uid := st.User.Extra[extraPodName], st.User.Extra[extraPodUID]
	if len(name) != 1 || len(uid) != 1 || name[0] == "" || uid[0] == "" {
		return identity{}, refuse(http.StatusForbidden, CodeTokenNotBound,
			fmt.Sprintf("the token of service account %s/%s is not bound to a pod: give the pod's projected token (a TokenRequest with boundObjectRef kind Pod)", ns, sa))
	}
	return identity{Namespace: ns, ServiceAccount: sa, PodName: name[0], PodUID: types.UID(uid[0])}, nil
}

// remember caches an accepted review until min(exp, now+maxReviewAge), and
// now and then forgets the expired ones.
func (r *reviewer) remember(key [sha256.Size]byte, id identity, exp time.Time) {
	now := r.now()
	until := now.Add(maxReviewAge)
	if !exp.IsZero() && exp.Before(until) {
		until = exp
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.After(r.nextSweep) {
		for k, v := range r.accepted {
			if !now.Before(v.until) {
				delete(r.accepted, k)
			}
		}
		r.nextSweep = now.Add(maxReviewAge)
	}
	if now.Before(until) {
		r.accepted[key] = reviewed{id: id, until: until}
	}
}
