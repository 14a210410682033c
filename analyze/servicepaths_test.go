package analyze

import "testing"

func TestServicePathsAreThePassRolePaths(t *testing.T) {
	paths := ServicePaths()
	byID := map[string]ServicePath{}
	for _, p := range paths {
		byID[p.ID] = p
		if p.Service == "" || len(p.Steps) == 0 {
			t.Errorf("%s: service %q steps %v: every service path names its service and at least one step", p.ID, p.Service, p.Steps)
		}
		for _, st := range p.Steps {
			for _, a := range st {
				if a == "iam:PassRole" {
					t.Errorf("%s: iam:PassRole is implied, not a step", p.ID)
				}
			}
		}
	}
	ec2, ok := byID["LEASH-ESC-014"]
	if !ok || ec2.Service != "ec2.amazonaws.com" || len(ec2.Steps) != 1 || len(ec2.Steps[0]) != 3 {
		t.Fatalf("LEASH-ESC-014 = %+v, want ec2.amazonaws.com with one step of three actions", ec2)
	}
	if _, ok := byID["LEASH-ESC-001"]; ok {
		t.Error("LEASH-ESC-001 passes no role and is not a service path")
	}
}
