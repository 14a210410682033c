package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNextRequestSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "next.yaml")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dir, configMap, err string
	}{
		{"neither flag leaves the check off", "", "", ""},
		{"a folder and a ConfigMap may both be given", dir, "leash-system/next", ""},
		{"a folder that does not exist is refused naming the flag", filepath.Join(dir, "missing"), "", "--next-requests " + filepath.Join(dir, "missing")},
		{"a file is refused: the flag takes its folder", file, "", "not a folder"},
		{"a ConfigMap without its namespace is refused with an example", "", "next", "--next-requests-configmap \"next\": give namespace/name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := nextRequestSources(tt.dir, tt.configMap)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v; want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Enabled() != (tt.dir != "" || tt.configMap != "") || s.Dir != tt.dir || (tt.configMap != "" && s.ConfigMap.String() != tt.configMap) {
				t.Errorf("sources %+v from %q and %q", s, tt.dir, tt.configMap)
			}
		})
	}
}
