package broker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	"golang.org/x/sync/singleflight"
	"k8s.io/apimachinery/pkg/types"
)

// Session lengths. STS allows 15 minutes to the role's maximum session
// duration (an hour unless the role says more).
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
const (
	DefaultSessionDuration = time.Hour
	MinSessionDuration     = 15 * time.Minute
	MaxSessionDuration     = 12 * time.Hour
	// maxRefreshBefore caps how long before its expiry a session is
	// replaced; see refreshBefore.
	maxRefreshBefore = 15 * time.Minute
)

// refreshBefore is how long before its expiry a cached session stops being
// served and a new one is assumed: 15 minutes or a quarter of the session's
// duration, whichever is smaller. A pod then always receives a session with
// more than that left: the AWS SDKs fetch again 5 (Go, Java) to 15 minutes
// (botocore's advisory refresh) before the expiry they were given, so with
// the default hour every fetch at or after 15 minutes before expiry gets a
// new session, and a short session is not replaced after a few minutes.
func refreshBefore(duration time.Duration) time.Duration {
	return min(maxRefreshBefore, duration/4)
}

// AssumeRoler is the STS call the broker makes, with its own credentials.
type AssumeRoler interface {
	AssumeRole(ctx context.Context, in *sts.AssumeRoleInput, optFns ...func(*sts.Options)) (*sts.AssumeRoleOutput, error)
}

// session is a role session the broker hands to a pod.
type session struct {
	AccessKeyID, SecretAccessKey, Token string
	Expiration                          time.Time
}

// sessionKey is the cache key: one session per pod and role.
type sessionKey struct {
	pod  types.UID
	role string
}

// sessions assumes roles for pods and caches the sessions per pod and role
// until refreshBefore their expiry; concurrent requests of one pod for one
// role share one AssumeRole.
type sessions struct {
	sts      AssumeRoler
	duration time.Duration
	cluster  string
	now      func() time.Time

	mu        sync.Mutex
	cached    map[sessionKey]session
	nextSweep time.Time
	flight    singleflight.Group
}

// get returns a session of role for the pod, cached or new; fresh says it
// was assumed for this call.
func (s *sessions) get(ctx context.Context, id identity, role string) (sess session, fresh bool, err error) {
	key := sessionKey{pod: id.PodUID, role: role}
	if sess, ok := s.lookup(key); ok {
		return sess, false, nil
	}
	v, err, _ := s.flight.Do(string(id.PodUID)+" "+role, func() (any, error) {
		if sess, ok := s.lookup(key); ok {
			return sess, nil
		}
		sess, err := s.assume(ctx, id, role)
		if err != nil {
			return nil, err
		}
		s.store(key, sess)
		return sess, nil
	})
	if err != nil {
		return session{}, false, err
	}
	return v.(session), true, nil
}

// lookup returns the cached session while more than refreshBefore of it is
// left.
func (s *sessions) lookup(key sessionKey) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.cached[key]
	if !ok || sess.Expiration.Sub(s.now()) <= refreshBefore(s.duration) {
		return session{}, false
	}
	return sess, true
}

func (s *sessions) store(key sessionKey, sess session) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.After(s.nextSweep) {
		for k, v := range s.cached {
			if !v.Expiration.After(now) {
				delete(s.cached, k)
			}
		}
		s.nextSweep = now.Add(time.Minute)
	}
	s.cached[key] = sess
}

// dropRole forgets every session of role: its request was revoked, or no
// longer serves it.
func (s *sessions) dropRole(role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.cached {
		if k.role == role {
			delete(s.cached, k)
		}
	}
}

// dropPod forgets every session of a pod that is gone.
func (s *sessions) dropPod(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.cached {
		if k.pod == uid {
			delete(s.cached, k)
		}
	}
}

// assume makes the AssumeRole call, with the pod's session name and tags.
func (s *sessions) assume(ctx context.Context, id identity, role string) (session, error) {
	// A shared call outlives the request that started it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	out, err := s.sts.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn:         aws.String(role),
		RoleSessionName: aws.String(sessionName(id.PodName)),
		DurationSeconds: aws.Int32(int32(s.duration / time.Second)),
		Tags: []ststypes.Tag{
			{Key: aws.String(TagNamespace), Value: aws.String(id.Namespace)},
			{Key: aws.String(TagServiceAccount), Value: aws.String(id.ServiceAccount)},
			{Key: aws.String(TagPodName), Value: aws.String(id.PodName)},
			{Key: aws.String(TagPodUID), Value: aws.String(string(id.PodUID))},
			{Key: aws.String(TagCluster), Value: aws.String(s.cluster)},
		},
	})
	if err != nil {
		return session{}, fmt.Errorf("sts:AssumeRole %s: %w", role, err)
	}
	c := out.Credentials
	if c == nil || c.AccessKeyId == nil || c.SecretAccessKey == nil || c.SessionToken == nil || c.Expiration == nil {
		return session{}, errors.New("sts:AssumeRole " + role + ": the answer holds no complete credentials")
	}
	return session{AccessKeyID: *c.AccessKeyId, SecretAccessKey: *c.SecretAccessKey, Token: *c.SessionToken, Expiration: *c.Expiration}, nil
}

// notSessionName is what STS's RoleSessionName pattern [\w+=,.@-]* does
// not allow.
var notSessionName = regexp.MustCompile(`[^\w+=,.@-]`)

// tagValue is the characters STS accepts in a session tag value, which
// holds at most maxTagValue of them (checked apart: a bounded repetition of
// these classes takes the regexp package some 50 ms and 10 MB to compile,
// at the start of every leash command).
// https://docs.aws.amazon.com/STS/latest/APIReference/API_Tag.html
var tagValue = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

const maxTagValue = 256

// sessionName is the RoleSessionName of a pod's sessions: its name, with
// characters STS does not allow replaced by "-" and cut to 64 characters
// (the kubernetes-pod-name and kubernetes-pod-uid tags hold the whole name
// and the UID), and at least 2.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html#API_AssumeRole_RequestParameters
func sessionName(pod string) string {
	name := notSessionName.ReplaceAllString(pod, "-")
	if len(name) > 64 {
		name = name[:64]
	}
	for len(name) < 2 {
		name += "-"
	}
	return name
}
