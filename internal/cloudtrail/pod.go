package cloudtrail

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"leash.dev/leash/localaws/audit"
)

// The session tags leash broker puts on every session it issues, as
// internal/broker names them (TagNamespace, TagPodName, TagPodUID,
// TagServiceAccount); a test of the command keeps the two in step. They are
// repeated here so that reading a trail does not link the broker's
// Kubernetes client.
const (
	TagNamespace      = "kubernetes-namespace"
	TagPodName        = "kubernetes-pod-name"
	TagPodUID         = "kubernetes-pod-uid"
	TagServiceAccount = "kubernetes-service-account"
)

// MaxSessionDuration is the longest an AssumeRole session lasts: a call
// made at some time may use a session issued up to this long before it, so
// the sessions of a window are looked for from this long before it starts.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
// (DurationSeconds: up to 43200 seconds).
const MaxSessionDuration = 12 * time.Hour

// Pod selects the calls of one Kubernetes pod through the sessions leash
// broker issued it. A call's record carries no session tags; the
// AssumeRole that issued its session does, in its requestParameters. So a
// pod's sessions are the successful AssumeRole calls whose tags name the
// pod's namespace and name, and its calls those made with the access key
// IDs those calls returned (responseElements.credentials.accessKeyId, the
// call's userIdentity.accessKeyId).
//
// Only a successful call counts (a refused one issued nothing, and its
// parameters are whatever the caller sent), and only the tags the caller
// asked for: a record's requestParameters. Any principal allowed
// sts:TagSession can tag its own session as any pod; Broker, when set,
// keeps only the AssumeRole calls that the broker's identity made.
type Pod struct {
	Namespace, Name string
	// Broker is the ARN of the broker's principal, selecting as
	// audit.Selects does (a role's ARN selects its sessions); empty
	// accepts any caller.
	Broker string
}

// PodSession is one session issued to the pod, as its AssumeRole record
// tells it.
type PodSession struct {
	// UID is the pod's UID tag: pods of the same name over time differ
	// in it. Empty when the call did not tag one.
	UID            string `json:"uid,omitempty"`
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// Session is the session's ARN, the caller of the pod's calls.
	Session string `json:"session"`
	// By is the ARN of the AssumeRole's caller.
	By string `json:"by"`
	// At is when the session was issued.
	At    time.Time `json:"at"`
	keyID string
}

// PodTrail is a trail narrowed to one pod's calls: those made with the
// sessions found, and the AssumeRole calls that issued them.
type PodTrail struct {
	Source Source
	Pod    Pod
	// Sessions are the pod's sessions, in the trail's order.
	Sessions []PodSession
	keys     map[string]bool
}

// ForPod reads src once for the pod's AssumeRole calls, from
// MaxSessionDuration before f.Since to f.Until, and returns the trail that
// selects the pod's calls among those f selects. f.Principal must be
// empty: the pod is the principal.
func ForPod(ctx context.Context, src Source, pod Pod, f audit.Filter) (*PodTrail, error) {
	first := audit.Filter{Until: f.Until, EventName: "AssumeRole"}
	if !f.Since.IsZero() {
		first.Since = f.Since.Add(-MaxSessionDuration)
	}
	t := &PodTrail{Source: src, Pod: pod, keys: map[string]bool{}}
	err := Collect(ctx, src, first, func(e *audit.Event) error {
		if s, ok := pod.issued(e); ok && !t.keys[s.keyID] {
			t.keys[s.keyID] = true
			t.Sessions = append(t.Sessions, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Events passes on the records f selects that are the pod's: a call made
// with one of its sessions' keys, or an AssumeRole that issued one.
func (t *PodTrail) Events(ctx context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	if len(t.keys) == 0 {
		return nil
	}
	return t.Source.Events(ctx, f, func(e *audit.Event) error {
		if t.keys[e.UserIdentity.AccessKeyID] {
			return fn(e)
		}
		if s, ok := t.Pod.issued(e); ok && t.keys[s.keyID] {
			return fn(e)
		}
		return nil
	})
}

// Calls is the trail of the pod's own calls, without the AssumeRole calls
// that issued its sessions: the broker made those, with its own
// permissions, so a policy of what the pod did leaves them out.
func (t *PodTrail) Calls() Source { return podCalls{t} }

type podCalls struct{ t *PodTrail }

func (c podCalls) Events(ctx context.Context, f audit.Filter, fn func(*audit.Event) error) error {
	if len(c.t.keys) == 0 {
		return nil
	}
	return c.t.Source.Events(ctx, f, func(e *audit.Event) error {
		if c.t.keys[e.UserIdentity.AccessKeyID] {
			return fn(e)
		}
		return nil
	})
}

// issued is the session e issued to the pod, if e is a successful
// AssumeRole by an accepted caller whose requested tags name the pod.
func (p Pod) issued(e *audit.Event) (PodSession, bool) {
	if e.EventSource != "sts.amazonaws.com" || e.EventName != "AssumeRole" || e.ErrorCode != "" {
		return PodSession{}, false
	}
	if p.Broker != "" && !audit.Selects(p.Broker, &e.UserIdentity) {
		return PodSession{}, false
	}
	var req struct {
		Tags []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"tags"`
	}
	if len(e.RequestParameters) == 0 || json.Unmarshal(e.RequestParameters, &req) != nil {
		return PodSession{}, false
	}
	// "Tag key–value pairs are not case sensitive, but case is preserved.
	// This means that you cannot have separate Department and department
	// tag keys" (AssumeRole's Tags): a key seen twice is no record of a
	// call that succeeded.
	// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
	tags := map[string]string{}
	for _, tag := range req.Tags {
		k := strings.ToLower(tag.Key)
		if _, dup := tags[k]; dup {
			return PodSession{}, false
		}
		tags[k] = tag.Value
	}
	if tags[TagNamespace] != p.Namespace || tags[TagPodName] != p.Name {
		return PodSession{}, false
	}
	var resp struct {
		Credentials struct {
			AccessKeyID string `json:"accessKeyId"`
		} `json:"credentials"`
		AssumedRoleUser struct {
			ARN string `json:"arn"`
		} `json:"assumedRoleUser"`
	}
	if len(e.ResponseElements) == 0 || json.Unmarshal(e.ResponseElements, &resp) != nil || resp.Credentials.AccessKeyID == "" {
		return PodSession{}, false
	}
	return PodSession{
		UID: tags[TagPodUID], ServiceAccount: tags[TagServiceAccount],
		Session: resp.AssumedRoleUser.ARN, By: Caller(&e.UserIdentity), At: e.EventTime.UTC(),
		keyID: resp.Credentials.AccessKeyID,
	}, true
}
