package store_test

import (
	"context"
	"reflect"
	"regexp"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

const trust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

func TestRoleRoundTrip(t *testing.T) {
	s, _ := openStore(t)
	var created store.Role
	update(t, s, func(tx *store.Tx) error {
		var err error
		created, err = tx.CreateRole(store.Role{Name: "Deployer", Path: "/ci/", AssumeRolePolicyDocument: trust, Description: "deploys", Tags: store.Tags{{"team", "ci"}}})
		if err != nil {
			return err
		}
		if _, err := tx.PutRolePolicy("deployer", "inline", doc); err != nil {
			return err
		}
		return ignore(tx.AttachRolePolicy("deployer", "arn:aws:iam::aws:policy/ReadOnlyAccess"))
	})
	if created.MaxSessionDuration != 3600 {
		t.Errorf("default MaxSessionDuration = %d, want 3600", created.MaxSessionDuration)
	}
	if created.ARN != "arn:aws:iam::123456789012:role/ci/Deployer" || !regexp.MustCompile(`^AROA[A-Z0-9]{17}$`).MatchString(created.RoleID) {
		t.Errorf("ARN, ID = %s, %s", created.ARN, created.RoleID)
	}
	want := created
	want.InlinePolicies = []store.InlinePolicy{{"inline", doc}}
	want.AttachedPolicies = []string{"arn:aws:iam::aws:policy/ReadOnlyAccess"}
	view(t, s, func(tx *store.Tx) error {
		got, err := tx.GetRole("DEPLOYER")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetRole =\n%+v\nwant\n%+v", got, want)
		}
		return err
	})

	description := "deploys things"
	update(t, s, func(tx *store.Tx) error {
		r, err := tx.UpdateRole("deployer", store.RoleUpdate{Description: &description, MaxSessionDuration: 7200})
		if r.Description != description || r.MaxSessionDuration != 7200 {
			t.Errorf("after UpdateRole: %+v", r)
		}
		if err != nil {
			return err
		}
		r, err = tx.UpdateRole("deployer", store.RoleUpdate{})
		if r.Description != description || r.MaxSessionDuration != 7200 {
			t.Errorf("an empty RoleUpdate changed the role: %+v", r)
		}
		if err != nil {
			return err
		}
		r, err = tx.UpdateAssumeRolePolicy("deployer", doc)
		if r.AssumeRolePolicyDocument != doc {
			t.Error("trust policy not replaced")
		}
		return err
	})
}

func TestDeleteRoleListsWhatBlocksIt(t *testing.T) {
	s, _ := openStore(t)
	const mp = "arn:aws:iam::123456789012:policy/mp"
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc); err != nil {
			return err
		}
		if _, err := tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		if _, err := tx.PutRolePolicy("r", "p", doc); err != nil {
			return err
		}
		if _, err := tx.AttachRolePolicy("r", mp); err != nil {
			return err
		}
		return ignore(tx.PutRolePermissionsBoundary("r", mp))
	})
	err := s.Update(context.Background(), func(tx *store.Tx) error { return tx.DeleteRole("r") })
	e := wantCode(t, err, store.DeleteConflict)
	if want := []store.Blocker{store.BlockerInlinePolicies, store.BlockerAttachedPolicies}; !reflect.DeepEqual(e.Blockers, want) {
		t.Errorf("blockers = %v, want %v", e.Blockers, want)
	}
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.DeleteRolePolicy("r", "p"); err != nil {
			return err
		}
		if _, err := tx.DetachRolePolicy("r", mp); err != nil {
			return err
		}
		blockers, err := tx.RoleBlockers("r")
		if len(blockers) != 0 {
			t.Errorf("blockers after removing them = %v", blockers)
		}
		if err != nil {
			return err
		}
		return tx.DeleteRole("r")
	})
	view(t, s, func(tx *store.Tx) error {
		p, err := tx.GetPolicy(mp)
		if p.AttachmentCount != 0 || p.PermissionsBoundaryUsageCount != 0 {
			t.Errorf("counts after the role went: %+v", p)
		}
		return err
	})
}

