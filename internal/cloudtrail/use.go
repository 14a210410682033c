package cloudtrail

import (
	"slices"
	"strings"
	"time"

	"leash.dev/leash/localaws/audit"
)

// Use is what a trail shows of one IAM action a principal exercised: the
// calls that passed authorization, the last of them, and the resources
// they named in the catalog's ARN formats ("*" for calls whose records do
// not tell their resource).
type Use struct {
	Action    string   `json:"action"`
	Resources []string `json:"resources"`
	// Regions are the regions the calls were made in (CloudTrail's
	// awsRegion), which a policy tests as aws:RequestedRegion.
	Regions  []string  `json:"regions,omitempty"`
	Calls    int       `json:"calls"`
	LastUsed time.Time `json:"lastUsed"`
}

// useCount is a Use being counted.
type useCount struct {
	calls   int
	last    time.Time
	regions []string
}

func (u *useCount) add(e *audit.Event) {
	u.calls++
	if e.EventTime.After(u.last) {
		u.last = e.EventTime
	}
	if e.AWSRegion != "" && !slices.Contains(u.regions, e.AWSRegion) {
		u.regions = append(u.regions, e.AWSRegion)
	}
}

// Uses is every action the events added so far exercised, by action name.
// Calls that were refused or never authenticated are not uses: they are
// among Policy's notes.
func (b *PolicyBuilder) Uses() []Use {
	out := make([]Use, 0, len(b.grants))
	for action, set := range b.grants {
		u := b.uses[action]
		rs := make([]string, 0, len(set))
		for r := range set {
			rs = append(rs, r)
		}
		slices.Sort(rs)
		out = append(out, Use{Action: action, Resources: rs, Regions: slices.Sorted(slices.Values(u.regions)), Calls: u.calls, LastUsed: u.last.UTC()})
	}
	slices.SortFunc(out, func(a, b Use) int { return CompareActions(a.Action, b.Action) })
	return out
}

// Notes is what the events added so far leave out or grant more widely
// than observed, as Policy gives them.
func (b *PolicyBuilder) Notes() []Note { return b.notes.sorted() }

// unescape undoes literal: the resource a call named, from the pattern
// that grants that resource alone.
var unescape = strings.NewReplacer("${$}", "$", "${*}", "*", "${?}", "?")

// CalledResource is the resource a call named, from one of a Use's
// Resources (a pattern, where "*", "?" and "$" of the name are written
// ${*}, ${?} and ${$}): what the engine is asked about.
func CalledResource(pattern string) string {
	if pattern == "*" {
		return pattern
	}
	return unescape.Replace(pattern)
}
