package store_test

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

const doc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`

func TestUserRoundTrip(t *testing.T) {
	s, c := openStore(t)
	var created store.User
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "boundary"}, doc); err != nil {
			return err
		}
		var err error
		created, err = tx.CreateUser(store.User{
			Name:        "Alice",
			Path:        "/team/",
			Tags:        store.Tags{{"owner", "ops"}, {"env", "dev"}},
			Permissions: store.Permissions{PermissionsBoundary: "arn:aws:iam::123456789012:policy/boundary"},
		})
		if err != nil {
			return err
		}
		if _, err := tx.PutUserPolicy("alice", "read", doc); err != nil {
			return err
		}
		if _, err := tx.AttachUserPolicy("alice", "arn:aws:iam::aws:policy/ReadOnlyAccess"); err != nil {
			return err
		}
		return ignore(tx.CreateLoginProfile("alice", true))
	})
	if created.ARN != "arn:aws:iam::123456789012:user/team/Alice" {
		t.Errorf("ARN = %s", created.ARN)
	}
	if !regexp.MustCompile(`^AIDA[A-Z0-9]{17}$`).MatchString(created.UserID) {
		t.Errorf("UserID = %s", created.UserID)
	}
	if !created.CreateDate.Equal(c.Now()) {
		t.Errorf("CreateDate = %v, want the clock's %v", created.CreateDate, c.Now())
	}
	want := created
	want.InlinePolicies = []store.InlinePolicy{{Name: "read", Document: doc}}
	want.AttachedPolicies = []string{"arn:aws:iam::aws:policy/ReadOnlyAccess"}
	want.LoginProfile = &store.LoginProfile{CreateDate: c.Now(), PasswordResetRequired: true}
	view(t, s, func(tx *store.Tx) error {
		got, err := tx.GetUser("ALICE")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetUser =\n%+v\nwant\n%+v", got, want)
		}
		return nil
	})
}

func TestNamesAreUniqueRegardlessOfCase(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		if _, err := tx.CreateRole(store.Role{Name: "deployer", AssumeRolePolicyDocument: doc}); err != nil {
			return err
		}
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "readers"}, doc); err != nil {
			return err
		}
		return ignore(tx.CreateOIDCProvider(store.OIDCProvider{URL: "https://issuer.example.com/cluster"}))
	})
	tests := []struct {
		name    string
		create  func(tx *store.Tx) error
		message string
	}{
		{"user Alice when alice exists", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "Alice"})) },
			"User with name Alice already exists."},
		{"user alice in another path", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "alice", Path: "/other/"})) },
			"User with name alice already exists."},
		{"role DEPLOYER when deployer exists", func(tx *store.Tx) error {
			return ignore(tx.CreateRole(store.Role{Name: "DEPLOYER", AssumeRolePolicyDocument: doc}))
		}, "Role with name DEPLOYER already exists."},
		{"policy Readers when readers exists", func(tx *store.Tx) error {
			return ignore(tx.CreatePolicy(store.ManagedPolicy{Name: "Readers", Path: "/x/"}, doc))
		}, "A policy called Readers already exists. Duplicate names are not allowed."},
		{"OIDC provider of the same issuer, host in another case", func(tx *store.Tx) error {
			return ignore(tx.CreateOIDCProvider(store.OIDCProvider{URL: "https://ISSUER.example.com/cluster"}))
		}, "Provider with url https://ISSUER.example.com/cluster already exists."},
		{"rename bob to ALICE", func(tx *store.Tx) error {
			if _, err := tx.CreateUser(store.User{Name: "bob"}); err != nil {
				return err
			}
			return ignore(tx.UpdateUser("bob", "ALICE", ""))
		}, "User with name ALICE already exists."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update(context.Background(), tt.create)
			e := wantCode(t, err, store.EntityAlreadyExists)
			if !errors.Is(err, store.ErrAlreadyExists) {
				t.Error("errors.Is(err, ErrAlreadyExists) is false")
			}
			if e.Message != tt.message {
				t.Errorf("message = %q, want %q", e.Message, tt.message)
			}
		})
	}
}

func TestInvalidInputIsRefusedNamingTheField(t *testing.T) {
	s, _ := openStore(t)
	long := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a'
		}
		return string(b)
	}
	tests := []struct {
		name    string
		create  func(tx *store.Tx) error
		code    store.Code
		message string
	}{
		{"user name with a space", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "a b"})) },
			store.ValidationError, `1 validation error detected: Value 'a b' at 'userName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w+=,.@-]+`},
		{"empty user name", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{})) },
			store.ValidationError, "1 validation error detected: Value '' at 'userName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"user name of 65 characters", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: long(65)})) },
			store.ValidationError, "1 validation error detected: Value '" + long(65) + "' at 'userName' failed to satisfy constraint: Member must have length less than or equal to 64"},
		// IAM quotes the pattern as its model spells it (pathType):
		// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateUser.html
		{"path without the closing slash", func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "a", Path: "/team"})) },
			store.ValidationError, `1 validation error detected: Value '/team' at 'path' failed to satisfy constraint: Member must satisfy regular expression pattern: (\u002F)|(\u002F[\u0021-\u007E]+\u002F)`},
		{"tag key under aws:", func(tx *store.Tx) error {
			return ignore(tx.CreateUser(store.User{Name: "a", Tags: store.Tags{{"aws:cloudformation", "x"}}}))
		}, store.InvalidInput, "Tag keys cannot start with the reserved prefix aws: (aws:cloudformation)."},
		{"two tag keys that differ only in case", func(tx *store.Tx) error {
			return ignore(tx.CreateUser(store.User{Name: "a", Tags: store.Tags{{"Env", "a"}, {"env", "b"}}}))
		}, store.InvalidInput, "Duplicate tag keys found. Please note that Tag keys are case insensitive."},
		{"boundary that is not a policy ARN", func(tx *store.Tx) error {
			return ignore(tx.CreateUser(store.User{Name: "a", Permissions: store.Permissions{PermissionsBoundary: "arn:aws:iam::123456789012:user/x"}}))
		}, store.InvalidInput, "ARN arn:aws:iam::123456789012:user/x is not valid."},
		{"boundary policy of another account", func(tx *store.Tx) error {
			return ignore(tx.CreateUser(store.User{Name: "a", Permissions: store.Permissions{PermissionsBoundary: "arn:aws:iam::999999999999:policy/x"}}))
		}, store.NoSuchEntity, "Policy arn:aws:iam::999999999999:policy/x does not exist or is not attachable."},
		{"role session duration above 12 hours", func(tx *store.Tx) error {
			return ignore(tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: doc, MaxSessionDuration: 43201}))
		}, store.ValidationError, "1 validation error detected: Value '43201' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between 3600 and 43200"},
		{"role without a trust policy", func(tx *store.Tx) error { return ignore(tx.CreateRole(store.Role{Name: "r"})) },
			store.ValidationError, `1 validation error detected: Value at 'assumeRolePolicyDocument' failed to satisfy constraint: Member must satisfy regular expression pattern: [\u0009\u000A\u000D\u0020-\u00FF]+`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wantCode(t, s.Update(context.Background(), tt.create), tt.code)
			if e.Message != tt.message {
				t.Errorf("message =\n%s\nwant\n%s", e.Message, tt.message)
			}
		})
	}
}

