package analyze

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SARIF 2.1.0, the subset code scanning reads: the tool and its rules, and
// results with a level, a message and a location.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     sarifText          `json:"shortDescription"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	// Properties carry GitHub's security-severity, a score from 0 to 10
	// by which code scanning ranks the alerts of rules tagged security.
	Properties *sarifRuleProperties `json:"properties,omitempty"`
}

type sarifRuleProperties struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

// sarifLevel maps a severity to SARIF's levels.
func sarifLevel(s Severity) string {
	switch {
	case s >= High:
		return "error"
	case s == Medium:
		return "warning"
	}
	return "note"
}

// securitySeverity is GitHub's score for a severity: critical above 9.0,
// high from 7.0, medium from 4.0, low below.
func securitySeverity(s Severity) string {
	return [...]string{"0.0", "2.0", "5.0", "8.0", "9.5"}[s]
}

// ruleDescription says what the findings of a rule are about, from the
// family its ID names.
func ruleDescription(id string) string {
	families := []struct{ prefix, text string }{
		{"LEASH-ESC-SELF-GUARD", "A Deny statement keeps the principal from widening its own permissions"},
		{"LEASH-ESC-SELF", "The principal can widen its own permissions"},
		{"LEASH-ESC-ATTACH-GUARD", "An iam:PolicyARN condition keeps an Attach*Policy grant from attaching a policy that grants everything"},
		{"LEASH-ESC-", "Privilege-escalation path"},
		{"LEASH-LP-", "Grant wider than a workload needs"},
		{"LEASH-TRUST-", "The trust policy lets more principals assume the role than intended"},
		{"LEASH-ONLY-", "An action outside the --only set is granted"},
		{"LEASH-ASSERT-ALLOW", "A --must-allow assertion fails: the action is not allowed"},
		{"LEASH-ASSERT-DENY", "A --must-deny assertion fails: the action is allowed"},
		{"LEASH-VAL-", "The policy names an action, resource or condition key AWS does not know, or an element that can never match"},
	}
	for _, f := range families {
		if strings.HasPrefix(id, f.prefix) {
			return f.text
		}
	}
	return "leash finding " + id
}

// WriteSARIF writes the findings as one SARIF run. sources maps a policy's
// name to its file (or an IAM ARN); a file is given relative to the current
// folder, as code scanning expects paths relative to the repository, and
// located at the line of the finding's JSON path; in a CredentialsRequest
// manifest, at the line of the statement entry the path names.
func WriteSARIF(w io.Writer, findings []Finding, sources map[string]string) error {
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "leash", InformationURI: "https://leash.dev", Rules: []sarifRule{}}},
		Results: []sarifResult{},
	}
	ruleIndex := map[string]int{}
	ruleSeverity := map[string]Severity{}
	lines := map[string]*jsonLines{}
	requests := map[string]map[string]*jsonLines{}
	for _, f := range findings {
		i, ok := ruleIndex[f.ID]
		if !ok {
			i = len(run.Tool.Driver.Rules)
			ruleIndex[f.ID] = i
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: f.ID,
				ShortDescription: sarifText{Text: ruleDescription(f.ID)}})
		}
		// A rule's default is its most severe finding; each result has its own level.
		if sev, seen := ruleSeverity[f.ID]; !seen || f.Severity > sev {
			ruleSeverity[f.ID] = f.Severity
			rule := &run.Tool.Driver.Rules[i]
			rule.DefaultConfiguration.Level = sarifLevel(f.Severity)
			rule.Properties = &sarifRuleProperties{Tags: []string{"security"}, SecuritySeverity: securitySeverity(f.Severity)}
		}

		text := f.Message
		if f.Fix != "" {
			text += "; fix: " + f.Fix
		}
		r := sarifResult{RuleID: f.ID, RuleIndex: i, Level: sarifLevel(f.Severity), Message: sarifText{Text: text}}
		var loc sarifLocation
		if src, ok := sources[f.Policy]; ok {
			line := 1
			switch ext := strings.ToLower(filepath.Ext(src)); ext {
			case ".json":
				if lines[src] == nil {
					lines[src] = readJSONLines(src)
				}
				line = lines[src].line(f.Path)
			case ".yaml", ".yml":
				if requests[src] == nil {
					requests[src] = readRequestLines(src)
				}
				_, request, _ := strings.Cut(f.Policy, "#") // a request's policy is named file#namespace/name
				if l := requests[src][request]; l != nil {
					line = l.line(f.Path)
				}
			}
			loc.PhysicalLocation = &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: artifactURI(src)}, Region: sarifRegion{StartLine: line}}
		}
		if f.Path != "" {
			loc.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: f.Path}}
		}
		if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
			r.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// artifactURI is a file's path relative to the current folder, with forward
// slashes; a file outside it is given as a file: URI, and an ARN as it is.
func artifactURI(src string) string {
	if strings.HasPrefix(src, "arn:") {
		return src
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return filepath.ToSlash(src)
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return "file://" + filepath.ToSlash(abs)
}

// jsonLines knows the line each element of a JSON document starts on, by
// its JSON path (Statement[2].Action[0]).
type jsonLines struct {
	at map[string]int
	// fallback is the line of a path not found: the file's first, or a
	// request's first in a manifest of several.
	fallback int
}

// readJSONLines reads a file's element lines; a file that cannot be read
// has none, and every path is then on line 1.
func readJSONLines(path string) *jsonLines {
	l := &jsonLines{at: map[string]int{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return l
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	// start is where the next value begins: after the last token, its
	// separators and white space.
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return 1 + bytes.Count(data[:off], []byte{'\n'})
	}
	// walk records the value that starts next under each of its paths. An
	// element written without an array, such as a single statement, is
	// also found as its first item: Statement[0] when Statement is an
	// object, as the policy's own paths name it.
	var walk func(paths []string) error
	walk = func(paths []string) error {
		line := start()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != json.Delim('[') {
			for _, p := range paths {
				if p != "" && !strings.HasSuffix(p, "]") {
					paths = append(paths, p+"[0]")
				}
			}
		}
		for _, p := range paths {
			if p != "" {
				l.at[p] = line
			}
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := key.(string)
				children := make([]string, len(paths))
				for i, p := range paths {
					children[i] = k
					if p != "" {
						children[i] = p + "." + k
					}
				}
				if err := walk(children); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				children := make([]string, len(paths))
				for j, p := range paths {
					children[j] = p + "[" + strconv.Itoa(i) + "]"
				}
				if err := walk(children); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	_ = walk([]string{""}) // a file that stops parsing keeps the lines read so far
	return l
}

// line is the line of path, or of the nearest element that holds it.
func (l *jsonLines) line(path string) int {
	for ; path != ""; path = parentPath(path) {
		if n, ok := l.at[path]; ok {
			return n
		}
	}
	return max(l.fallback, 1)
}

// parentPath drops the last element of a JSON path: Statement[2].Action[0]
// becomes Statement[2].Action, then Statement[2], then Statement.
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}
