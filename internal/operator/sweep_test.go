package operator

import (
	"slices"
	"testing"
	"time"

	"leash.dev/leash/internal/iamclient"
)

// TestSweep pins which users the sweep deletes: this cluster's users whose
// request is gone, once older than the grace; never another cluster's.
func TestSweep(t *testing.T) {
	tests := []struct {
		name  string
		grace time.Duration
		// want names what is deleted: "gone" for the user of the deleted
		// request (split across managed policies), "orphan" and "orphan-2"
		// for parts of a managed policy without a user.
		want []string
	}{
		{"the user of a deleted request with every part of its policy, and unattached parts, are deleted; live and other clusters' users stay", 0, []string{"gone", "orphan", "orphan-2"}},
		{"users and policies younger than the grace are spared", time.Hour, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			gone := mintRequest(t, "gone", splitEntries()...)
			live := mintRequest(t, "live", allow("*", "iam:ListUsers"))
			e.ready(t, gone)
			e.ready(t, live)
			other := mintRequest(t, "theirs", allow("*", "iam:ListUsers"))
			otherCluster := e.provisioner(t, Config{ClusterName: "other"})
			if out, err := e.sync(t, otherCluster, other); err != nil || !out.Provisioned {
				t.Fatalf("mint in the other cluster: %v, %+v", err, out.Failure)
			}
			orphan, err := e.admin.CreatePolicy(e.ctx, userPath("unit"), "unit-apps-crashed-aaaaaaaa-policy",
				`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`)
			if err != nil {
				t.Fatal(err)
			}
			orphan2, err := e.admin.CreatePolicy(e.ctx, userPath("unit"), "unit-apps-crashed-aaaaaaaa-policy-2",
				`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListPolicies","Resource":"*"}]}`)
			if err != nil {
				t.Fatal(err)
			}
			// Under this cluster's path but tagged for another cluster: not
			// this cluster's to judge.
			foreign, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: "unit-apps-foreign-aaaaaaaa", Path: userPath("unit"),
				Tags: map[string]string{TagCluster: "other", TagRequestUID: "uid-foreign", TagRequest: "apps/foreign"}})
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{
				"foreign":  foreign.Name,
				"gone":     userName("unit", "apps", "gone", string(gone.UID)),
				"live":     userName("unit", "apps", "live", string(live.UID)),
				"other":    userName("other", "apps", "theirs", string(other.UID)),
				"orphan":   orphan,
				"orphan-2": orphan2,
			}

			deleted, err := e.p.Sweep(e.ctx, map[string]bool{string(live.UID): true}, tt.grace, "")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, names[w])
			}
			if !slices.Equal(deleted, want) {
				t.Errorf("deleted %v, want %v", deleted, want)
			}
			for _, who := range []string{"gone", "live", "other", "foreign"} {
				_, err := e.admin.GetUser(e.ctx, names[who])
				if wantGone := slices.Contains(tt.want, who); wantGone != iamclient.IsNotFound(err) {
					t.Errorf("user %s (%s): %v; want deleted %v", names[who], who, err, wantGone)
				}
			}
			for _, who := range []string{"orphan", "orphan-2"} {
				_, err = e.admin.ManagedPolicyDocument(e.ctx, names[who])
				if wantGone := slices.Contains(tt.want, who); wantGone != iamclient.IsNotFound(err) {
					t.Errorf("policy %s: %v; want deleted %v", names[who], err, wantGone)
				}
			}
			goneParts := 0
			policies, err := e.admin.ListPolicies(e.ctx, "/leash/")
			if err != nil {
				t.Fatal(err)
			}
			for _, pol := range policies {
				if user, _ := partUser(pol.Name); user == names["gone"] {
					goneParts++
				}
			}
			if wantParts := map[bool]int{true: 0, false: 2}[slices.Contains(tt.want, "gone")]; goneParts != wantParts {
				t.Errorf("%d managed policies of %s left, want %d", goneParts, names["gone"], wantParts)
			}
			// The other cluster's key still works as its user.
			e.actsAs(t, e.publishedKey(t, other), "arn:aws:iam::"+e.account+":user/leash/other/"+names["other"])
		})
	}
}
