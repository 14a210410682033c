package cloudtrail_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

const account = "111122223333"

// incident makes calls against an in-process leash local: alice calls IAM
// with her key (one call denied), takes a session token and calls STS with it,
// then assumes the deployer role twice, the second session after cutoff;
// bob makes a call of his own. It returns the server, the administrator's
// key, its data folder and cutoff.
func incident(t *testing.T) (*localaws.Loopback, iamclient.AccessKey, string, time.Time) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e := localtest.Start(t, localaws.Config{DataDir: dir, AccountID: account})
	l, adminKey := e.Loopback, e.Admin
	static := func(id, secret, token string) aws.CredentialsProvider {
		return credentials.NewStaticCredentialsProvider(id, secret, token)
	}
	iamAs, stsAs := e.IAM, e.STS
	admin := e.IAM(nil)
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	userKey := func(name, policy string) aws.CredentialsProvider {
		t.Helper()
		_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)})
		check("CreateUser", err)
		_, err = admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(policy)})
		check("PutUserPolicy", err)
		k, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
		check("CreateAccessKey", err)
		return static(aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey), "")
	}
	alice := userKey("alice", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetUser","sts:AssumeRole"],"Resource":"*"}]}`)
	bob := userKey("bob", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`)
	_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("deployer"), Path: aws.String("/ci/"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:user/alice"},"Action":"sts:AssumeRole"}]}`)})
	check("CreateRole", err)
	_, err = admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("deployer"), PolicyName: aws.String("p"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListRoles","Resource":"*"}]}`)})
	check("PutRolePolicy", err)

	_, err = iamAs(alice).GetUser(ctx, &iam.GetUserInput{})
	check("alice GetUser", err)
	if _, err := iamAs(alice).ListUsers(ctx, &iam.ListUsersInput{}); err == nil {
		t.Fatal("alice ListUsers was allowed; the incident needs it denied")
	}
	tok, err := stsAs(alice).GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	check("GetSessionToken", err)
	c := tok.Credentials
	// GetSessionToken's credentials without MFA may not call IAM.
	_, err = stsAs(static(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	check("session token GetCallerIdentity", err)
	assume := func(session string) *iam.Client {
		out, err := stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/ci/deployer"), RoleSessionName: aws.String(session)})
		check("AssumeRole", err)
		c := out.Credentials
		return iamAs(static(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)))
	}
	early := assume("early")
	_, err = early.ListRoles(ctx, &iam.ListRolesInput{})
	check("early ListRoles", err)
	if _, err := early.ListUsers(ctx, &iam.ListUsersInput{}); err == nil {
		t.Fatal("the role's ListUsers was allowed; the incident needs it denied")
	}
	time.Sleep(10 * time.Millisecond)
	cutoff := time.Now().UTC()
	time.Sleep(10 * time.Millisecond)
	late := assume("late")
	_, err = late.ListRoles(ctx, &iam.ListRolesInput{})
	check("late ListRoles", err)
	_, err = early.ListRoles(ctx, &iam.ListRolesInput{})
	check("early ListRoles after the cutoff", err)
	_, err = iamAs(bob).GetUser(ctx, &iam.GetUserInput{})
	check("bob GetUser", err)
	return l, adminKey, dir, cutoff
}

// calls lists the selected records as "caller action error", sorted.
func calls(t *testing.T, src cloudtrail.Source, f audit.Filter) []string {
	t.Helper()
	var got []string
	err := cloudtrail.Collect(context.Background(), src, f, func(e *audit.Event) error {
		if e.EventSource == "cloudtrail.amazonaws.com" {
			return nil // the test's own lookups
		}
		caller := e.UserIdentity.ARN[strings.LastIndexByte(e.UserIdentity.ARN, ':')+1:]
		if e.UserIdentity.SessionContext != nil && e.UserIdentity.UserName != "" || e.UserIdentity.SessionContext != nil && !strings.Contains(caller, "assumed-role") {
			caller += "(token)"
		}
		got = append(got, strings.TrimSpace(caller+" "+cloudtrail.Action(e)+" "+e.ErrorCode))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// TestSourcesAgreeOnALeashLocalIncident reads the same calls from leash
// local's audit log, from its LookupEvents API and from CloudTrail files
// holding its records, and checks each selection gives exactly the calls it
// should, from all three.
func TestSourcesAgreeOnALeashLocalIncident(t *testing.T) {
	l, admin, dir, cutoff := incident(t)
	sources := map[string]cloudtrail.Source{
		"audit log":    cloudtrail.LocalLog{Dir: dir, Skip: func(what string, err error) { t.Errorf("skipped %s: %v", what, err) }},
		"LookupEvents": cloudtrail.NewLookup(cloudtrail.LookupConfig{Endpoint: l.URL, Credentials: admin.Provider()}),
	}
	// The third source, CloudTrail files, holds the same records as
	// CloudTrail would deliver them: leash local's log written out as a
	// gzipped {"Records":[…]} file in the S3 layout.
	sources["CloudTrail files"] = cloudtrail.Folder{Root: asTrailFiles(t, dir), Skip: func(what string, err error) { t.Errorf("skipped %s: %v", what, err) }}
	const (
		alice = "arn:aws:iam::" + account + ":user/alice"
		role  = "arn:aws:iam::" + account + ":role/ci/deployer"
		early = "arn:aws:sts::" + account + ":assumed-role/deployer/early"
	)
	tests := []struct {
		name   string
		filter audit.Filter
		want   []string
	}{
		{"a user selects its own calls and its session token's", audit.Filter{Principal: alice}, []string{
			"user/alice iam:GetUser", "user/alice iam:ListUsers AccessDenied", "user/alice sts:AssumeRole", "user/alice sts:AssumeRole",
			"user/alice sts:GetSessionToken", "user/alice(token) sts:GetCallerIdentity"}},
		{"a role selects every session's calls", audit.Filter{Principal: role}, []string{
			"assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListUsers AccessDenied",
			"assumed-role/deployer/late iam:ListRoles"}},
		{"one session's ARN selects that session", audit.Filter{Principal: early}, []string{
			"assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListUsers AccessDenied"}},
		{"issued-before keeps the sessions issued before the cutoff, calls after it included", audit.Filter{Principal: role, IssuedBefore: cutoff}, []string{
			"assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/early iam:ListUsers AccessDenied"}},
		{"issued-before leaves out a user's long-term key", audit.Filter{Principal: alice, IssuedBefore: cutoff}, []string{"user/alice(token) sts:GetCallerIdentity"}},
		{"since the cutoff", audit.Filter{Principal: role, Since: cutoff}, []string{"assumed-role/deployer/early iam:ListRoles", "assumed-role/deployer/late iam:ListRoles"}},
		{"until the cutoff", audit.Filter{Principal: alice, Until: cutoff, Denied: true}, []string{"user/alice iam:ListUsers AccessDenied"}},
		{"denied calls of everyone", audit.Filter{Denied: true}, []string{"assumed-role/deployer/early iam:ListUsers AccessDenied", "user/alice iam:ListUsers AccessDenied"}},
		{"another user", audit.Filter{Principal: "arn:aws:iam::" + account + ":user/bob"}, []string{"user/bob iam:GetUser"}},
	}
	for _, tt := range tests {
		for name, src := range sources {
			t.Run(tt.name+" from the "+name, func(t *testing.T) {
				if got := calls(t, src, tt.filter); !slices.Equal(got, tt.want) {
					t.Errorf("selected\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
				}
			})
		}
	}
	t.Run("all sources give the same records", func(t *testing.T) {
		ids := map[string][]string{}
		for name, src := range sources {
			_ = cloudtrail.Collect(context.Background(), src, audit.Filter{Until: cutoff.Add(time.Hour)}, func(e *audit.Event) error {
				if e.EventSource != "cloudtrail.amazonaws.com" {
					ids[name] = append(ids[name], e.EventID+" "+e.EventTime.Format(time.RFC3339Nano)+" "+e.UserIdentity.ARN+" "+e.ErrorCode)
				}
				return nil
			})
			slices.Sort(ids[name])
		}
		if len(ids["audit log"]) < 15 {
			t.Fatalf("the audit log has %d records, want the incident's 15 or more", len(ids["audit log"]))
		}
		for name := range sources {
			if !slices.Equal(ids[name], ids["audit log"]) {
				t.Errorf("the audit log has\n  %s\n%s gave\n  %s", strings.Join(ids["audit log"], "\n  "), name, strings.Join(ids[name], "\n  "))
			}
		}
	})
}

// asTrailFiles writes the records of leash local's audit log in dir as one
// gzipped CloudTrail log file, and returns the folder holding it.
func asTrailFiles(t *testing.T, dir string) string {
	t.Helper()
	var records []*audit.Event
	if err := cloudtrail.Collect(context.Background(), cloudtrail.LocalLog{Dir: dir}, audit.Filter{}, func(e *audit.Event) error {
		records = append(records, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	path := filepath.Join(root, "AWSLogs", account, "CloudTrail", "us-east-1", "2026", "11", "29", account+"_CloudTrail_us-east-1_20261129T1200Z_leashlocal.json.gz")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if err := json.NewEncoder(gz).Encode(map[string]any{"Records": records}); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}
