package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// cliAccountDetails is what `aws iam get-account-authorization-details`
// prints, with the documents left raw to check that the CLI decoded them.
type cliAccountDetails struct {
	UserDetailList []struct {
		UserName       string
		UserPolicyList []struct{ PolicyDocument json.RawMessage }
	}
	GroupDetailList []struct{ GroupName string }
	RoleDetailList  []struct {
		RoleName                 string
		AssumeRolePolicyDocument json.RawMessage
	}
	Policies []struct {
		Arn               string
		PolicyVersionList []struct{ Document json.RawMessage }
	}
	NextToken string
}

func (d cliAccountDetails) names() []string {
	var out []string
	for _, u := range d.UserDetailList {
		out = append(out, "user "+u.UserName)
	}
	for _, g := range d.GroupDetailList {
		out = append(out, "group "+g.GroupName)
	}
	for _, r := range d.RoleDetailList {
		out = append(out, "role "+r.RoleName)
	}
	for _, p := range d.Policies {
		out = append(out, "policy "+p.Arn)
	}
	return out
}

// TestAccountAuthorizationDetailsWithTheAWSCLI reads leash local's account
// with `aws iam get-account-authorization-details`, as a person takes a
// snapshot for who-can: the CLI prints every document decoded, follows
// leash local's markers page by page (--page-size 1), and a --max-items 2
// run stops with a NextToken that --starting-token continues, every user
// once.
func TestAccountAuthorizationDetailsWithTheAWSCLI(t *testing.T) {
	p := startLocal(t, t.TempDir())
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	const (
		inline = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`
		trust  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
		perms  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}]}`
	)
	for i := range 4 {
		name := fmt.Sprintf("user-%d", i)
		cli.ok(t, admin, nil, "iam", "create-user", "--user-name", name)
		cli.ok(t, admin, nil, "iam", "put-user-policy", "--user-name", name, "--policy-name", "p", "--policy-document", inline)
	}
	cli.ok(t, admin, nil, "iam", "create-role", "--role-name", "app", "--assume-role-policy-document", trust)
	cli.ok(t, admin, nil, "iam", "create-policy", "--policy-name", "list", "--policy-document", perms)

	var whole cliAccountDetails
	cli.ok(t, admin, &whole, "iam", "get-account-authorization-details")
	want := whole.names()
	sort.Strings(want)
	for _, w := range []string{"user user-0", "user user-3", "role app", "policy arn:aws:iam::" + account + ":policy/list"} {
		if !slices.Contains(want, w) {
			t.Fatalf("get-account-authorization-details lacks %s: %v", w, want)
		}
	}
	sameJSON := func(what string, got json.RawMessage, doc string) {
		t.Helper()
		var c bytes.Buffer
		if err := json.Compact(&c, got); err != nil || c.String() != doc {
			t.Errorf("%s printed as %s, want the document decoded: %s", what, got, doc)
		}
	}
	for _, u := range whole.UserDetailList {
		if u.UserName == "user-0" {
			sameJSON("user-0's inline policy", u.UserPolicyList[0].PolicyDocument, inline)
		}
	}
	for _, r := range whole.RoleDetailList {
		sameJSON("app's trust policy", r.AssumeRolePolicyDocument, trust)
	}
	for _, pol := range whole.Policies {
		sameJSON(pol.Arn+"'s version", pol.PolicyVersionList[0].Document, perms)
	}

	var bySingle cliAccountDetails
	cli.ok(t, admin, &bySingle, "iam", "get-account-authorization-details", "--page-size", "1")
	if got := bySingle.names(); !slices.Equal(sorted(got), want) {
		t.Errorf("--page-size 1 read %v, want %v", got, want)
	}

	var paged []string
	args := []string{"iam", "get-account-authorization-details", "--max-items", "2", "--page-size", "2"}
	for runs := 1; ; runs++ {
		var out cliAccountDetails
		cli.ok(t, admin, &out, args...)
		paged = append(paged, out.names()...)
		if runs == 1 && (out.NextToken == "" || len(out.UserDetailList) != 2) {
			t.Fatalf("--max-items 2: %d users, NextToken %q; want 2 users and a NextToken", len(out.UserDetailList), out.NextToken)
		}
		if out.NextToken == "" {
			break
		}
		if runs > len(want) {
			t.Fatalf("--max-items 2 still has a NextToken after %d runs", runs)
		}
		args = []string{"iam", "get-account-authorization-details", "--max-items", "2", "--page-size", "2", "--starting-token", out.NextToken}
	}
	// The CLI counts --max-items in the first list (users) and, resuming
	// from a --starting-token, empties the other lists of the first page
	// it reads (botocore's PageIterator._handle_first_request), whatever
	// the service: so every user comes once, and a role or policy at most
	// once. A whole snapshot is one run without --max-items.
	var users, wantUsers []string
	for _, n := range want {
		if strings.HasPrefix(n, "user ") {
			wantUsers = append(wantUsers, n)
		}
	}
	for i, n := range sorted(paged) {
		if strings.HasPrefix(n, "user ") {
			users = append(users, n)
		}
		if !slices.Contains(want, n) || (i > 0 && sorted(paged)[i-1] == n) {
			t.Errorf("--max-items 2 runs read %s, which is not in the account or came twice: %v", n, paged)
		}
	}
	if !slices.Equal(users, wantUsers) {
		t.Errorf("--max-items 2 runs read users %v, want each of %v once", users, wantUsers)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}
