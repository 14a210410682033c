package operator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestGuardrailSourcesLoad pins how the guardrails are read as a whole:
// the ConfigMap's keys over the ceiling file over the flags,
// namespaceActions as YAML or JSON, the namespace list comma-separated.
func TestGuardrailSourcesLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ceiling.json")
	const fromFile = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*","Resource":"*"}]}`
	if err := os.WriteFile(file, []byte(fromFile), 0o600); err != nil {
		t.Fatal(err)
	}
	s := GuardrailSources{Flags: Guardrails{RefuseEscalation: "critical", EscalationNamespaces: []string{"flags"}}, CeilingFile: file,
		ConfigMap: types.NamespacedName{Namespace: "leash-system", Name: "leash-config"}}
	g, err := s.Load(map[string]string{
		"ceiling":              `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`,
		"namespaceActions":     "team-a: [\"s3:*\", \"ec2:Describe*\"]\nteam-b:\n  - sqs:*\n",
		"refuseEscalation":     "high",
		"escalationNamespaces": "platform, ops",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.Ceiling, "s3:*") || g.RefuseEscalation != "high" || !slices.Equal(g.EscalationNamespaces, []string{"platform", "ops"}) ||
		!slices.Equal(g.NamespaceActions["team-a"], []string{"s3:*", "ec2:Describe*"}) || !slices.Equal(g.NamespaceActions["team-b"], []string{"sqs:*"}) {
		t.Errorf("the ConfigMap's keys over the file and flags: read %+v", g)
	}
	if g, err = s.Load(nil); err != nil || g.Ceiling != fromFile || g.RefuseEscalation != "critical" || !slices.Equal(g.EscalationNamespaces, []string{"flags"}) {
		t.Errorf("without the ConfigMap: read %+v, %v; want the file's ceiling and the flags", g, err)
	}
	_, err = s.Load(map[string]string{"namespaceActions": "- s3:*"})
	if err == nil || !strings.Contains(err.Error(), "ConfigMap leash-system/leash-config: namespaceActions is not a map") {
		t.Errorf("a list for namespaceActions: %v, want it refused naming the ConfigMap and the key", err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, err = s.Load(nil); err == nil || !strings.HasPrefix(err.Error(), "--ceiling: ") {
		t.Errorf("a ceiling file gone: %v, want it refused naming --ceiling", err)
	}
}
