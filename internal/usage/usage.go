// Package usage sets what a CredentialsRequest's principal did against what
// the request grants: for each of its statements, the actions used (with
// their calls, last use and resources) and those never used; and the
// narrower request made of what was used, proven with the engine to decide
// every observed call as the request does and to refuse every unused action.
//
// The calls come from any trail leash audit reads, as cloudtrail.Uses; the
// questions are the engine's, so a statement "covers" a call exactly when
// IAM would match it (case-insensitive actions, case-sensitive resources,
// policy variables resolved for the principal).
package usage

import (
	"fmt"
	"slices"
	"strings"
	"time"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Report is what one request's principal used of what the request grants.
type Report struct {
	// Request is NAMESPACE/NAME.
	Request   string `json:"request"`
	Principal string `json:"principal"`
	// Since and Until bound the trail read; zero when unbounded.
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	// Statements are the request's statementEntries, in order.
	Statements []Statement `json:"statements"`
	// Outside are actions the principal used that no Allow statement of
	// the request covers: granted by another policy, such as the
	// iam:GetUser on itself that leash adds to a minted user's.
	Outside []cloudtrail.Use `json:"outside,omitempty"`
	// Notes are the trail's calls left out (refused calls widen nothing)
	// and uses whose resource the records do not tell.
	Notes []cloudtrail.Note `json:"notes,omitempty"`
}

// Statement is one statementEntry and what was used of it.
type Statement struct {
	Index    int      `json:"index"`
	Effect   string   `json:"effect"`
	Resource string   `json:"resource"`
	Actions  []Action `json:"actions"`
}

// Action is one action of a statement as written, and the actions it
// matches that were used on resources the statement names. A Deny
// statement's actions list no uses: a deny is never narrowed.
type Action struct {
	Written string           `json:"action"`
	Used    []cloudtrail.Use `json:"used"`
	// Matches is how many of the catalog's actions Written matches (1 for
	// an action named in full).
	Matches int `json:"matches"`
}

// Unused lists the actions of the request's Allow statements, as written,
// that matched no use.
func (r *Report) Unused() []string {
	var out []string
	for _, s := range r.Statements {
		if s.Effect != string(policy.Allow) {
			continue
		}
		for _, a := range s.Actions {
			if len(a.Used) == 0 {
				out = append(out, a.Written)
			}
		}
	}
	return out
}

// UsedActions lists the distinct actions the request's Allow statements
// saw used, in the catalog's spelling.
func (r *Report) UsedActions() []string {
	var out []string
	for _, s := range r.Statements {
		for _, a := range s.Actions {
			for _, u := range a.Used {
				if !slices.Contains(out, u.Action) {
					out = append(out, u.Action)
				}
			}
		}
	}
	slices.SortFunc(out, cloudtrail.CompareActions)
	return out
}

// LastUsed is the last use of any action the request covers; zero if none.
func (r *Report) LastUsed() time.Time {
	var last time.Time
	for _, s := range r.Statements {
		for _, a := range s.Actions {
			for _, u := range a.Used {
				if u.LastUsed.After(last) {
					last = u.LastUsed
				}
			}
		}
	}
	return last
}

// Build sets the uses of principal against the request's statements:
// entries are its statementEntries and doc their policy, statement i of it
// from entry i, as leash reads a request (operator.RequestedPolicy).
func Build(request, principal string, entries []leashv1.StatementEntry, doc *policy.Document, uses []cloudtrail.Use, notes []cloudtrail.Note) (*Report, error) {
	if len(doc.Statements) < len(entries) {
		return nil, fmt.Errorf("request %s: %d statements read from %d statementEntries", request, len(doc.Statements), len(entries))
	}
	r := &Report{Request: request, Principal: principal, Notes: notes}
	cat := catalog.Default()
	covered := make([]map[string]bool, len(uses)) // use -> resources some Allow statement covers
	for i := range covered {
		covered[i] = map[string]bool{}
	}
	for i, e := range entries {
		st := Statement{Index: i, Effect: e.Effect, Resource: e.Resource}
		for _, written := range e.Action {
			a := Action{Written: written, Matches: len(cat.Expand(written))}
			if e.Effect == string(policy.Allow) {
				one := newAsker(fmt.Sprintf("statement %d", i), oneStatement(doc, i, written))
				for ui, u := range uses {
					if !policy.MatchAction(written, u.Action) {
						continue // the cheap question first
					}
					rs, err := coveredResources(one, written, principal, u)
					if err != nil {
						return nil, err
					}
					if len(rs) > 0 {
						a.Used = append(a.Used, cloudtrail.Use{Action: u.Action, Resources: rs, Regions: u.Regions, Calls: u.Calls, LastUsed: u.LastUsed})
						for _, res := range rs {
							covered[ui][res] = true
						}
					}
				}
			}
			st.Actions = append(st.Actions, a)
		}
		r.Statements = append(r.Statements, st)
	}
	for i, u := range uses {
		if needsNoPermission[strings.ToLower(u.Action)] {
			continue
		}
		var rest []string
		for _, res := range u.Resources {
			if !covered[i][res] {
				rest = append(rest, res)
			}
		}
		if len(rest) > 0 {
			u.Resources = rest
			r.Outside = append(r.Outside, u)
		}
	}
	return r, nil
}

// needsNoPermission are the actions any principal may call whatever its
// policies say, so their use is no grant's: sts:GetCallerIdentity ("No
// permissions are required to perform this operation", STS API Reference,
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html),
// which leash itself calls to prove a new key works.
var needsNoPermission = map[string]bool{"sts:getcalleridentity": true}

// oneStatement is statement i of doc with only the action written, as an
// Allow without its conditions: the question "does the statement name this
// call", which the trail can answer; whether its conditions held, the
// trail cannot.
func oneStatement(doc *policy.Document, i int, action string) *policy.Document {
	s := doc.Statements[i]
	s.Action, s.Conditions, s.Effect = []string{action}, nil, policy.Allow
	return &policy.Document{Version: doc.Version, Statements: []policy.Statement{s}}
}

// coveredResources are the resources of u that the compiled statement
// allows to principal. A use on "*" (a call whose record does not tell its
// resource) is covered by a statement naming the action on any resource.
func coveredResources(one *asker, written, principal string, u cloudtrail.Use) ([]string, error) {
	var out []string
	for _, res := range u.Resources {
		if res == "*" {
			if policy.MatchAction(written, u.Action) {
				out = append(out, res)
			}
			continue
		}
		d, err := one.decide(principal, u.Action, cloudtrail.CalledResource(res), "")
		if err != nil {
			return nil, err
		}
		if d == policy.Allowed {
			out = append(out, res)
		}
	}
	return out, nil
}