func TestRenamedUserKeepsItsKeysAndPolicies(t *testing.T) {
	s, _ := openStore(t)
	var key store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		if _, err := tx.PutUserPolicy("alice", "p", doc); err != nil {
			return err
		}
		var err error
		key, err = tx.CreateAccessKey("alice")
		if err != nil {
			return err
		}
		renamed, err := tx.UpdateUser("alice", "alicia", "/moved/")
		if renamed.ARN != "arn:aws:iam::123456789012:user/moved/alicia" {
			t.Errorf("ARN after rename = %s", renamed.ARN)
		}
		return err
	})
	view(t, s, func(tx *store.Tx) error {
		if _, err := tx.GetUser("alice"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("old name: err = %v, want NoSuchEntity", err)
		}
		u, err := tx.GetUser("alicia")
		if err != nil {
			return err
		}
		if len(u.InlinePolicies) != 1 {
			t.Errorf("inline policies after rename = %v", u.InlinePolicies)
		}
		keys, err := tx.ListAccessKeys("alicia")
		if err != nil {
			return err
		}
		if len(keys) != 1 || keys[0].AccessKeyID != key.AccessKeyID || keys[0].UserName != "alicia" {
			t.Errorf("keys after rename = %+v", keys)
		}
		cred, err := tx.LookupCredential(key.AccessKeyID)
		if cred.UserName != "alicia" {
			t.Errorf("credential owner after rename = %q", cred.UserName)
		}
		return err
	})
	// A change of case only is a rename too.
	update(t, s, func(tx *store.Tx) error {
		u, err := tx.UpdateUser("alicia", "Alicia", "")
		if u.Name != "Alicia" {
			t.Errorf("name after case change = %s", u.Name)
		}
		return err
	})
}