func TestAttachingCountsAndIsBounded(t *testing.T) {
	s, _ := openStore(t)
	const mp = "arn:aws:iam::123456789012:policy/mp"
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc); err != nil {
			return err
		}
		if _, err := tx.CreateUser(store.User{Name: "u"}); err != nil {
			return err
		}
		if _, err := tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		for range 2 { // attaching twice is one attachment, as in IAM
			if _, err := tx.AttachUserPolicy("u", mp); err != nil {
				return err
			}
		}
		return ignore(tx.AttachRolePolicy("r", mp))
	})
	view(t, s, func(tx *store.Tx) error {
		p, err := tx.GetPolicy(mp)
		if p.AttachmentCount != 2 {
			t.Errorf("AttachmentCount = %d, want 2", p.AttachmentCount)
		}
		entities, err2 := tx.ListEntitiesForPolicy(mp)
		if want := (store.PolicyEntities{UserNames: []string{"u"}, RoleNames: []string{"r"}}); !reflect.DeepEqual(entities, want) {
			t.Errorf("ListEntitiesForPolicy = %+v, want %+v", entities, want)
		}
		attached, err3 := tx.ListPolicies(store.PolicyFilter{OnlyAttached: true}, store.Page{})
		if len(attached.Items) != 1 {
			t.Errorf("ListPolicies(OnlyAttached) = %d policies, want 1", len(attached.Items))
		}
		if err == nil {
			err = err2
		}
		if err == nil {
			err = err3
		}
		return err
	})
	tests := []struct {
		name string
		op   func(tx *store.Tx) error
		code store.Code
	}{
		{"attaching a policy that does not exist", func(tx *store.Tx) error {
			return ignore(tx.AttachUserPolicy("u", "arn:aws:iam::123456789012:policy/nope"))
		}, store.NoSuchEntity},
		{"attaching a policy by an ARN with the wrong path", func(tx *store.Tx) error {
			return ignore(tx.AttachUserPolicy("u", "arn:aws:iam::123456789012:policy/other/mp"))
		}, store.NoSuchEntity},
		{"attaching something that is not a policy ARN", func(tx *store.Tx) error {
			return ignore(tx.AttachUserPolicy("u", "ReadOnlyAccess"))
		}, store.InvalidInput},
		{"detaching a policy that is not attached", func(tx *store.Tx) error {
			return ignore(tx.DetachUserPolicy("u", "arn:aws:iam::aws:policy/ReadOnlyAccess"))
		}, store.NoSuchEntity},
		{"attaching an AWS managed policy that is not in AWS's set", func(tx *store.Tx) error {
			return ignore(tx.AttachUserPolicy("u", "arn:aws:iam::aws:policy/NoSuchPolicy"))
		}, store.NoSuchEntity},
		{"attaching an AWS managed policy by an ARN with the wrong path", func(tx *store.Tx) error {
			return ignore(tx.AttachUserPolicy("u", "arn:aws:iam::aws:policy/service-role/ReadOnlyAccess"))
		}, store.NoSuchEntity},
		{"setting an AWS managed policy that is not in AWS's set as a boundary", func(tx *store.Tx) error {
			return ignore(tx.PutRolePermissionsBoundary("r", "arn:aws:iam::aws:policy/NoSuchPolicy"))
		}, store.NoSuchEntity},
		{"attaching an 11th policy", func(tx *store.Tx) error {
			for _, name := range []string{"ReadOnlyAccess", "AdministratorAccess", "IAMFullAccess", "IAMReadOnlyAccess", "AmazonS3ReadOnlyAccess",
				"AmazonS3FullAccess", "AmazonEC2ReadOnlyAccess", "AmazonEC2FullAccess", "PowerUserAccess", "SecurityAudit"} {
				if _, err := tx.AttachRolePolicy("r", "arn:aws:iam::aws:policy/"+name); err != nil {
					return err
				}
			}
			return nil
		}, store.LimitExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, s.Update(context.Background(), tt.op), tt.code) })
	}
}

// TestTrustPolicyHasItsOwnQuota pins IAM's ACLSizePerRole: a trust policy
// may have 2,048 characters (white space aside), fewer than the role's
// inline policies may.
func TestTrustPolicyHasItsOwnQuota(t *testing.T) {
	s, _ := openStore(t)
	sized := func(n int) string {
		head := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"`
		tail := `"},"Action":"sts:AssumeRole"}]}`
		return head + repeat("a", n-len(head)-len(tail)) + tail + "\n\n    "
	}
	update(t, s, func(tx *store.Tx) error {
		return ignore(tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: sized(2048)}))
	})
	for name, op := range map[string]func(*store.Tx) error{
		"CreateRole": func(tx *store.Tx) error {
			return ignore(tx.CreateRole(store.Role{Name: "r2", AssumeRolePolicyDocument: sized(2049)}))
		},
		"UpdateAssumeRolePolicy": func(tx *store.Tx) error { return ignore(tx.UpdateAssumeRolePolicy("r", sized(2049))) },
	} {
		e := wantCode(t, s.Update(context.Background(), op), store.LimitExceeded)
		if e.Message != "Cannot exceed quota for ACLSizePerRole: 2048" {
			t.Errorf("%s: message %q", name, e.Message)
		}
	}
}
