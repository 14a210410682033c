package cloudtrail

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// ManagedPolicyLimit is IAM's size limit of a managed policy, in characters
// without whitespace.
const ManagedPolicyLimit = 6144

// NoteKind says why an event left a note instead of (or beside) a grant.
type NoteKind string

// The kinds of notes Policy writes.
const (
	// NoteRefused: the call was denied; the caller did not have it.
	NoteRefused NoteKind = "refused"
	// NoteUnauthenticated: the request was rejected before authorization.
	NoteUnauthenticated NoteKind = "unauthenticated"
	// NoteUnknownAction: the catalog has no action for the event.
	NoteUnknownAction NoteKind = "unknown action"
	// NoteAnyResource: the action is granted on "*" because the event does
	// not tell its resources; narrow it by hand.
	NoteAnyResource NoteKind = "any resource"
	// NoteTooLarge: the policy is over IAM's managed policy limit.
	NoteTooLarge NoteKind = "too large"
)

// Note is something the policy does not say: a call left out, or a grant
// wider than the call. Calls that leave the same note count together.
type Note struct {
	Kind NoteKind `json:"kind"`
	// Action is the IAM action, or the event's source and name when the
	// catalog does not know it; empty for notes on the whole policy.
	Action string `json:"action,omitempty"`
	Text   string `json:"text"`
	// Calls is the number of events the note stands for.
	Calls int `json:"calls"`
}

func (n Note) String() string {
	s := n.Text
	if n.Calls > 1 {
		s += fmt.Sprintf(" (%d calls)", n.Calls)
	}
	return s
}

// Policy is the identity policy that allows exactly the calls the events
// record, for cutting a principal down to what it used: each call that
// passed authorization (whether or not it then failed, see eventOutcome)
// is granted its IAM action on the resources it named, in the catalog's ARN
// formats. Calls that were refused are not granted: the principal did not
// have them. The notes list what the policy leaves out or grants more
// widely than observed, in a stable order.
//
// Statements group one service's actions that were used on the same
// resources: sorted by service, then by their first action; actions and
// resources sorted within each. The policy is never widened to fit IAM's
// size limit; a note says when it is over.
func Policy(events []*audit.Event) (*policy.Document, []Note, error) {
	b := NewPolicyBuilder()
	for _, e := range events {
		b.Add(e)
	}
	return b.Policy()
}

// PolicyBuilder makes Policy's policy from events given one at a time, so
// that a trail of millions of calls is read once and only what it grants
// is kept: memory grows with the distinct grants, not with the calls.
type PolicyBuilder struct {
	cat    *catalog.Catalog
	grants map[string]map[string]bool // action -> resources
	uses   map[string]*useCount       // action -> how often and when last
	notes  *noteSet
	events int
}

// NewPolicyBuilder returns a builder with no events.
func NewPolicyBuilder() *PolicyBuilder {
	return &PolicyBuilder{cat: catalog.Default(), grants: map[string]map[string]bool{}, uses: map[string]*useCount{}, notes: newNoteSet()}
}

// Add records what one event proves. It keeps nothing of e.
func (b *PolicyBuilder) Add(e *audit.Event) {
	b.events++
	for _, g := range grantsOf(b.cat, e) {
		if g.note != "" {
			b.notes.add(g.kind, g.action, g.note)
		}
		if g.resources == nil {
			continue
		}
		if b.grants[g.action] == nil {
			b.grants[g.action] = map[string]bool{}
			b.uses[g.action] = &useCount{}
		}
		b.uses[g.action].add(e)
		for _, r := range g.resources {
			b.grants[g.action][r] = true
		}
	}
}

// Events is how many events were added.
func (b *PolicyBuilder) Events() int { return b.events }

// Policy is the policy of the events added so far, and its notes.
func (b *PolicyBuilder) Policy() (*policy.Document, []Note, error) {
	if len(b.grants) == 0 {
		return nil, b.notes.sorted(), ErrNothingGranted
	}
	doc := document(b.grants)
	size, err := Size(doc)
	if err != nil {
		return nil, nil, err
	}
	if size > ManagedPolicyLimit {
		b.notes.add(NoteTooLarge, "", fmt.Sprintf("the policy is %d characters, over IAM's limit of %d for a managed policy: split its statements across several managed policies (each statement is whole), it was not widened to fit",
			size, ManagedPolicyLimit))
	}
	return doc, b.notes.sorted(), nil
}

// ErrNothingGranted is Policy's error when no event passed authorization:
// IAM has no empty policy, and a principal that did nothing needs none.
var ErrNothingGranted = errors.New("no call in the events passed authorization, so there is nothing to grant; widen the window (--since, --until) or check the principal")

// grant is what one event proves: its action granted on resources (nil
// for none), and a note of the kind when the event is left out or the
// grant is wider than the call.
type grant struct {
	action    string
	resources []string
	kind      NoteKind
	note      string
}

// grantsOf is what one event proves: a grant for each permission its call
// needed (most calls need one).
func grantsOf(cat *catalog.Catalog, e *audit.Event) []grant {
	var params map[string]any
	if len(e.RequestParameters) > 0 {
		// A field that is not an object (null, or a value leash local
		// truncated) names nothing.
		_ = json.Unmarshal(e.RequestParameters, &params)
	}
	perms := permissionsOf(e, params)
	out := make([]grant, len(perms))
	for i, p := range perms {
		out[i] = grantOf(cat, e, p)
	}
	return out
}

