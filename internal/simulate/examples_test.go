package simulate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestExamples pins the decisions the README and `make demo` show.
func TestExamples(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"requests.json", []string{"Allowed", "Allowed", "Allowed", "ExplicitDeny", "ImplicitDeny"}},
		{"self-escalation.json", []string{"Allowed", "ExplicitDeny", "ExplicitDeny", "Allowed", "ImplicitDeny"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			cases := readExample(t, tt.file)
			out, err := Run(cases, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tt.want) {
				t.Fatalf("%d outcomes, want %d", len(out), len(tt.want))
			}
			for i, o := range out {
				if o.Decision != tt.want[i] {
					t.Errorf("[%d] %s on %s: %s, want %s (reasons %+v)", i, o.Action, o.Resource, o.Decision, tt.want[i], o.Reasons)
				}
			}
		})
	}
}

// TestExampleRequestsEmbedThePolicyFiles keeps the policies inside the
// request files equal to the policy files beside them, which the README
// uses with the flags.
func TestExampleRequestsEmbedThePolicyFiles(t *testing.T) {
	for _, file := range []string{"requests.json", "self-escalation.json"} {
		for i, c := range readExample(t, file) {
			docs := c.IdentityPolicies
			for _, level := range c.SCPs {
				docs = append(docs, level...)
			}
			for _, d := range docs {
				standalone, err := os.ReadFile(filepath.Join("..", "..", "examples", "simulate", d.Name+".json"))
				if err != nil {
					t.Fatalf("%s: [%d]: policy %q has no file beside it: %v", file, i, d.Name, err)
				}
				if !sameJSON(t, standalone, d.Document) {
					t.Errorf("%s: [%d]: policy %q differs from %s.json; copy the change into both", file, i, d.Name, d.Name)
				}
			}
		}
	}
}

func readExample(t *testing.T, file string) []Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "simulate", file))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ReadCases(data, file)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestDocsRequestExample keeps the request JSON that docs/simulate.md
// shows valid and allowed.
func TestDocsRequestExample(t *testing.T) {
	const page = "docs/simulate.md"
	text, err := os.ReadFile(filepath.Join("..", "..", page))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(text, []byte("## The request JSON"))
	if ok {
		_, rest, ok = bytes.Cut(rest, []byte("```json\n"))
	}
	var block []byte
	if ok {
		block, _, ok = bytes.Cut(rest, []byte("```"))
	}
	if !ok {
		t.Fatal(page + " has no ```json block under \"## The request JSON\"")
	}
	cases, err := ReadCases(block, page)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(cases, page)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Decision != "Allowed" {
		t.Errorf("%s request: %+v, want one Allowed outcome", page, out)
	}
}
