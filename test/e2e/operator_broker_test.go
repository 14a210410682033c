package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/policy"
)

// TestOperatorBrokerRole: on the real API server, a request annotated
// Broker gets a role only the broker's principal may assume, for sessions
// tagged with the request's namespace; it is Ready with status.mode Broker
// and the role as principal, and no Secret is written; the broker (a user
// of leash local) gets a session with its namespace's tag and is refused
// with another's; leash.dev/revoke puts the session deny on the role; and
// deleting the request deletes the role.
func TestOperatorBrokerRole(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	const ns = "reports"
	cl.namespace(t, ns)

	u, err := cl.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("leash-broker")})
	if err != nil {
		t.Fatal(err)
	}
	brokerARN := aws.ToString(u.User.Arn)
	if _, err := cl.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("leash-broker"), PolicyName: aws.String("sts"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:*","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	k, err := cl.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("leash-broker")})
	if err != nil {
		t.Fatal(err)
	}
	brokerKey := iamclient.AccessKey{ID: aws.ToString(k.AccessKey.AccessKeyId), Secret: iamclient.NewSecret(aws.ToString(k.AccessKey.SecretAccessKey))}
	stop, _ := cl.runOperator(t, cl.operatorOptions(operator.Config{BrokerPrincipal: brokerARN, AdminNamespaces: []string{ns}}))
	defer stop()

	cr := request(t, ns, "exporter", ns, "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"arn:aws:s3:::example-reports/*\"\n")
	cr.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeBroker)}
	cr.Spec.ServiceAccountNames = []string{"report-exporter"}
	cl.create(t, cr)
	cr = cl.waitReady(t, ns, "exporter")
	roleARN := cr.Status.Principal
	if cr.Status.Mode != leashv1.ModeBroker || !strings.HasPrefix(roleARN, "arn:aws:iam::"+account+":role/leash/e2e/e2e-"+ns+"-exporter-") {
		t.Fatalf("status.mode %q, status.principal %q; want Broker and the made role", cr.Status.Mode, roleARN)
	}
	if msg := conditionOf(cr, leashv1.Ready).Message; !strings.Contains(msg, "not by a session") {
		t.Errorf("Ready message %q; want it to say the engine, not a session, proved the role", msg)
	}
	if s := cl.secret(t, ns, "exporter-creds"); s != nil {
		t.Errorf("Broker mode wrote Secret %s/%s", s.Namespace, s.Name)
	}
	name := roleName(roleARN)
	role, ok := cl.roleOf(t, name)
	if !ok {
		t.Fatalf("role %s does not exist", name)
	}
	sameDoc(t, "trust", decodeDoc(t, aws.ToString(role.AssumeRolePolicyDocument)),
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+brokerARN+`"},"Action":["sts:AssumeRole","sts:TagSession"],`+
			`"Condition":{"StringEquals":{"aws:RequestTag/kubernetes-namespace":"`+ns+`"}}}]}`, policy.Trust)
	checkRolePolicy(t, cl, name, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::example-reports/*"}]}`)

	// The trust as STS decides it: session tags as the broker passes them.
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
	stsc := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(cl.url), Credentials: brokerKey.Provider()})
	assume := func(namespace string) error {
		_, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("pod"),
			Tags: []ststypes.Tag{{Key: aws.String(broker.TagNamespace), Value: aws.String(namespace)}}})
		return err
	}
	if err := assume(ns); err != nil {
		t.Errorf("the broker with tag %s=%s: %v; want a session", broker.TagNamespace, ns, err)
	}
	if err := assume("apps"); apiErrCode(err) != "AccessDenied" {
		t.Errorf("the broker with another namespace's tag: %v; want AccessDenied", err)
	}

	// leash.dev/revoke: the session deny on the role.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	cutoff := time.Now().UTC().Format(time.RFC3339)
	cur := cl.get(t, ns, "exporter")
	cur.Annotations[operator.AnnotationRevoke] = cutoff
	if err := cl.c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the session deny on role "+name, func() (bool, string) {
		_, err := cl.admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(revoke.PolicyName)})
		return err == nil, apiErrCode(err)
	})

	if err := cl.c.Delete(ctx, cl.get(t, ns, "exporter")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the role to be deleted with its request", func() (bool, string) {
		_, ok := cl.roleOf(t, name)
		return !ok, ""
	})
}
