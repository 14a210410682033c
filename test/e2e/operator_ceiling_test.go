package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
)

// ceilingE2E allows reading IAM users but never those named protected-*:
// the Deny is narrower than a request for iam:GetUser on "*", which the
// engine's check before minting accepts, so only the permissions boundary
// can enforce it.
const ceilingE2E = `{"Version":"2012-10-17","Statement":[
 {"Effect":"Allow","Action":["iam:GetUser","iam:ListUsers","ec2:Describe*","s3:GetObject"],"Resource":"*"},
 {"Effect":"Deny","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/protected-*"}]}`

// TestOperatorCeiling pins the guardrails on the real API server: a
// request above the ceiling, one outside its namespace's allow-list and an
// administrator request are refused with a Warning Event each and no IAM
// user; one within is minted with the ceiling as its permissions boundary,
// and leash local enforces that boundary on the key.
func TestOperatorCeiling(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	cl.namespace(t, "team-b")
	for _, name := range []string{"protected-db", "open-db"} {
		if _, err := cl.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{Guardrails: operator.Guardrails{
		Ceiling: ceilingE2E, NamespaceActions: map[string][]string{"team-b": {"ec2:Describe*"}}}}))

	refused := []struct {
		ns, name, entries, reason, want string
	}{
		{"apps", "above", "- effect: Allow\n  action: [\"iam:GetUser\", \"iam:CreateUser\"]\n  resource: \"*\"\n",
			"AboveCeiling", "the cluster's ceiling does not allow iam:CreateUser on *"},
		{"apps", "admin", "- effect: Allow\n  action: [\"*\"]\n  resource: \"*\"\n",
			"PrivilegeEscalation", "critical LEASH-ESC-"},
		{"team-b", "outside", "- effect: Allow\n  action: [\"ec2:DescribeInstances\", \"s3:GetObject\"]\n  resource: \"*\"\n",
			"ActionNotAllowed", "namespace team-b may ask only for ec2:Describe*"},
	}
	for _, r := range refused {
		cl.create(t, request(t, r.ns, r.name, r.ns, r.entries))
	}
	cl.create(t, request(t, "apps", "within", "apps", "- effect: Allow\n  action: [\"iam:GetUser\"]\n  resource: \"*\"\n"))
	cl.create(t, request(t, "team-b", "listed", "team-b", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))

	for _, r := range refused {
		cr := cl.waitCondition(t, r.ns, r.name, leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, r.reason)
		if c := conditionOf(cr, leashv1.CredentialsProvisionFailure); c == nil || !strings.Contains(c.Message, r.want) {
			t.Errorf("%s/%s: condition %+v, want a message with %q", r.ns, r.name, c, r.want)
		}
	}
	cr := cl.waitReady(t, "apps", "within")
	cl.waitReady(t, "team-b", "listed")
	user := userOf(t, cr)
	users := cl.users(t, "/leash/")
	for _, r := range refused {
		for _, u := range users {
			if strings.HasPrefix(u, "e2e-"+r.ns+"-"+r.name+"-") {
				t.Errorf("refused request %s/%s has IAM user %s", r.ns, r.name, u)
			}
		}
	}

	// The minted user carries the ceiling policy as its boundary.
	ceilingARN := "arn:aws:iam::" + account + ":policy/leash/e2e/ceiling/e2e-leash-ceiling"
	got, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	if b := got.User.PermissionsBoundary; b == nil || aws.ToString(b.PermissionsBoundaryArn) != ceilingARN {
		t.Errorf("the minted user's permissions boundary is %v, want the ceiling policy %s", b, ceilingARN)
	}

	// leash local enforces it: the request allows iam:GetUser on every
	// user, the ceiling not on protected-*.
	key := cl.iamAs(t, secretKey(t, cl.secret(t, "apps", "within-creds")))
	if _, err := key.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("open-db")}); err != nil {
		t.Errorf("iam:GetUser open-db with the key: %v, want allowed by the request and the ceiling", err)
	}
	if _, err := key.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("protected-db")}); apiErrCode(err) != "AccessDenied" {
		t.Errorf("iam:GetUser protected-db with the key: %v, want AccessDenied by the ceiling boundary", err)
	}

	// Each refusal is a Warning Event with its reason.
	waitFor(t, 10*time.Second, "a Warning Event for each refused request", func() (bool, string) {
		var events corev1.EventList
		if err := cl.c.List(ctx, &events); err != nil {
			return false, err.Error()
		}
		seen := map[string]string{}
		for _, e := range events.Items {
			if e.Type == corev1.EventTypeWarning {
				seen[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name] = e.Reason
			}
		}
		for _, r := range refused {
			if seen[r.ns+"/"+r.name] != r.reason {
				return false, fmt.Sprintf("Warning Events by request: %v", seen)
			}
		}
		return true, ""
	})
}
