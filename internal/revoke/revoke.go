package revoke

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// Kind is the kind of principal revoked.
type Kind string

// The principals leash revokes.
const (
	User Kind = "user"
	Role Kind = "role"
)

// Options is one revocation, as leash revoke's flags give it.
type Options struct {
	Kind Kind
	// Name is the principal's name or ARN.
	Name string
	// Trust lists AWS principal ARNs and OIDC sub values to remove from a
	// role's trust policy.
	Trust []string
	// KeepKeysInactive leaves a user's keys in place, inactive, as
	// evidence, instead of deleting them.
	KeepKeysInactive bool
	// IssuedBefore is the cutoff; zero means the endpoint's time once new
	// sessions are stopped.
	IssuedBefore time.Time
	// Lift removes the deny instead; Force lifts before the lift time.
	Lift, Force bool
	// Self allows revoking the principal the credentials belong to.
	Self bool
}

// flag is the flag naming the principal, for messages.
func (o Options) flag() string { return "--" + string(o.Kind) }

// Step is one call a revocation makes.
type Step struct {
	// Call is the API action, such as iam:UpdateAccessKey.
	Call string `json:"call"`
	// On is what the call changes, such as "alice AKIA… → Inactive".
	On string `json:"on"`
	// Done is set once the call succeeded.
	Done bool `json:"done"`
	// Note says what the step found or decided when it ran.
	Note string `json:"note,omitempty"`

	run func(ctx context.Context) (note string, err error)
}

// Report is what a revocation plans and did. It holds no secret.
type Report struct {
	Kind      Kind   `json:"kind"`
	Principal string `json:"principal"`
	// Caller is who the credentials belong to.
	Caller string `json:"caller"`
	// EndpointTime is the time the endpoint gave at the start.
	EndpointTime time.Time `json:"endpointTime"`
	Lift         bool      `json:"lift,omitempty"`
	// Cutoff is the time sessions issued before are refused: planned,
	// then as written. Zero when lifting.
	Cutoff time.Time `json:"cutoff,omitzero"`
	// CutoffAtApply says the cutoff is read from the endpoint when the
	// deny is put, after the steps that stop new sessions.
	CutoffAtApply bool `json:"cutoffAtApply,omitempty"`
	// PreviousCutoff is the cutoff of the deny found in place, if any.
	PreviousCutoff time.Time `json:"previousCutoff,omitzero"`
	// LongestSession is the longest a session of the principal issued
	// before the cutoff can last.
	LongestSession Seconds `json:"longestSessionSeconds"`
	// LiftAfter is the earliest time the deny may be lifted.
	LiftAfter time.Time `json:"liftAfter,omitzero"`
	// Trust is the role's trust policy after the --trust removals.
	Trust string `json:"trustAfter,omitempty"`
	// TrustOpen says, for each --trust value the trust policy still
	// admits, what admits it: the engine could not prove that no new
	// session can be issued to it.
	TrustOpen []string `json:"trustOpen,omitempty"`
	// Steps are the calls, in order.
	Steps []*Step `json:"steps"`
	// Notes are what a responder should know: what was found in place,
	// what a renewal also ends.
	Notes []string `json:"notes,omitempty"`
}

// Revocation is a planned revocation: Plan reads, Apply writes.
type Revocation struct {
	Report
	client *iamclient.Client
	opts   Options
	name   string
	// self is set when the principal is the caller's own (with --self).
	self bool
}