func TestTagsMergeAndRemoveRegardlessOfCase(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice", Tags: store.Tags{{"Env", "dev"}, {"team", "a"}}}); err != nil {
			return err
		}
		tags, err := tx.Tag(store.TaggedUser, "alice", store.Tags{{"env", "prod"}, {"cost", "1"}})
		if err != nil {
			return err
		}
		if want := (store.Tags{{"env", "prod"}, {"team", "a"}, {"cost", "1"}}); !reflect.DeepEqual(tags, want) {
			t.Errorf("after Tag = %v, want %v", tags, want)
		}
		if _, err = tx.Untag(store.TaggedUser, "alice", []string{"TEAM", "absent"}); err != nil {
			return err
		}
		u, err := tx.GetUser("alice")
		if want := (store.Tags{{"env", "prod"}, {"cost", "1"}}); !reflect.DeepEqual(u.Tags, want) {
			t.Errorf("stored after Untag = %v, want %v", u.Tags, want)
		}
		if v, ok := u.Tags.Get("ENV"); !ok || v != "prod" {
			t.Errorf("Get(ENV) = %q, %v", v, ok)
		}
		return err
	})
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		tags := make(store.Tags, 49)
		for i := range tags {
			tags[i] = store.Tag{Key: "k" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Value: "v"}
		}
		return ignore(tx.Tag(store.TaggedUser, "alice", tags))
	})
	wantCode(t, err, store.LimitExceeded)
}

func TestInlinePoliciesAreSortedAndReplacedByName(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		for _, name := range []string{"b", "C", "a"} {
			if _, err := tx.PutUserPolicy("alice", name, doc); err != nil {
				return err
			}
		}
		u, err := tx.PutUserPolicy("alice", "c", `{"Statement":[]}`)
		if err != nil {
			return err
		}
		got := []store.InlinePolicy{}
		got = append(got, u.InlinePolicies...)
		want := []store.InlinePolicy{{"a", doc}, {"b", doc}, {"c", `{"Statement":[]}`}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("inline policies = %v, want %v", got, want)
		}
		p, err := tx.GetUserPolicy("alice", "B")
		if p.Name != "b" {
			t.Errorf("GetUserPolicy(B) = %+v", p)
		}
		if err != nil {
			return err
		}
		if _, err := tx.DeleteUserPolicy("alice", "a"); err != nil {
			return err
		}
		_, err = tx.GetUserPolicy("alice", "a")
		wantCode(t, err, store.NoSuchEntity)
		return nil
	})
}

func TestUserInlinePoliciesShareIAMsSizeQuota(t *testing.T) {
	s, _ := openStore(t)
	big := `{"Statement":"` + repeat("x", 1500) + `"}`
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		return ignore(tx.PutUserPolicy("alice", "one", big))
	})
	err := s.Update(context.Background(), func(tx *store.Tx) error { return ignore(tx.PutUserPolicy("alice", "two", big)) })
	wantCode(t, err, store.LimitExceeded)
	// Replacing the one policy with one as big is fine: the quota counts what remains.
	update(t, s, func(tx *store.Tx) error { return ignore(tx.PutUserPolicy("alice", "ONE", big)) })
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

