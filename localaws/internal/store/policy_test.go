package store_test

import (
	"context"
	"reflect"
	"regexp"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

func TestManagedPolicyVersions(t *testing.T) {
	s, c := openStore(t)
	const arn = "arn:aws:iam::123456789012:policy/team/readers"
	var created store.ManagedPolicy
	update(t, s, func(tx *store.Tx) error {
		var err error
		created, err = tx.CreatePolicy(store.ManagedPolicy{Name: "readers", Path: "/team/", Description: "read", Tags: store.Tags{{"a", "b"}}}, "v1 doc")
		return err
	})
	if created.ARN != arn || created.DefaultVersionID != "v1" || !regexp.MustCompile(`^ANPA[A-Z0-9]{17}$`).MatchString(created.PolicyID) {
		t.Errorf("created = %+v", created)
	}
	c.Advance(1e9)
	update(t, s, func(tx *store.Tx) error {
		for i, d := range []string{"v2 doc", "v3 doc", "v4 doc", "v5 doc"} {
			v, err := tx.CreatePolicyVersion(arn, d, i == 1)
			if err != nil {
				return err
			}
			if want := "v" + string(rune('2'+i)); v.VersionID != want {
				t.Errorf("version ID = %s, want %s", v.VersionID, want)
			}
		}
		_, err := tx.CreatePolicyVersion(arn, "v6 doc", false)
		wantCode(t, err, store.LimitExceeded)
		return nil
	})
	view(t, s, func(tx *store.Tx) error {
		p, err := tx.GetPolicy(arn)
		if err != nil {
			return err
		}
		if p.DefaultVersionID != "v3" || !p.UpdateDate.Equal(c.Now()) || p.CreateDate.Equal(p.UpdateDate) {
			t.Errorf("after setting v3 as default: %+v", p)
		}
		d, err := tx.PolicyDocument(arn)
		if d != "v3 doc" {
			t.Errorf("PolicyDocument = %q, want the default version's", d)
		}
		versions, err2 := tx.ListPolicyVersions(arn)
		var ids []string
		for _, v := range versions {
			if v.IsDefaultVersion {
				ids = append(ids, v.VersionID+"*")
			} else {
				ids = append(ids, v.VersionID)
			}
		}
		if want := []string{"v5", "v4", "v3*", "v2", "v1"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("versions = %v, want %v", ids, want)
		}
		if err == nil {
			err = err2
		}
		return err
	})
	update(t, s, func(tx *store.Tx) error {
		wantCode(t, tx.DeletePolicyVersion(arn, "v3"), store.DeleteConflict)
		wantCode(t, tx.DeletePolicyVersion(arn, "v9"), store.NoSuchEntity)
		if err := tx.DeletePolicyVersion(arn, "v5"); err != nil {
			return err
		}
		// IAM never reuses a version ID.
		v, err := tx.CreatePolicyVersion(arn, "v6 doc", false)
		if v.VersionID != "v6" {
			t.Errorf("version after deleting v5 = %s, want v6", v.VersionID)
		}
		if err != nil {
			return err
		}
		_, err = tx.SetDefaultPolicyVersion(arn, "v9")
		wantCode(t, err, store.NoSuchEntity)
		return ignore(tx.SetDefaultPolicyVersion(arn, "v6"))
	})
	view(t, s, func(tx *store.Tx) error {
		v, err := tx.GetPolicyVersion(arn, "v6")
		if v.Document != "v6 doc" || !v.IsDefaultVersion {
			t.Errorf("v6 = %+v", v)
		}
		return err
	})
}

func TestDeletePolicyListsWhatBlocksIt(t *testing.T) {
	s, _ := openStore(t)
	const arn = "arn:aws:iam::123456789012:policy/mp"
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc); err != nil {
			return err
		}
		if _, err := tx.CreatePolicyVersion(arn, doc, false); err != nil {
			return err
		}
		if _, err := tx.CreateUser(store.User{Name: "u", Permissions: store.Permissions{PermissionsBoundary: arn}}); err != nil {
			return err
		}
		return ignore(tx.AttachUserPolicy("u", arn))
	})
	steps := []struct {
		name    string
		want    []store.Blocker
		message string
		remove  func(tx *store.Tx) error
	}{
		{"attachment, boundary use and versions block", []store.Blocker{store.BlockerAttachments, store.BlockerBoundaryUse, store.BlockerPolicyVersions},
			"Cannot delete a policy attached to entities.",
			func(tx *store.Tx) error { return ignore(tx.DetachUserPolicy("u", arn)) }},
		{"boundary use and versions block", []store.Blocker{store.BlockerBoundaryUse, store.BlockerPolicyVersions},
			"Cannot delete a policy used as a permissions boundary.",
			func(tx *store.Tx) error { return ignore(tx.DeleteUserPermissionsBoundary("u")) }},
		{"versions block", []store.Blocker{store.BlockerPolicyVersions},
			"This policy has more than one version. Before you delete a policy, you must delete the policy's versions. The default version is deleted with the policy.",
			func(tx *store.Tx) error { return tx.DeletePolicyVersion(arn, "v2") }},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			e := wantCode(t, s.Update(context.Background(), func(tx *store.Tx) error { return tx.DeletePolicy(arn) }), store.DeleteConflict)
			if !reflect.DeepEqual(e.Blockers, step.want) || e.Message != step.message {
				t.Errorf("refusal = %+v, want %v, %q", e, step.want, step.message)
			}
			update(t, s, step.remove)
		})
	}
	update(t, s, func(tx *store.Tx) error { return tx.DeletePolicy(arn) })
	// The name is free again, and the old versions are gone with it.
	update(t, s, func(tx *store.Tx) error {
		p, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, "new")
		if err != nil {
			return err
		}
		versions, err := tx.ListPolicyVersions(p.ARN)
		if len(versions) != 1 || versions[0].Document != "new" {
			t.Errorf("versions of the re-created policy = %+v", versions)
		}
		return err
	})
}

func TestPolicyTags(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		p, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc)
		if err != nil {
			return err
		}
		if _, err := tx.Tag(store.TaggedPolicy, p.ARN, store.Tags{{"a", "1"}, {"b", "2"}}); err != nil {
			return err
		}
		// A policy's tag keys are case sensitive (IAM User Guide, "Tagging
		// IAM resources": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating):
		// untagging A leaves a, untagging a removes it.
		if _, err := tx.Untag(store.TaggedPolicy, p.ARN, []string{"A"}); err != nil {
			return err
		}
		if p, err = tx.GetPolicy(p.ARN); err != nil || !reflect.DeepEqual(p.Tags, store.Tags{{"a", "1"}, {"b", "2"}}) {
			t.Errorf("tags after untagging A = %v, %v; want a=1 and b=2", p.Tags, err)
		}
		if _, err := tx.Untag(store.TaggedPolicy, p.ARN, []string{"a"}); err != nil {
			return err
		}
		p, err = tx.GetPolicy(p.ARN)
		if !reflect.DeepEqual(p.Tags, store.Tags{{"b", "2"}}) {
			t.Errorf("tags = %v", p.Tags)
		}
		return err
	})
}
