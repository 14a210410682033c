package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// sarifDoc is the part of SARIF 2.1.0 that code scanning requires, to read
// WriteSARIF's output back.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID  string `json:"ruleId"`
			Level   string `json:"level"`
			Message struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
				LogicalLocations []struct {
					FullyQualifiedName string `json:"fullyQualifiedName"`
				} `json:"logicalLocations"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// TestWriteSARIF pins what code scanning needs of check's SARIF: the
// schema and version, one rule for each finding ID with a level, and each
// result located at the line of its JSON path in the file, given relative
// to the current folder.
func TestWriteSARIF(t *testing.T) {
	t.Chdir(t.TempDir()) // code scanning wants paths relative to the repository
	ci := writeFile(t, "policies/ci.json", `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "Describe",
      "Effect": "Allow",
      "Action": "ec2:Describe*",
      "Resource": "*"
    },
    {
      "Sid": "Roles",
      "Effect": "Allow",
      "Action": [
        "iam:GetRole",
        "iam:PutRolePolicy"
      ],
      "Resource": "arn:aws:iam::*:role/ci-*"
    }
  ]
}
`)
	// A single statement without an array is Statement[0] in the findings.
	single := writeFile(t, "policies/single.json", `{"Version": "2012-10-17",
"Statement": {"Effect": "Allow", "Action": "iam:CreateUser", "Resource": "*"}}`)
	// The findings leash check makes of the folder, with --principal and
	// --must-deny iam:CreateUser.
	cat := catalog.Default()
	var identity []policy.Named
	sources := map[string]string{}
	for _, file := range []string{ci, single} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		identity = append(identity, policy.Named{Name: file, Document: docOf(t, policy.Identity, string(data))})
		sources[file] = file
	}
	const principal = "arn:aws:iam::123456789012:role/ci-deploy"
	findings := Review(identity, principal, cat)
	a, err := ParseAssertion(cat, "--must-deny", "iam:CreateUser", false)
	if err != nil {
		t.Fatal(err)
	}
	af, err := CheckAssertions(identity, nil, principal, []Assertion{a}, cat)
	if err != nil {
		t.Fatal(err)
	}
	findings = append(findings, af...)
	var b bytes.Buffer
	if err := WriteSARIF(&b, findings, sources); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var log sarifDoc
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("$schema %q, version %q, %d runs", log.Schema, log.Version, len(log.Runs))
	}
	d := log.Runs[0].Tool.Driver
	if d.Name != "leash" || !strings.HasPrefix(d.InformationURI, "https://") {
		t.Errorf("driver %q %q", d.Name, d.InformationURI)
	}
	levels := map[string]bool{"error": true, "warning": true, "note": true}
	rules := map[string]bool{}
	for _, r := range d.Rules {
		if r.ID == "" || r.ShortDescription.Text == "" || !levels[r.DefaultConfiguration.Level] || rules[r.ID] {
			t.Errorf("rule %+v: want an ID once, a description and a level", r)
		}
		rules[r.ID] = true
	}
	// Each finding's line is where its JSON path starts in the file.
	startLines := map[string]int{"policies/ci.json Statement[1]": 10, "policies/ci.json Statement[1].Action[1]": 16,
		"policies/single.json Statement[0]": 2}
	located := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		if !rules[r.RuleID] || !levels[r.Level] || r.Message.Text == "" || len(r.Locations) != 1 {
			t.Errorf("result %+v: want a known rule, a level, a message and a location", r)
			continue
		}
		loc := r.Locations[0]
		uri, line := loc.PhysicalLocation.ArtifactLocation.URI, loc.PhysicalLocation.Region.StartLine
		if uri != "policies/ci.json" && uri != "policies/single.json" {
			t.Errorf("%s: uri %q, want the file relative to the current folder", r.RuleID, uri)
		}
		if len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].FullyQualifiedName == "" {
			t.Errorf("%s: logical locations %+v, want the JSON path", r.RuleID, loc.LogicalLocations)
			continue
		}
		key := uri + " " + loc.LogicalLocations[0].FullyQualifiedName
		if want, ok := startLines[key]; ok {
			located[key] = true
			if line != want {
				t.Errorf("%s at %s: startLine %d, want %d", r.RuleID, key, line, want)
			}
		} else if line < 1 {
			t.Errorf("%s at %s: startLine %d", r.RuleID, key, line)
		}
	}
	for _, want := range []string{"LEASH-ESC-SELF", "LEASH-ASSERT-DENY"} {
		if !rules[want] {
			t.Errorf("no rule %s in %v", want, rules)
		}
	}
	if !located["policies/ci.json Statement[1]"] || !located["policies/single.json Statement[0]"] {
		t.Errorf("findings on the role statement and the single statement expected, got %v\n%s", located, out)
	}
}

// writeFile writes a file under the current folder and returns its path.
func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestArtifactURI(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	outside := filepath.Join(filepath.Dir(dir), "elsewhere.json")
	tests := []struct{ name, src, want string }{
		{"a file under the current folder is relative, with forward slashes", filepath.Join(dir, "policies", "ci.json"), "policies/ci.json"},
		{"a relative path stays relative", "policies/ci.json", "policies/ci.json"},
		{"a file outside the current folder is a file: URI", outside, "file://" + filepath.ToSlash(outside)},
		{"an IAM ARN is kept as it is", "arn:aws:iam::123456789012:policy/ci", "arn:aws:iam::123456789012:policy/ci"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := artifactURI(tt.src); got != tt.want {
				t.Errorf("artifactURI(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// TestWriteSARIFWithoutSources is check workload's use: findings without
// files are located by their path alone.
func TestWriteSARIFWithoutSources(t *testing.T) {
	var b bytes.Buffer
	fs := []Finding{{ID: "LEASH-WL-001", Severity: High, Policy: "ns/pod", Path: "spec.hostNetwork", Message: "m"}}
	if err := WriteSARIF(&b, fs, nil); err != nil {
		t.Fatal(err)
	}
	var log sarifDoc
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0].Results
	if len(r) != 1 || len(r[0].Locations) != 1 || r[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "" ||
		r[0].Locations[0].LogicalLocations[0].FullyQualifiedName != "spec.hostNetwork" || r[0].Level != "error" {
		t.Errorf("got %+v, want one error located by its path alone", r)
	}
}

// TestWriteSARIFLocatesRequestEntries: a finding in a CredentialsRequest
// manifest is at the line of the statement entry (or the action, resource or
// condition) its path names, in the request's own document of the file, not
// on line 1.
func TestWriteSARIFLocatesRequestEntries(t *testing.T) {
	t.Chdir(t.TempDir())
	file := writeFile(t, "requests/ccm.yaml", `apiVersion: v1
