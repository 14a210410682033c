package analyze

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/policy"
)

// Conditions Escalation decides instead of taking them to hold.
//
// A path's requests are known in part: iam:PassRole passes the role to the
// path's service, an Attach*Policy path is dangerous when it can attach a
// policy granting everything, and an Auto Scaling group path names a launch
// configuration (autoscaling:LaunchConfigurationName), whose instance role
// its instances run with. The keys whose value the path fixes are kept in
// the compiled statements and set in each request (decidedKeys);
// the engine then decides them as AWS would, including for requests that
// lack the key.
//
// Dates are decided against the analysis clock: a statement whose date
// condition holds neither now nor later can never apply and opens no path;
// one that holds only later is reported with a note saying so, as it will
// open the path when its date comes.

// decidedKey reports whether Escalation sets the condition key in its
// requests.
func decidedKey(key string) bool {
	return strings.EqualFold(key, "iam:PassedToService") || strings.EqualFold(key, "iam:PolicyARN") ||
		strings.EqualFold(key, launchConfigurationKey)
}

// launchConfigurationKey names the launch configuration an Auto Scaling
// group request uses. A Deny of the group actions when it is present (Null
// false) is how an account requires launch templates, for which AWS asks
// iam:PassRole.
const launchConfigurationKey = "autoscaling:LaunchConfigurationName"

// launchConfigurationActions are the actions authorized with
// autoscaling:LaunchConfigurationName when a launch configuration is named.
var launchConfigurationActions = map[string]bool{
	"autoscaling:createautoscalinggroup": true,
	"autoscaling:updateautoscalinggroup": true,
}

// decidedValues is the key the request of action sets and the values it is
// asked with, the action allowed when any is; "" when the action sets none.
func (a *escAnalyzer) decidedValues(action string) (string, []string) {
	switch la := strings.ToLower(action); {
	case attachPolicyActions[la]:
		return "iam:PolicyARN", a.dangerousPolicyARNs()
	case launchConfigurationActions[la]:
		return launchConfigurationKey, a.launchConfigurationNames()
	}
	return "", nil
}

// launchConfigurationNames are the launch configurations a group path is
// asked with: one no policy names, then each the set's Allow statements
// name in a condition on the key (a grant for one named launch
// configuration still lets its role be taken over).
func (a *escAnalyzer) launchConfigurationNames() []string {
	names := []string{escFiller}
	for _, n := range a.set.Policies {
		if n.Document == nil {
			continue
		}
		for _, st := range n.Document.Statements {
			if st.Effect != policy.Allow {
				continue
			}
			for _, c := range st.Conditions {
				if !strings.EqualFold(c.Key, launchConfigurationKey) || !strings.Contains(c.Operator, "String") || strings.Contains(c.Operator, "Not") {
					continue
				}
				for _, v := range c.Values {
					names = appendNew(names, strings.NewReplacer("*", escFiller, "?", "x").Replace(v))
				}
			}
		}
	}
	return names
}

// splitDecided separates the conditions on decided keys from the others.
func splitDecided(conds []policy.Condition) (decided, others []policy.Condition) {
	for _, c := range conds {
		if decidedKey(c.Key) {
			decided = append(decided, c)
		} else {
			others = append(others, c)
		}
	}
	return decided, others
}

// attachPolicyActions are the actions authorized with iam:PolicyARN naming
// the managed policy to attach.
var attachPolicyActions = map[string]bool{
	"iam:attachuserpolicy":  true,
	"iam:attachgrouppolicy": true,
	"iam:attachrolepolicy":  true,
}

// dangerousPolicyARNs are the policies an Attach*Policy path is asked
// about: AWS's AdministratorAccess, and a customer managed policy of the
// account, which the principal may have written (or may write) to grant
// anything. A condition on iam:PolicyARN that allows neither leaves the
// path closed.
func (a *escAnalyzer) dangerousPolicyARNs() []string {
	return []string{
		"arn:" + a.partition + ":iam::aws:policy/AdministratorAccess",
		"arn:" + a.partition + ":iam::" + a.account + ":policy/" + escFiller,
	}
}

// longestSession is the longest a temporary credential lives: a session
// from sts:GetSessionToken for an IAM user, 36 hours. A token issued
// earlier than now minus this is no longer valid anywhere.
const longestSession = 36 * time.Hour

// dateKeys are the global condition keys holding a time. aws:CurrentTime
// and aws:EpochTime are the request's time; aws:TokenIssueTime is when the
// caller's session was issued, at most longestSession before now.
var dateKeys = map[string]bool{
	"aws:currenttime":    true,
	"aws:epochtime":      true,
	"aws:tokenissuetime": true,
}

// liveness says when a statement's date conditions let it apply.
type liveness int

