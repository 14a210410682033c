package localaws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	bolt "go.etcd.io/bbolt"

	"leash.dev/leash/localaws"
)

// TestNonexistentBoundaryIsRefused pins that a permissions boundary must be
// a managed policy that exists, as in IAM: CreateUser, CreateRole and
// Put{User,Role}PermissionsBoundary answer NoSuchEntity and change nothing.
// "You can use an AWS managed policy or a customer managed policy to set the
// boundary" (IAM User Guide, "Permissions boundaries for IAM entities",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html).
func TestNonexistentBoundaryIsRefused(t *testing.T) {
	ctx := context.Background()
	_, admin := adminClient(t)
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bounded-user")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("bounded-role"), AssumeRolePolicyDocument: aws.String(trustAccount)}))

	boundaryOf := map[string]func() (*string, error){
		"user": func() (*string, error) {
			out, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bounded-user")})
			if err != nil || out.User.PermissionsBoundary == nil {
				return nil, err
			}
			return out.User.PermissionsBoundary.PermissionsBoundaryArn, nil
		},
		"role": func() (*string, error) {
			out, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("bounded-role")})
			if err != nil || out.Role.PermissionsBoundary == nil {
				return nil, err
			}
			return out.Role.PermissionsBoundary.PermissionsBoundaryArn, nil
		},
	}
	// fresh names the principal a Create call makes, new for each call so
	// that a failure does not spill into the next case.
	var fresh string
	setters := []struct {
		op  string
		set func(boundary string) error
		// left reports what the refused call must not have left behind.
		left func(t *testing.T)
	}{
		{"CreateUser", func(b string) error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(fresh), PermissionsBoundary: aws.String(b)})
			return err
		}, func(t *testing.T) {
			if _, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(fresh)}); apiCode(err) != "NoSuchEntity" {
				t.Errorf("the refused CreateUser left a user behind (GetUser: %v)", err)
			}
		}},
		{"CreateRole", func(b string) error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(fresh), AssumeRolePolicyDocument: aws.String(trustAccount), PermissionsBoundary: aws.String(b)})
			return err
		}, func(t *testing.T) {
			if _, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(fresh)}); apiCode(err) != "NoSuchEntity" {
				t.Errorf("the refused CreateRole left a role behind (GetRole: %v)", err)
			}
		}},
		{"PutUserPermissionsBoundary", func(b string) error {
			_, err := admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded-user"), PermissionsBoundary: aws.String(b)})
			return err
		}, func(t *testing.T) {
			if b, err := boundaryOf["user"](); err != nil || b != nil {
				t.Errorf("the refused call left the user with boundary %v (GetUser: %v)", aws.ToString(b), err)
			}
		}},
		{"PutRolePermissionsBoundary", func(b string) error {
			_, err := admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("bounded-role"), PermissionsBoundary: aws.String(b)})
			return err
		}, func(t *testing.T) {
			if b, err := boundaryOf["role"](); err != nil || b != nil {
				t.Errorf("the refused call left the role with boundary %v (GetRole: %v)", aws.ToString(b), err)
			}
		}},
	}
	missing := []struct{ what, arn string }{
		{"an AWS managed policy that does not exist", "arn:aws:iam::aws:policy/NoSuchPolicy"},
		{"a customer managed policy that does not exist", "arn:aws:iam::111122223333:policy/no-such-policy"},
	}
	for _, s := range setters {
		for i, m := range missing {
			fresh = fmt.Sprintf("new-%d", i)
			t.Run(s.op+" refuses "+m.what, func(t *testing.T) {
				err := s.set(m.arn)
				wantCode(t, s.op, err, "NoSuchEntity")
				if err != nil && !strings.Contains(err.Error(), "Policy "+m.arn+" does not exist or is not attachable.") {
					t.Errorf("%s: %v, want IAM's message naming the policy", s.op, err)
				}
				s.left(t)
			})
		}
	}
	// The same calls with a boundary that exists succeed, so the refusals
	// above are about the policy alone.
	known := "arn:aws:iam::aws:policy/IAMReadOnlyAccess"
	fresh = "new-bounded"
	for _, s := range setters {
		if err := s.set(known); err != nil {
			t.Errorf("%s with %s: %v", s.op, known, err)
		}
	}
	for who, get := range boundaryOf {
		if b, err := get(); err != nil || aws.ToString(b) != known {
			t.Errorf("the %s's boundary is %q (err %v), want %s", who, aws.ToString(b), err, known)
		}
	}
}

// TestUnreadableBoundaryDeniesEverything pins the fallback for a boundary
// whose document leash local cannot read: it allows nothing, so the
// principal's own policies grant nothing. The API refuses such a boundary
// (TestNonexistentBoundaryIsRefused) and a customer policy in use as a
// boundary cannot be deleted, so the state arises only in a data folder
// written before that check, or when AWS withdraws an AWS managed policy
// from its published set. The test writes it into the store as such a
// folder would hold it, then serves the folder again.
func TestUnreadableBoundaryDeniesEverything(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := localaws.Config{AccountID: "111122223333", DataDir: dir}
	serve := func() (*endpoint, *localaws.Loopback) {
		l, err := localaws.StartLoopback(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return &endpoint{srv: l.Server, url: l.URL, dir: dir}, l
	}
	first, running := serve()
	admin := first.iam(first.adminKeys(t))
	allowAll := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
	key := func(name string) (string, string) {
		userClient(t, first, admin, name, allowAll)
		// userClient made the user's first key; a second one is ours to use
		// after the restart.
		k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)}))
		return aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey)
	}
	legacyID, legacySecret := key("legacy")
	controlID, controlSecret := key("control")
	if err := running.Stop(); err != nil {
		t.Fatal(err)
	}

	// The store refuses a boundary that is not in AWS's set, so the record
	// is edited in the database file, as an older leash local left it.
	db, err := bolt.Open(filepath.Join(dir, localaws.StateFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	retired := "arn:aws:iam::aws:policy/RetiredBoundary"
	err = db.Update(func(tx *bolt.Tx) error {
		users := tx.Bucket([]byte("users"))
		var u map[string]any
		if err := json.Unmarshal(users.Get([]byte("legacy")), &u); err != nil {
			return err
		}
		u["PermissionsBoundary"] = retired
		b, err := json.Marshal(u)
		if err != nil {
			return err
		}
		return users.Put([]byte("legacy"), b)
	})
	if cerr := db.Close(); err != nil || cerr != nil {
		t.Fatalf("writing the boundary into the store: %v, %v", err, cerr)
	}

	second, running := serve()
	t.Cleanup(func() {
		if err := running.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	_, err = second.iam(legacyID, legacySecret).ListUsers(ctx, &iam.ListUsersInput{})
	if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), "with an explicit deny in a permissions boundary") {
		t.Errorf("ListUsers by a user whose boundary cannot be read: %v, want AccessDenied naming the boundary", err)
	}
	if _, err := second.iam(controlID, controlSecret).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("ListUsers by the same policy without a boundary: %v", err)
	}
}
