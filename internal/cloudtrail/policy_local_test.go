package cloudtrail

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// The policy generated from leash local's audit log of a user, put in place
// of the user's wider policy, lets the same calls through in leash local and
// refuses what the user was allowed but never did: the loop a platform team
// runs to cut a principal down, with real SigV4 calls and the engine that
// authorizes them.
func TestPolicyFromLeashLocalLogCutsAUserDownToItsCalls(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := localtest.Start(t, localaws.Config{DataDir: dir, AccountID: "111122223333"})
	admin := l.IAM(nil)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`
	for _, role := range []string{"app", "secret"} {
		if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(role), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("ci")}); err != nil {
		t.Fatal(err)
	}
	wide := `{"Version":"2012-10-17","Statement":[` +
		`{"Effect":"Allow","Action":["iam:GetUser","iam:ListAccessKeys"],"Resource":"arn:aws:iam::111122223333:user/ci"},` +
		`{"Effect":"Allow","Action":["iam:GetRole","iam:ListRoles","iam:ListRolePolicies"],"Resource":"*"}]}`
	put := func(doc string) {
		t.Helper()
		if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("ci"), PolicyName: aws.String("ci"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	put(wide)
	created, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("ci")})
	if err != nil {
		t.Fatal(err)
	}
	ci := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(l.URL), Retryer: localtest.Retryer(),
		Credentials: credentials.NewStaticCredentialsProvider(*created.AccessKey.AccessKeyId, *created.AccessKey.SecretAccessKey, "")})

	// What the user does: every call is an error code or none.
	calls := func() map[string]string {
		codes := map[string]string{}
		try := func(name string, err error) {
			var api smithy.APIError
			switch {
			case err == nil:
				codes[name] = ""
			case errors.As(err, &api):
				codes[name] = api.ErrorCode()
			default:
				t.Fatalf("%s: %v", name, err)
			}
		}
		_, err := ci.GetUser(ctx, &iam.GetUserInput{})
		try("GetUser self", err)
		_, err = ci.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})
		try("GetRole app", err)
		_, err = ci.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ghost")})
		try("GetRole ghost", err)
		_, err = ci.ListRoles(ctx, &iam.ListRolesInput{})
		try("ListRoles", err)
		_, err = ci.ListUsers(ctx, &iam.ListUsersInput{})
		try("ListUsers", err)
		return codes
	}
	before := calls()
	want := map[string]string{"GetUser self": "", "GetRole app": "", "GetRole ghost": "NoSuchEntity", "ListRoles": "", "ListUsers": "AccessDenied"}
	for k, v := range want {
		if before[k] != v {
			t.Fatalf("under the wide policy, %s = %q, want %q", k, before[k], v)
		}
	}
	// Every answered request is in the log already: leash local writes
	// each line before it responds.
	var events []*audit.Event
	src := LocalLog{Dir: dir, Skip: func(what string, err error) { t.Errorf("skipped %s: %v", what, err) }}
	if err := Collect(ctx, src, audit.Filter{Principal: "arn:aws:iam::111122223333:user/ci"}, func(e *audit.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	doc, notes, err := Policy(events)
	if err != nil {
		t.Fatal(err)
	}
	generated, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := `{"Version":"2012-10-17","Statement":[` +
		`{"Sid":"IamGetRole","Effect":"Allow","Action":["iam:GetRole"],"Resource":["arn:aws:iam::111122223333:role/app","arn:aws:iam::111122223333:role/ghost"]},` +
		`{"Sid":"IamGetUser","Effect":"Allow","Action":["iam:GetUser"],"Resource":["arn:aws:iam::111122223333:user/ci"]},` +
		`{"Sid":"IamListRoles","Effect":"Allow","Action":["iam:ListRoles"],"Resource":["*"]}]}`
	if string(generated) != wantDoc {
		t.Errorf("generated policy:\n%s\nwant\n%s", generated, wantDoc)
	}
	if len(notes) != 1 || notes[0].Kind != NoteRefused || notes[0].Action != "iam:ListUsers" {
		t.Errorf("notes = %v, want the refused ListUsers", notes)
	}

	put(string(generated))
	after := calls()
	for k, v := range want {
		if after[k] != v {
			t.Errorf("under the generated policy, %s = %q, want %q as before", k, after[k], v)
		}
	}
	// What the wide policy allowed and the user never did is gone.
	_, err = ci.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("secret")})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
		t.Errorf("GetRole secret under the generated policy: %v, want AccessDenied", err)
	}
	_, err = ci.ListAccessKeys(ctx, &iam.ListAccessKeysInput{})
	if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
		t.Errorf("ListAccessKeys under the generated policy: %v, want AccessDenied", err)
	}
}