func TestLoginProfileLifecycle(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "alice"})) })
	tests := []struct {
		name string
		op   func(tx *store.Tx) error
		want store.Code // "" for success
	}{
		{"get before create is NoSuchEntity", func(tx *store.Tx) error { return ignore(tx.GetLoginProfile("alice")) }, store.NoSuchEntity},
		{"update before create is NoSuchEntity", func(tx *store.Tx) error { return ignore(tx.UpdateLoginProfile("alice", false)) }, store.NoSuchEntity},
		{"create", func(tx *store.Tx) error { return ignore(tx.CreateLoginProfile("alice", true)) }, ""},
		{"second create is EntityAlreadyExists", func(tx *store.Tx) error { return ignore(tx.CreateLoginProfile("alice", true)) }, store.EntityAlreadyExists},
		{"update", func(tx *store.Tx) error {
			if _, err := tx.UpdateLoginProfile("alice", false); err != nil {
				return err
			}
			p, err := tx.GetLoginProfile("alice")
			if p.PasswordResetRequired {
				t.Error("PasswordResetRequired still true after update")
			}
			return err
		}, ""},
		{"delete", func(tx *store.Tx) error { return ignore(tx.DeleteLoginProfile("alice")) }, ""},
		{"second delete is NoSuchEntity", func(tx *store.Tx) error { return ignore(tx.DeleteLoginProfile("alice")) }, store.NoSuchEntity},
	}
	for _, tt := range tests {
		err := s.Update(context.Background(), tt.op)
		if tt.want == "" && err != nil {
			t.Errorf("%s: %v", tt.name, err)
		} else if tt.want != "" {
			t.Run(tt.name, func(t *testing.T) { wantCode(t, err, tt.want) })
		}
	}
}

func TestDeleteUserListsWhatBlocksIt(t *testing.T) {
	s, _ := openStore(t)
	var keyID string
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc); err != nil {
			return err
		}
		if _, err := tx.CreateUser(store.User{Name: "alice", Permissions: store.Permissions{PermissionsBoundary: "arn:aws:iam::123456789012:policy/mp"}}); err != nil {
			return err
		}
		if _, err := tx.CreateLoginProfile("alice", false); err != nil {
			return err
		}
		k, err := tx.CreateAccessKey("alice")
		keyID = k.AccessKeyID
		if err != nil {
			return err
		}
		if _, err := tx.PutUserPolicy("alice", "p", doc); err != nil {
			return err
		}
		return ignore(tx.AttachUserPolicy("alice", "arn:aws:iam::123456789012:policy/mp"))
	})
	// Each step removes the first blocker; the message names what is left first.
	steps := []struct {
		name         string
		wantBlockers []store.Blocker
		wantMessage  string
		remove       func(tx *store.Tx) error
	}{
		{"everything blocks", []store.Blocker{store.BlockerLoginProfile, store.BlockerAccessKeys, store.BlockerInlinePolicies, store.BlockerAttachedPolicies},
			"Cannot delete entity, must delete login profile first.",
			func(tx *store.Tx) error { return ignore(tx.DeleteLoginProfile("alice")) }},
		{"access keys block", []store.Blocker{store.BlockerAccessKeys, store.BlockerInlinePolicies, store.BlockerAttachedPolicies},
			"Cannot delete entity, must delete access keys first.",
			func(tx *store.Tx) error { return tx.DeleteAccessKey("alice", keyID) }},
		{"inline policies block", []store.Blocker{store.BlockerInlinePolicies, store.BlockerAttachedPolicies},
			"Cannot delete entity, must delete policies first.",
			func(tx *store.Tx) error { return ignore(tx.DeleteUserPolicy("alice", "p")) }},
		{"attached policies block", []store.Blocker{store.BlockerAttachedPolicies},
			"Cannot delete entity, must detach all policies first.",
			func(tx *store.Tx) error {
				return ignore(tx.DetachUserPolicy("alice", "arn:aws:iam::123456789012:policy/mp"))
			}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			err := s.Update(context.Background(), func(tx *store.Tx) error { return tx.DeleteUser("alice") })
			e := wantCode(t, err, store.DeleteConflict)
			if !reflect.DeepEqual(e.Blockers, step.wantBlockers) || e.Message != step.wantMessage {
				t.Errorf("refusal = %+v, want blockers %v and message %q", e, step.wantBlockers, step.wantMessage)
			}
			view(t, s, func(tx *store.Tx) error {
				blockers, err := tx.UserBlockers("alice")
				if !reflect.DeepEqual(blockers, step.wantBlockers) {
					t.Errorf("UserBlockers = %v, want %v", blockers, step.wantBlockers)
				}
				return err
			})
			update(t, s, step.remove)
		})
	}
	// A permissions boundary does not block, and deleting the user releases it.
	update(t, s, func(tx *store.Tx) error { return tx.DeleteUser("ALICE") })
	view(t, s, func(tx *store.Tx) error {
		p, err := tx.GetPolicy("arn:aws:iam::123456789012:policy/mp")
		if p.AttachmentCount != 0 || p.PermissionsBoundaryUsageCount != 0 {
			t.Errorf("policy counts after the user went: %d attachments, %d boundary uses", p.AttachmentCount, p.PermissionsBoundaryUsageCount)
		}
		return err
	})
}