func grantOf(cat *catalog.Catalog, e *audit.Event, p permission) grant {
	name := p.action
	a, known := cat.Action(name)
	if known {
		name = a.String()
	}
	switch eventOutcome(e) {
	case refused:
		on := ""
		if known {
			if rs, _ := resourcesOf(cat, a, p.values); rs != nil {
				on = " on " + strings.Join(rs, ", ")
			}
		}
		return grant{action: name, kind: NoteRefused,
			note: fmt.Sprintf("observed but refused: %s%s (%s): not granted", name, on, orNone(e.ErrorCode, e.Decision()))}
	case unauthenticated:
		return grant{action: name, kind: NoteUnauthenticated,
			note: fmt.Sprintf("rejected before authorization: %s (%s): proves nothing, not granted", name, e.ErrorCode)}
	}
	if !known {
		return grant{action: e.EventSource + " " + e.EventName, kind: NoteUnknownAction,
			note: fmt.Sprintf("no IAM action %s in the catalog for %s %s: not granted; add the permission the call needs by hand", name, e.EventSource, e.EventName)}
	}
	resources, why := resourcesOf(cat, a, p.values)
	if resources == nil {
		return grant{action: name, resources: []string{"*"}, kind: NoteAnyResource,
			note: fmt.Sprintf(`%s granted on "*": %s; narrow it by hand`, name, why)}
	}
	return grant{action: name, resources: resources}
}

// document groups the grants into statements: within a service, the
// actions used on the same set of resources share one statement, and "*"
// stands alone (it covers every other resource).
func document(grants map[string]map[string]bool) *policy.Document {
	type group struct {
		service   string
		actions   []string
		resources []string
	}
	byKey := map[string]*group{}
	for action, set := range grants {
		resources := slices.Sorted(func(yield func(string) bool) {
			for r := range set {
				if !yield(r) {
					return
				}
			}
		})
		if set["*"] {
			resources = []string{"*"}
		}
		service, _, _ := strings.Cut(action, ":")
		key := service + "\x00" + strings.Join(resources, "\x00")
		g := byKey[key]
		if g == nil {
			g = &group{service: service, resources: resources}
			byKey[key] = g
		}
		g.actions = append(g.actions, action)
	}
	groups := make([]*group, 0, len(byKey))
	for _, g := range byKey {
		slices.SortFunc(g.actions, CompareActions)
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		if c := strings.Compare(a.service, b.service); c != 0 {
			return c
		}
		return CompareActions(a.actions[0], b.actions[0])
	})
	doc := &policy.Document{Version: policy.Version2012}
	for _, g := range groups {
		doc.Statements = append(doc.Statements, policy.Statement{
			Sid: sid(g.actions[0]), Effect: policy.Allow, Action: g.actions, Resource: g.resources,
		})
	}
	return doc
}

// sid names a statement after its first action, such as "S3GetObject"
// for s3:GetObject: unique, since each action is in one statement, and
// readable; a Sid holds letters and digits only.
func sid(action string) string {
	var b strings.Builder
	upper := true
	for _, c := range action {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			if upper {
				b.WriteString(strings.ToUpper(string(c)))
			} else {
				b.WriteRune(c)
			}
			upper = false
		default:
			upper = true
		}
	}
	return b.String()
}

// CompareActions orders action names as policies leash writes list them:
// case-insensitively, then case-sensitively, so that the order is total.
func CompareActions(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// Size is the document's length as IAM measures it against its limits:
// its JSON without whitespace, as policy.Parse counts.
func Size(doc *policy.Document) (int, error) {
	data, err := doc.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("write policy: %w", err)
	}
	parsed, err := policy.Parse(data, policy.Identity)
	if err != nil {
		return 0, fmt.Errorf("generated policy does not parse: %w", err)
	}
	return parsed.Size, nil
}

func orNone(code, decision string) string {
	if code != "" {
		return code
	}
	return decision
}

// noteSet collects notes in order of first appearance, counting repeats.
type noteSet struct {
	list  []Note
	index map[string]int
}

func newNoteSet() *noteSet { return &noteSet{index: map[string]int{}} }

// noteOrder is the order of the kinds in Policy's notes: what was left
// out first, then what was granted more widely, then the whole policy.
var noteOrder = []NoteKind{NoteRefused, NoteUnauthenticated, NoteUnknownAction, NoteAnyResource, NoteTooLarge}

// sorted returns the notes by kind, then by text.
func (s *noteSet) sorted() []Note {
	out := slices.Clone(s.list)
	slices.SortStableFunc(out, func(a, b Note) int {
		if c := slices.Index(noteOrder, a.Kind) - slices.Index(noteOrder, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	})
	return out
}

func (s *noteSet) add(kind NoteKind, action, text string) {
	key := string(kind) + "\x00" + text
	if i, ok := s.index[key]; ok {
		s.list[i].Calls++
		return
	}
	s.index[key] = len(s.list)
	s.list = append(s.list, Note{Kind: kind, Action: action, Text: text, Calls: 1})
}