const (
	liveNow   liveness = iota // they hold now (or it has none)
	liveLater                 // they do not hold now, but will
	liveNever                 // they will never hold again
)

// dateLiveness decides the statement's conditions on dates, each through
// the engine with the key set to the instants that matter: now (and, for
// aws:TokenIssueTime, the oldest issue time still valid now) and a time far
// ahead. A condition the engine cannot compile is taken to hold, as any
// other condition is.
func dateLiveness(conds []policy.Condition, now time.Time) (liveness, []policy.Condition) {
	state := liveNow
	var pending []policy.Condition
	for _, c := range conds {
		key := strings.ToLower(c.Key)
		if !dateKeys[key] {
			continue
		}
		var nowProbes []time.Time
		if key == "aws:tokenissuetime" {
			// The zero time asks without the key, as a long-term access
			// key's request comes: ...IfExists holds there.
			nowProbes = []time.Time{now.Add(-longestSession), now, {}}
		} else {
			nowProbes = []time.Time{now}
		}
		holds := func(t time.Time) bool { return conditionHolds(c, t) }
		switch {
		case anyTime(nowProbes, holds):
		case holds(now.AddDate(100, 0, 0)):
			if state == liveNow {
				state = liveLater
			}
			pending = append(pending, c)
		default:
			return liveNever, nil
		}
	}
	return state, pending
}

func anyTime(ts []time.Time, f func(time.Time) bool) bool {
	for _, t := range ts {
		if f(t) {
			return true
		}
	}
	return false
}

// conditionHolds asks the engine whether one date condition holds with its
// key set to t (absent for the zero time): aws:EpochTime as seconds since
// the epoch, the others as ISO 8601 times.
func conditionHolds(c policy.Condition, t time.Time) bool {
	st := policy.Statement{Effect: policy.Allow, Action: []string{"*"}, Resource: []string{"*"}, Conditions: []policy.Condition{c}}
	doc := &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{st}}
	p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "date", Document: doc}}})
	if err != nil {
		return true
	}
	r := &policy.Request{Action: "sts:GetCallerIdentity", Resource: "*"}
	value := t.UTC().Format(time.RFC3339)
	if strings.EqualFold(c.Key, "aws:EpochTime") {
		value = strconv.FormatInt(t.Unix(), 10)
	}
	if !t.IsZero() {
		r.Context.Set(c.Key, value)
	}
	return p.Decide(r) == policy.Allowed
}

// attachPaths are the paths an iam:PolicyARN condition can close, by the
// action each needs.
var attachPaths = []struct{ id, action string }{
	{"LEASH-ESC-003", "iam:AttachUserPolicy"},
	{"LEASH-ESC-004", "iam:AttachGroupPolicy"},
	{"LEASH-ESC-005", "iam:AttachRolePolicy"},
}

// policyARNGuards reports, as info LEASH-ESC-ATTACH-GUARD, each Allow of an
// Attach*Policy action whose iam:PolicyARN condition keeps its path closed
// (no finding of the path names the statement), with the policies it lets
// be attached, so that a reviewer sees what the condition allows.
func (a *escAnalyzer) policyARNGuards(reported []Finding) []Finding {
	open := map[string]bool{}
	for _, f := range reported {
		open[f.ID+" "+f.Policy+" "+f.Path] = true
	}
	var out []Finding
	for pi, n := range a.set.Policies {
		if n.Document == nil {
			continue
		}
		for si, st := range n.Document.Statements {
			if st.Effect != policy.Allow {
				continue
			}
			var values []string
			for _, c := range st.Conditions {
				if strings.EqualFold(c.Key, "iam:PolicyARN") {
					values = append(values, c.Operator+" "+strings.Join(c.Values, ", "))
				}
			}
			if len(values) == 0 {
				continue
			}
			path := fmt.Sprintf("Statement[%d]", si)
			var actions []string
			for _, ap := range attachPaths {
				if stmtCoversAction(st, ap.action) && !open[ap.id+" "+n.Name+" "+path] {
					actions = append(actions, ap.action)
				}
			}
			if len(actions) == 0 {
				continue
			}
			out = append(out, Finding{
				ID: "LEASH-ESC-ATTACH-GUARD", Severity: Info, Policy: n.Name, Path: path,
				Message: fmt.Sprintf("%s allows %s only for the managed policies its iam:PolicyARN condition names (%s): neither AdministratorAccess nor a customer managed policy can be attached, so no escalation path is open",
					a.stmtLabel(stmtID{pi, si}), strings.Join(actions, ", "), strings.Join(values, "; ")),
				Fix: "none needed; keep the condition's list to policies no broader than the principal may give",
			})
		}
	}
	return out
}
