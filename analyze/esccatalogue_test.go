package analyze

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEscalationCatalogueShipped pins what the analysis reads from the
// shipped file: forty-two paths in ID order, every action of every path typed,
// and the self-widening actions of roles and users.
func TestEscalationCatalogueShipped(t *testing.T) {
	c, err := parseCatalogue(escalationPathsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.paths) != 42 || c.paths[0].id != "LEASH-ESC-001" || c.paths[41].id != "LEASH-ESC-042" {
		t.Fatalf("paths: %d, want LEASH-ESC-001 to LEASH-ESC-042", len(c.paths))
	}
	if k := c.actionKinds["iam:passrole"]; k != resRole {
		t.Errorf("iam:PassRole is authorized against %+v, want the role type", k)
	}
	if k := c.actionKinds["autoscaling:createlaunchconfiguration"]; k.sample != escFiller+":launchConfigurationName/"+escFiller {
		t.Errorf("launch configuration sample = %q: each * of the file's sample stands for %q", k.sample, escFiller)
	}
	if len(c.roleSelf) != 5 || len(c.userSelf) != 7 {
		t.Errorf("self actions: role %d, user %d, want 5 and 7", len(c.roleSelf), len(c.userSelf))
	}
}

// TestEscalationCatalogueRejects edits the shipped file one mistake at a
// time: each is refused with a message naming the entry and the field.
func TestEscalationCatalogueRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(f map[string]any)
		want string
	}{
		{"an unknown field is refused", func(f map[string]any) { catPath(f, 0)["severity"] = "high" }, `unknown field "severity"`},
		{"IDs run in order with no gap", func(f map[string]any) { catPath(f, 1)["id"] = "LEASH-ESC-003" }, `paths[1] ("LEASH-ESC-003"): id should be LEASH-ESC-002`},
		{"every path says its fix", func(f map[string]any) { catPath(f, 0)["fix"] = "" }, `paths[0] ("LEASH-ESC-001"): effect and fix`},
		{"a path's action has a resource type", func(f map[string]any) { catStep(f, 0, 0)["anyOf"] = []any{"iam:NoSuchAction"} },
			`steps[0]: action iam:NoSuchAction has no resource type`},
		{"a step lists at least one action", func(f map[string]any) { catStep(f, 0, 0)["anyOf"] = []any{} }, `steps[0].anyOf is empty`},
		{"an optional step says why the path is open without it", func(f map[string]any) { delete(catStep(f, 12, 1), "missing") },
			`paths[12] ("LEASH-ESC-013"): steps[1]: an optional step`},
		{"the pivot is a required step", func(f map[string]any) { catPath(f, 12)["pivot"] = 1 }, `pivot 1 is not a required step`},
		{"the pivot is a step of the path", func(f map[string]any) { catPath(f, 0)["pivot"] = 3 }, `pivot 3 is not a required step`},
		{"a PassRole path names the service", func(f map[string]any) { delete(catPath(f, 13), "passTo") },
			`paths[13] ("LEASH-ESC-014"): a path with an iam:PassRole step`},
		{"only a PassRole path names a service", func(f map[string]any) { catPath(f, 0)["passTo"] = "ec2.amazonaws.com" },
			`paths[0] ("LEASH-ESC-001"): a path with an iam:PassRole step`},
		{"an action has one resource type", func(f map[string]any) {
			k := catKinds(f)[1].(map[string]any)
			k["actions"] = append(k["actions"].([]any), "iam:PassRole")
		}, `action iam:PassRole is listed under another type too`},
		{"the types the analysis names are present", func(f map[string]any) { catKinds(f)[2].(map[string]any)["name"] = "groups" },
			`no type named "group"`},
		{"a typed resource builds ARNs", func(f map[string]any) { delete(catKinds(f)[0].(map[string]any), "prefix") },
			`resourceKinds[0] ("role"): service and prefix`},
		{"a self action's severity is a severity name", func(f map[string]any) {
			f["selfActions"].(map[string]any)["role"].([]any)[0].(map[string]any)["severity"] = "severe"
		}, `selfActions.role[0] (iam:PutRolePolicy): severity "severe"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f map[string]any
			if err := json.Unmarshal(escalationPathsJSON, &f); err != nil {
				t.Fatal(err)
			}
			tc.edit(f)
			b, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = parseCatalogue(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func catKinds(f map[string]any) []any { return f["resourceKinds"].([]any) }

func catPath(f map[string]any, i int) map[string]any { return f["paths"].([]any)[i].(map[string]any) }

func catStep(f map[string]any, p, s int) map[string]any {
	return catPath(f, p)["steps"].([]any)[s].(map[string]any)
}
