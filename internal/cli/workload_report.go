package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/termsafe"
)

// workloadSummary is the JSON summary of leash check workload: it counts
// pods as pods and names those skipped because no credentials reach them.
type workloadSummary struct {
	Pods       int            `json:"pods"`
	Skipped    []string       `json:"skipped"`
	Findings   int            `json:"findings"`
	BySeverity map[string]int `json:"bySeverity"`
	FailOn     string         `json:"failOn"`
	Failing    int            `json:"failing"`
}

func writeWorkloadJSON(w io.Writer, findings []analyze.Finding, sum analyze.Summary, skipped []string) error {
	if findings == nil {
		findings = []analyze.Finding{}
	}
	if skipped == nil {
		skipped = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Findings []analyze.Finding `json:"findings"`
		Summary  workloadSummary   `json:"summary"`
	}{findings, workloadSummary{Pods: sum.Policies, Skipped: skipped, Findings: sum.Findings,
		BySeverity: sum.BySeverity, FailOn: sum.FailOn, Failing: sum.Failing}})
}

// writeSkipped names, after the text report, the pods no credentials reach.
func writeSkipped(w io.Writer, skipped []string) error {
	if len(skipped) == 0 {
		return nil
	}
	noun := "pods that receive"
	if len(skipped) == 1 {
		noun = "pod that receives"
	}
	names := make([]string, len(skipped))
	for i, s := range skipped {
		names[i] = termsafe.Escape(s) // a manifest's file and pod name
	}
	_, err := fmt.Fprintf(w, "skipped %d %s no AWS credentials:\n  %s\n", len(skipped), noun, strings.Join(names, "\n  "))
	return err
}