func TestListUsersPagesInNameOrder(t *testing.T) {
	s, _ := openStore(t)
	names := []string{"delta", "Alpha", "charlie", "Echo", "bravo", "foxtrot", "golf"}
	update(t, s, func(tx *store.Tx) error {
		for i, n := range names {
			path := "/"
			if i%2 == 0 {
				path = "/even/"
			}
			if _, err := tx.CreateUser(store.User{Name: n, Path: path}); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name       string
		pathPrefix string
		maxItems   int
		wantPages  [][]string
	}{
		{"all in one page, sorted without case", "", 0, [][]string{{"Alpha", "bravo", "charlie", "delta", "Echo", "foxtrot", "golf"}}},
		{"pages of 3, the last shorter", "", 3, [][]string{{"Alpha", "bravo", "charlie"}, {"delta", "Echo", "foxtrot"}, {"golf"}}},
		{"pages of 7 end without a marker", "", 7, [][]string{{"Alpha", "bravo", "charlie", "delta", "Echo", "foxtrot", "golf"}}},
		{"path prefix filters before paging", "/even/", 2, [][]string{{"bravo", "charlie"}, {"delta", "golf"}}},
		{"path prefix that matches nothing", "/none/", 2, [][]string{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]string
			page := store.Page{MaxItems: tt.maxItems}
			view(t, s, func(tx *store.Tx) error {
				for {
					l, err := tx.ListUsers(tt.pathPrefix, page)
					if err != nil {
						return err
					}
					var names []string
					for _, u := range l.Items {
						names = append(names, u.Name)
					}
					got = append(got, names)
					if l.Marker == "" {
						return nil
					}
					page.Marker = l.Marker
				}
			})
			if !reflect.DeepEqual(got, tt.wantPages) {
				t.Errorf("pages = %v, want %v", got, tt.wantPages)
			}
		})
	}
	t.Run("a marker that is not one is InvalidInput", func(t *testing.T) {
		err := s.View(context.Background(), func(tx *store.Tx) error {
			return ignore(tx.ListUsers("", store.Page{Marker: "!!not base64!!"}))
		})
		wantCode(t, err, store.InvalidInput)
	})
	t.Run("MaxItems above 1000 is a ValidationError", func(t *testing.T) {
		err := s.View(context.Background(), func(tx *store.Tx) error {
			return ignore(tx.ListUsers("", store.Page{MaxItems: 1001}))
		})
		wantCode(t, err, store.ValidationError)
	})
}

func TestReadTransactionsSeeEachCommittedChange(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "memo"})) })
	read := func() store.User {
		var u store.User
		view(t, s, func(tx *store.Tx) error {
			var err error
			if u, err = tx.GetUser("memo"); err != nil {
				return err
			}
			again, err := tx.GetUser("MEMO")
			if err == nil && again.UserID != u.UserID {
				t.Errorf("one read transaction saw two users")
			}
			return err
		})
		return u
	}
	if read().PermissionsBoundary != "" {
		t.Fatal("a new user has no boundary")
	}
	update(t, s, func(tx *store.Tx) error {
		return ignore(tx.PutUserPolicy("memo", "p", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`))
	})
	if got := read(); len(got.InlinePolicies) != 1 {
		t.Errorf("a later read transaction must see the new policy, got %+v", got.InlinePolicies)
	}
}
