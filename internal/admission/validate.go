package admission

import (
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/workload"
)

// idNodeRole is the metadata profile's node role finding, whose fix the
// webhook words for the operator's flag.
const idNodeRole = "LEASH-WL-011"

// Verdict is what validation says of a pod: the findings that refuse it,
// and the ones it is admitted with as warnings.
type Verdict struct {
	Refuse, Warn []analyze.Finding
}

// Judge checks a pod that receives a leash credential with
// workload.CheckPod, the checks of leash check workload, and splits the
// findings at refuseAt. A pod that receives none has no verdict: admission
// leaves it alone.
func Judge(s *workload.Set, p workload.Pod, refuseAt analyze.Severity) Verdict {
	var v Verdict
	if !workload.ReceivesLeash(s, p) {
		return v
	}
	for _, f := range workload.CheckPod(s, p) {
		if f.ID == idNodeRole && len(s.NodeRole) == 0 {
			f.Fix = "give the operator the node role's policies (leash operator --node-role-policy FILE), or remove the metadata profile"
		}
		if f.Severity >= refuseAt {
			v.Refuse = append(v.Refuse, f)
		} else {
			v.Warn = append(v.Warn, f)
		}
	}
	return v
}

// Added is the verdict of an update: what v refuses that was did not have
// (the same finding, at the same place, saying the same) still refuses;
// what the stored pod already had is a warning.
func (v Verdict) Added(was Verdict) Verdict {
	type key struct{ id, path, msg string }
	had := map[key]bool{}
	for _, f := range append(append([]analyze.Finding{}, was.Refuse...), was.Warn...) {
		had[key{f.ID, f.Path, f.Message}] = true
	}
	out := Verdict{Warn: v.Warn}
	for _, f := range v.Refuse {
		if had[key{f.ID, f.Path, f.Message}] {
			out.Warn = append(out.Warn, f)
		} else {
			out.Refuse = append(out.Refuse, f)
		}
	}
	return out
}

// Lines are the findings as admission reports them: each one's ID,
// message and fix, one a line.
func Lines(findings []analyze.Finding) []string {
	out := make([]string, 0, len(findings))
	for _, f := range findings {
		out = append(out, f.ID+" ("+f.Severity.String()+"): "+f.Message+"; fix: "+f.Fix)
	}
	return out
}

// refusal is the message of a refused pod.
func refusal(findings []analyze.Finding) string {
	return "leash refuses the pod, which receives AWS credentials:\n" + strings.Join(Lines(findings), "\n")
}
