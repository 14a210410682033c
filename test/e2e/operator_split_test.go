package e2e

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy"
)

// TestMintSplitPolicy mints the AWS load balancer controller's request,
// unchanged: its statements are 6,074 characters, within one managed
// policy, and leash's own iam:GetUser statement takes them past IAM's
// 6,144. It becomes Ready with its policy split across two managed
// policies of its user, the key is allowed what each part grants and
// nothing else, and deleting the request deletes both.
func TestMintSplitPolicy(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	data, err := os.ReadFile("testdata/aws-load-balancer-controller-credentialsrequest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cr := &leashv1.CredentialsRequest{}
	if err := yaml.UnmarshalStrict(data, cr); err != nil {
		t.Fatal(err)
	}
	requested, err := operator.RequestedPolicy(cr)
	if err != nil {
		t.Fatal(err)
	}
	if requested.Size != 6074 {
		t.Fatalf("the controller's statements are %d characters, want the 6,074 this test is about", requested.Size)
	}
	cl.namespace(t, cr.Namespace)
	cl.namespace(t, cr.Spec.SecretRef.Namespace)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	cl.create(t, cr)
	cr = cl.waitReady(t, cr.Namespace, cr.Name)

	for _, c := range cr.Status.Conditions {
		if c.Type == leashv1.Ready && !strings.HasSuffix(c.Message, "; policy split across 2 managed policies") {
			t.Errorf("Ready message %q, want it to say the policy is split across 2 managed policies", c.Message)
		}
	}
	user := userOf(t, cr)
	prefix := "arn:aws:iam::" + account + ":policy/leash/e2e/" + user
	attached, err := cl.admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, p := range attached.AttachedPolicies {
		parts = append(parts, aws.ToString(p.PolicyArn))
	}
	slices.Sort(parts)
	if want := []string{prefix + "-policy", prefix + "-policy-2"}; !slices.Equal(parts, want) {
		t.Fatalf("attached policies %v, want %v", parts, want)
	}
	inline, err := cl.admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(user)})
	if err != nil || len(inline.PolicyNames) != 0 {
		t.Errorf("inline policies %v (%v) beside the managed ones, want none", inline, err)
	}

	// Each part is within IAM's limit, and together they hold the request's
	// statements and leash's own, each once.
	admin := cl.iamClient(cl.adminKey(t))
	userARN := "arn:aws:iam::" + account + ":user/leash/e2e/" + user
	statements := 0
	var fromEach []string
	for _, arn := range parts {
		text, err := admin.ManagedPolicyDocument(ctx, arn)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := policy.Parse([]byte(text), policy.Identity)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Size > 6144 {
			t.Errorf("%s is %d characters, over IAM's 6,144", arn, doc.Size)
		}
		statements += len(doc.Statements)
		fromEach = append(fromEach, unconditionalAction(t, text))
	}
	if want := len(requested.Statements) + 1; statements != want {
		t.Errorf("the parts hold %d statements, want %d", statements, want)
	}

	// The key works as the user; IAM allows an action of each part and
	// nothing the request did not ask for.
	key := secretKey(t, cl.secret(t, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name))
	kc := cl.iamClient(key)
	if id, err := kc.CallerIdentity(ctx); err != nil || id.ARN != userARN {
		t.Fatalf("the Secret's key acts as %q (%v), want %s", id.ARN, err, userARN)
	}
	if _, err := kc.GetUser(ctx, user); err != nil {
		t.Errorf("the key may not read its own user: %v", err)
	}
	if _, err := kc.CreateUser(ctx, iamclient.NewUser{Name: "intruder"}); !iamclient.IsAccessDenied(err) {
		t.Errorf("iam:CreateUser with the key: %v, want AccessDenied", err)
	}
	for _, q := range []struct {
		action string
		want   string
	}{
		{fromEach[0], "allowed"},
		{fromEach[1], "allowed"},
		{"ec2:TerminateInstances", "implicitDeny"},
		{"s3:DeleteBucket", "implicitDeny"},
	} {
		got, err := admin.Simulate(ctx, userARN, iamclient.SimulationQuestion{Action: q.action, Resource: "*"})
		if err != nil || got.Decision != q.want {
			t.Errorf("%s for the user: %q (%v), want %s", q.action, got.Decision, err, q.want)
		}
	}

	// Deleting the request deletes the user and every part.
	if err := cl.c.Delete(ctx, cr); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the user and its policies to be deleted", func() (bool, string) {
		policies, err := cl.admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: "Local", PathPrefix: aws.String("/leash/e2e/")})
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, p := range policies.Policies {
			left = append(left, aws.ToString(p.PolicyName))
		}
		users := cl.users(t, "/leash/e2e/")
		return len(left) == 0 && len(users) == 0, "policies " + strings.Join(left, " ") + ", users " + strings.Join(users, " ")
	})
	if s := cl.secret(t, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name); s != nil && s.Labels[leashv1.LabelCredentialsRequest] == "true" {
		t.Error("the Secret survived its request")
	}
}

// unconditionalAction is the first action of a policy that a statement
// without conditions allows on every resource, other than iam:GetUser.
func unconditionalAction(t *testing.T, text string) string {
	t.Helper()
	var doc struct {
		Statement []struct {
			Action    any
			Resource  any
			Condition any
		}
	}
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Statement {
		if s.Condition != nil || s.Resource != "*" {
			continue
		}
		actions, ok := s.Action.([]any)
		if !ok {
			actions = []any{s.Action}
		}
		for _, a := range actions {
			if a, ok := a.(string); ok && a != "iam:GetUser" && !strings.Contains(a, "*") {
				return a
			}
		}
	}
	t.Fatalf("no unconditional action on * in %s", text)
	return ""
}
