package policy_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/reference"
)

// TestReference checks the engine against the reference cases in
// testdata/reference: requests written by hand from the AWS IAM User Guide,
// each with the decision the guide documents. test/peer runs the same cases
// against a second engine.
func TestReference(t *testing.T) {
	cases, err := reference.Load(filepath.Join("testdata", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c := &cases[i]
		topic := strings.TrimSuffix(filepath.Base(c.File), ".json")
		t.Run(topic+"/"+c.Name, func(t *testing.T) {
			got, err := c.Decide()
			switch {
			case err != nil:
				t.Errorf("%s: case %q: leash rejects the case: %v", c.File, c.Name, err)
			case got != c.Expect:
				var compact bytes.Buffer
				_ = json.Compact(&compact, c.JSON)
				t.Errorf("%s: case %q: leash answers %s; AWS documents %s\ncase: %s", c.File, c.Name, got, c.Expect, compact.String())
			}
		})
	}
	t.Logf("%d reference cases", len(cases))
}