kind: ServiceAccount
metadata:
  name: ccm
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: ccm
  namespace: kube-system
spec:
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - effect: Allow
      action: ["ec2:Describe*"]
      resource: "*"
    - effect: Allow
      action:
      - ec2:CreateTags
      - iam:PassRole
      resource: "*"
      policyCondition:
        StringEquals:
          aws:RequestedRegion: eu-west-1
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: tagger
spec:
  providerSpec:
    statementEntries:
    - effect: Allow
      action: ["ec2:CreateTags"]
      resource: "*"
`)
	ccm, tagger := file+"#kube-system/ccm", file+"#default/tagger"
	findings := []Finding{
		{ID: "A", Severity: High, Policy: ccm, Path: "Statement[1]"},
		{ID: "A", Severity: High, Policy: ccm, Path: "Statement[1].Action[1]"},
		{ID: "A", Severity: High, Policy: ccm, Path: "Statement[1].Resource"},
		{ID: "A", Severity: High, Policy: ccm, Path: "Statement[1].Condition.StringEquals.aws:RequestedRegion"},
		{ID: "A", Severity: High, Policy: ccm, Path: "Statement[0].NotAction"}, // not in the manifest: its entry
		{ID: "A", Severity: High, Policy: ccm},                                 // no path: the request's first line
		{ID: "A", Severity: High, Policy: tagger, Path: "Statement[0].Action[0]"},
	}
	want := []int{19, 22, 23, 26, 16, 6, 36}
	var b bytes.Buffer
	if err := WriteSARIF(&b, findings, map[string]string{ccm: file, tagger: file}); err != nil {
		t.Fatal(err)
	}
	var log sarifDoc
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for i, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "requests/ccm.yaml" || loc.Region.StartLine != want[i] {
			t.Errorf("%s %s: %s line %d, want requests/ccm.yaml line %d", findings[i].Policy, findings[i].Path,
				loc.ArtifactLocation.URI, loc.Region.StartLine, want[i])
		}
	}
}