// Plan reads the principal and what is in place, checks the options
// against it, and returns the calls a revocation (or a lift) makes. It
// makes no write call.
func Plan(ctx context.Context, client *iamclient.Client, o Options) (*Revocation, error) {
	if o.Kind != User && o.Kind != Role {
		return nil, fmt.Errorf("revoke: unknown principal kind %q", o.Kind)
	}
	if len(o.Trust) > 0 && o.Kind != Role {
		return nil, &inputerr.Error{Source: "--trust", Msg: "removes principals from a role's trust policy; give --role NAME"}
	}
	if o.Lift && (len(o.Trust) > 0 || o.KeepKeysInactive || !o.IssuedBefore.IsZero()) {
		return nil, &inputerr.Error{Source: "--lift", Msg: "removes the deny only; drop --trust, --keep-keys-inactive and --issued-before"}
	}
	if o.Force && !o.Lift {
		return nil, &inputerr.Error{Source: "--force", Msg: "only lifts a deny before its lift time; use it with --lift"}
	}
	caller, now, err := client.CallerIdentityAt(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading who the credentials belong to: %w", err)
	}
	if now.IsZero() && (o.IssuedBefore.IsZero() || o.Lift) {
		return nil, &Refusal{Msg: "the endpoint's responses carry no Date header, so its time is unknown: give the cutoff with --issued-before TIME; a lift cannot be checked against its lift time"}
	}
	name, err := principalName(o, caller.Account)
	if err != nil {
		return nil, err
	}
	r := &Revocation{client: client, opts: o, name: name,
		Report: Report{Kind: o.Kind, Caller: caller.ARN, EndpointTime: now, Lift: o.Lift}}
	if kind, callerName, ok := iamclient.PrincipalName(caller.ARN); ok && Kind(kind) == o.Kind && callerName == name {
		r.self = true
	}
	if r.self && !o.Self {
		return nil, &Refusal{Msg: fmt.Sprintf("%s %s: the credentials in use belong to it (%s); revoking it ends this very access. Run with other credentials, or give --self to do it anyway",
			o.flag(), o.Name, caller.ARN)}
	}
	if !o.IssuedBefore.IsZero() {
		if !now.IsZero() && o.IssuedBefore.After(now) {
			return nil, &inputerr.Error{Source: "--issued-before", Msg: fmt.Sprintf("%s is in the future: the endpoint's time is %s; give a past time, or leave it out for now",
				o.IssuedBefore.UTC().Format(time.RFC3339), now.Format(time.RFC3339))}
		}
		r.Cutoff = o.IssuedBefore.UTC()
	}
	if o.Kind == User {
		err = r.planUser(ctx)
	} else {
		err = r.planRole(ctx)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// principalName is the name in o.Name, checking an ARN is of o's kind and
// of the credentials' account.
func principalName(o Options, account string) (string, error) {
	if o.Name == "" {
		return "", &inputerr.Error{Source: o.flag(), Msg: "give a name or an ARN"}
	}
	if !strings.HasPrefix(o.Name, "arn:") {
		if strings.Contains(o.Name, "/") {
			return "", &inputerr.Error{Source: o.flag(), Msg: fmt.Sprintf("%q is not a name; give the name alone or the full ARN", o.Name)}
		}
		return o.Name, nil
	}
	kind, name, ok := iamclient.PrincipalName(o.Name)
	if !ok || Kind(kind) != o.Kind || strings.Contains(o.Name, ":assumed-role/") {
		return "", &inputerr.Error{Source: o.flag(), Msg: fmt.Sprintf("%s is not an IAM %s ARN; give a name or arn:aws:iam::ACCOUNT:%s/NAME", o.Name, o.Kind, o.Kind)}
	}
	if got := strings.Split(o.Name, ":")[4]; got != account {
		return "", &inputerr.Error{Source: o.flag(), Msg: fmt.Sprintf("%s is in account %s, but the credentials are of account %s; use credentials of account %s",
			o.Name, got, account, got)}
	}
	return name, nil
}

// notFound makes IAM's NoSuchEntity for the principal bad input.
func (r *Revocation) notFound(err error) error {
	if iamclient.IsNotFound(err) {
		return &inputerr.Error{Source: r.opts.flag(), Msg: fmt.Sprintf("IAM has no %s %s in account of %s; check the name (IAM said: %v)", r.opts.Kind, r.opts.Name, r.Caller, err)}
	}
	return denied(err, "iam:Get"+titleKind(r.opts.Kind), r.opts.Name, r.Caller)
}

// checkARN refuses an ARN whose path is not the principal's.
func (r *Revocation) checkARN(arn string) error {
	if strings.HasPrefix(r.opts.Name, "arn:") && r.opts.Name != arn {
		return &inputerr.Error{Source: r.opts.flag(), Msg: fmt.Sprintf("%s: IAM's %s of that name is %s; give that ARN or the name", r.opts.Name, r.opts.Kind, arn)}
	}
	return nil
}

func titleKind(k Kind) string { return strings.ToUpper(string(k[:1])) + string(k[1:]) }

// add appends a step.
func (r *Revocation) add(call, on string, run func(ctx context.Context) (string, error)) {
	r.Steps = append(r.Steps, &Step{Call: call, On: on, run: run})
}

// Apply makes the planned calls in order, telling done of each as it
// completes. On an error the steps before it stay done; running the same
// revocation again finishes it.
func (r *Revocation) Apply(ctx context.Context, done func(*Step)) error {
	for _, s := range r.Steps {
		note, err := s.run(ctx)
		if err != nil {
			return err
		}
		s.Done, s.Note = true, note
		if done != nil {
			done(s)
		}
	}
	return nil
}

// Seconds is a duration written in JSON as whole seconds.
type Seconds time.Duration

// Duration is s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(s) }

func (s Seconds) String() string { return time.Duration(s).String() }

// MarshalJSON writes the whole seconds.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatInt(int64(time.Duration(s)/time.Second), 10)), nil
}

// UnmarshalJSON reads whole seconds.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("want whole seconds: %v", err)
	}
	*s = Seconds(time.Duration(n) * time.Second)
	return nil
}
