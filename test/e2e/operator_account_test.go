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
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
)

// TestOperatorRoleOfAnotherAccount runs the operator against leash local
// holding the root's account and account B. A role of B is judged in B
// through B's check role, which the operator assumes with the root
// credentials, so that the root account's role of the same name (which may
// do every ec2 action) does not make it Ready; a role of an account with
// no check role is Ready with its Secret but says it was not checked; a
// role ARN with a five-digit account is InvalidRequest naming the field,
// with no Secret. The failing requests get one Warning Event each, the
// unchecked one none.
func TestOperatorRoleOfAnotherAccount(t *testing.T) {
	const accountB, accountC = "444455556666", "777788889999"
	cl := newCluster(t, clusterOptions{otherAccounts: []string{accountB}})
	cl.namespace(t, "apps")
	ctx := context.Background()
	bKey, err := iamclient.KeyFromFile(cl.local.AccountAdminCredentialsPath(accountB))
	if err != nil {
		t.Fatal(err)
	}
	b := cl.iamAs(t, bKey)
	role := func(c *iam.Client, name, trusted, actions string) {
		t.Helper()
		trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + trusted + `:root"},"Action":"sts:AssumeRole"}]}`
		if _, err := c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":` + actions + `,"Resource":"*"}]}`
		if _, err := c.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	role(cl.admin, "app-role", account, `"ec2:*"`)
	role(b, "app-role", accountB, `"s3:GetObject"`)
	role(b, "leash-check", account, `["iam:Get*","iam:List*"]`)
	checkRole := "arn:aws:iam::" + accountB + ":role/leash-check"
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual,
		AccountChecks: operator.AccountChecks{Roles: map[string]string{accountB: checkRole}}}))

	inB, inC := "arn:aws:iam::"+accountB+":role/app-role", "arn:aws:iam::"+accountC+":role/app-role"
	cl.create(t, stsRequest(t, "apps", "in-b", inB, ""))
	cl.create(t, stsRequest(t, "apps", "in-c", inC, ""))
	cl.create(t, stsRequest(t, "apps", "bad-arn", "arn:aws:iam::12345:role/app-role", ""))

	cr := cl.waitCondition(t, "apps", "in-b", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RoleLacksPermissions")
	if msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message; !strings.Contains(msg, "role "+inB+" lacks 1 requested permission(s): ec2:DescribeInstances") {
		t.Errorf("in-b: message %q; want B's role to lack ec2:DescribeInstances", msg)
	}
	cr = cl.waitCondition(t, "apps", "in-c", leashv1.Ready, corev1.ConditionTrue, operator.ReasonRoleUnchecked)
	msg := conditionOf(cr, leashv1.Ready).Message
	for _, s := range []string{"not checked: role " + inC + " is in account " + accountC, "not that the role exists, carries the requested permissions or trusts the cluster",
		"--account-check-role " + accountC + "="} {
		if !strings.Contains(msg, s) {
			t.Errorf("in-c: Ready message %q does not say %q", msg, s)
		}
	}
	if cl.secret(t, "apps", "in-c-creds") == nil {
		t.Error("in-c: no Secret; want it written in report mode")
	}
	waitFor(t, 20*time.Second, "a Warning Event for in-b", func() (bool, string) {
		w := warningEvents(t, cl, "apps")["in-b"]
		return len(w) == 1 && w[0].Reason == "RoleLacksPermissions", fmt.Sprintf("%+v", w)
	})
	cr = cl.waitCondition(t, "apps", "bad-arn", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "InvalidRequest")
	if msg := conditionOf(cr, leashv1.CredentialsProvisionFailure).Message; !strings.Contains(msg, "spec.providerSpec.stsIAMRoleARN") || !strings.Contains(msg, "an AWS account ID is 12 digits") {
		t.Errorf("bad-arn: message %q; want it to name spec.providerSpec.stsIAMRoleARN and the account ID's form", msg)
	}
	if cl.secret(t, "apps", "bad-arn-creds") != nil {
		t.Error("bad-arn: a Secret was written")
	}
	waitFor(t, 20*time.Second, "a Warning Event for bad-arn", func() (bool, string) {
		w := warningEvents(t, cl, "apps")["bad-arn"]
		return len(w) == 1 && w[0].Reason == "InvalidRequest", fmt.Sprintf("%+v", w)
	})
	if w := warningEvents(t, cl, "apps")["in-c"]; len(w) != 0 {
		t.Errorf("in-c: Warning Events %+v; want none", w)
	}
}
