package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws/faults"
)

// TestMint follows one minted request through its life: created, used,
// given a new permission, rotated, and deleted, with leash local enforcing
// every policy the operator writes.
func TestMint(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	// Every minted user gets this permissions boundary.
	boundary, err := cl.admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("leash-boundary"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:*","iam:GetUser","iam:ListUsers"],"Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	boundaryARN := aws.ToString(boundary.Policy.Arn)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{RotationGrace: 2 * time.Second, Boundary: boundaryARN}))

	cr := request(t, "apps", "reader", "apps", `- effect: Allow
  action: ["ec2:DescribeInstances"]
  resource: "*"
`)
	cl.create(t, cr)
	cr = cl.waitReady(t, "apps", "reader")

	user := userOf(t, cr)
	if !strings.HasPrefix(user, "e2e-apps-reader-") || len(user) > 64 {
		t.Errorf("user %q: want e2e-apps-reader-<hash>, at most 64 characters", user)
	}
	if cr.Status.Mode != leashv1.ModeMint || !cr.Status.Provisioned || cr.Status.LastSyncGeneration != cr.Generation {
		t.Errorf("status: mode %q provisioned %v lastSyncGeneration %d (generation %d)", cr.Status.Mode, cr.Status.Provisioned, cr.Status.LastSyncGeneration, cr.Generation)
	}
	wantARN := "arn:aws:iam::" + account + ":user/leash/e2e/" + user
	if cr.Status.Principal != wantARN {
		t.Errorf("status.principal = %q, want %q", cr.Status.Principal, wantARN)
	}
	got, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]string{}
	for _, tg := range got.User.Tags {
		tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	if b := got.User.PermissionsBoundary; b == nil || aws.ToString(b.PermissionsBoundaryArn) != boundaryARN {
		t.Errorf("user's permissions boundary = %v, want %s", b, boundaryARN)
	}
	if tags[operator.TagRequestUID] != string(cr.UID) || tags[operator.TagCluster] != "e2e" || tags["kubernetes.io/cluster/e2e"] != "owned" {
		t.Errorf("user tags = %v, want the request's UID %s and the cluster", tags, cr.UID)
	}

	// The Secret's key works, as the minted user, and can do what was
	// requested and nothing else.
	s := cl.secret(t, "apps", "reader-creds")
	key := secretKey(t, s)
	if !strings.Contains(string(s.Data["credentials"]), "[default]\naws_access_key_id = "+key.ID+"\n") {
		t.Error("the credentials file does not carry the Secret's key in a [default] profile")
	}
	if s.Labels[leashv1.LabelCredentialsRequest] != "true" || s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/reader" {
		t.Errorf("Secret label/annotation = %v / %v", s.Labels, s.Annotations)
	}
	id, err := cl.iamClient(key).CallerIdentity(ctx)
	if err != nil || id.ARN != wantARN {
		t.Fatalf("the Secret's key acts as %q (%v), want %q", id.ARN, err, wantARN)
	}
	minted := cl.iamAs(t, key)
	if _, err := minted.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)}); err != nil {
		t.Errorf("iam:GetUser on itself, which every minted policy grants: %v", err)
	}
	if _, err := minted.ListUsers(ctx, &iam.ListUsersInput{}); apiErrCode(err) != "AccessDenied" {
		t.Errorf("iam:ListUsers before it is requested: got %v, want AccessDenied", err)
	}

	// A new permission in the request reaches the user's policy, and the
	// same key can use it.
	cr = cl.get(t, "apps", "reader")
	cr.Spec.ProviderSpec = request(t, "apps", "reader", "apps", `- effect: Allow
  action: ["ec2:DescribeInstances"]
  resource: "*"
- effect: Allow
  action: ["iam:ListUsers"]
  resource: "*"
`).Spec.ProviderSpec
	if err := cl.c.Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the policy to grant iam:ListUsers", func() (bool, string) {
		out, err := cl.admin.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String(user + "-policy")})
		if err != nil {
			return false, err.Error()
		}
		doc, _ := url.QueryUnescape(aws.ToString(out.PolicyDocument))
		return strings.Contains(doc, "iam:ListUsers"), doc
	})
	cl.waitCondition(t, "apps", "reader", leashv1.Ready, corev1.ConditionTrue, "")
	if _, err := minted.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("iam:ListUsers after it was requested: %v", err)
	}
	if after := secretKey(t, cl.secret(t, "apps", "reader-creds")); after.ID != key.ID {
		t.Error("a permission change replaced the key; it should only update the policy")
	}

	// Rotation: a maximum key age publishes a new, proven key first and
	// deletes the old one after the grace period.
	cr = cl.get(t, "apps", "reader")
	cr.Annotations = map[string]string{operator.AnnotationRotateAfter: "3s"}
	if err := cl.c.Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
	var rotated string
	waitFor(t, 30*time.Second, "a rotated key in the Secret", func() (bool, string) {
		s := cl.secret(t, "apps", "reader-creds")
		rotated = string(s.Data["aws_access_key_id"])
		return rotated != key.ID, rotated
	})
	newKey := secretKey(t, cl.secret(t, "apps", "reader-creds"))
	if _, err := cl.iamClient(newKey).CallerIdentity(ctx); err != nil {
		t.Errorf("the rotated key does not work: %v", err)
	}
	if _, err := cl.iamClient(key).CallerIdentity(ctx); err != nil && time.Since(time.Now()) < time.Second {
		t.Logf("old key already gone right after rotation: %v", err)
	}
	waitFor(t, 30*time.Second, "the old key's deletion after the grace period", func() (bool, string) {
		ids := cl.keys(t, user)
		for _, id := range ids {
			if id == key.ID {
				return false, strings.Join(ids, ",")
			}
		}
		return len(ids) >= 1, strings.Join(ids, ",")
	})
	if ids := cl.keys(t, user); len(ids) > 2 {
		t.Errorf("user has %d keys during rotation, IAM allows 2", len(ids))
	}

	// Deletion takes back the user, its keys and policy, and the Secret,
	// even with a console password someone gave the user (a login profile
	// makes IAM refuse DeleteUser if forgotten).
	if _, err := cl.admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String(user),
		Password: aws.String("Generated-" + newKeyIDSuffix(newKey.ID) + "-pw1!")}); err != nil {
		t.Fatal(err)
	}
	cr = cl.get(t, "apps", "reader")
	if err := cl.c.Delete(ctx, cr); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the request to be gone", func() (bool, string) {
		err := cl.c.Get(ctx, client.ObjectKeyFromObject(cr), &leashv1.CredentialsRequest{})
		return apierrors.IsNotFound(err), ""
	})
	if _, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)}); apiErrCode(err) != "NoSuchEntity" {
		t.Errorf("user after deletion: %v, want NoSuchEntity", err)
	}
	if s := cl.secret(t, "apps", "reader-creds"); s != nil {
		t.Error("the Secret survived the request's deletion")
	}

	// Every IAM change was an Event on the request, and no Event carries a
	// secret.
	waitFor(t, 30*time.Second, "an Event for each IAM change", func() (bool, string) {
		var events corev1.EventList
		if err := cl.c.List(ctx, &events, client.InNamespace("apps")); err != nil {
			return false, err.Error()
		}
		seen := map[string]bool{}
		for _, e := range events.Items {
			for _, secret := range []string{key.Secret.Reveal(), newKey.Secret.Reveal()} {
				if strings.Contains(e.Message, secret) {
					t.Fatalf("Event %s carries a secret access key", e.Reason)
				}
			}
			if e.InvolvedObject.Name == "reader" {
				seen[e.Reason] = true
			}
		}
		for _, r := range []string{"UserCreated", "PolicyCreated", "AccessKeyCreated", "PolicyUpdated", "AccessKeyRotated", "AccessKeyDeleted", "UserDeleted"} {
			if !seen[r] {
				return false, fmt.Sprintf("no %s Event; seen %v", r, seen)
			}
		}
		return true, ""
	})
}

// TestMintRefusesBadRequests pins that an invalid request reports the entry
// at fault, creates nothing in IAM, and raises one Warning Event.
func TestMintRefusesBadRequests(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	reg := prometheus.NewRegistry()
	o := cl.operatorOptions(operator.Config{})
	o.Registry = reg
	_, _ = cl.runOperator(t, o)
	long := strings.Repeat(`"ec2:DescribeInstanceAttribute", `, 200)
	tests := []struct {
		name, entries, want string
	}{
		{"bad-effect", "- effect: allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n",
			`statementEntries[0].effect: must be "Allow" or "Deny"`},
		{"bad-operator", "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n  policyCondition:\n    StringEqualz:\n      aws:RequestedRegion: eu-north-1\n",
			`statementEntries[0].policyCondition.StringEqualz: unknown condition operator`},
		{"too-big", "- effect: Allow\n  action: [" + long + "\"s3:GetObject\"]\n  resource: \"*\"\n",
			`over IAM's limit of 6144`},
	}
	for _, tt := range tests {
		cl.create(t, request(t, "apps", tt.name, "apps", tt.entries))
	}
	for _, tt := range tests {
		cr := cl.waitCondition(t, "apps", tt.name, leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "InvalidRequest")
		for _, c := range cr.Status.Conditions {
			if c.Type == leashv1.CredentialsProvisionFailure && !strings.Contains(c.Message, tt.want) {
				t.Errorf("%s: message %q, want it to contain %q", tt.name, c.Message, tt.want)
			}
		}
	}
	if users := cl.users(t, "/leash/"); len(users) != 0 {
		t.Errorf("invalid requests created IAM users %v", users)
	}

	// Each request's turn to failing is one Warning Event: the operator
	// syncs a failing request again every Recheck (2 s here), and those
	// resyncs, which find it still failing, add none.
	reconciles := func() float64 {
		var n float64
		for k, v := range gatherMetrics(t, reg) {
			if strings.HasPrefix(k, "leash_reconcile_duration_seconds_count{") {
				n += v
			}
		}
		return n
	}
	seen := reconciles()
	waitFor(t, 30*time.Second, "two more syncs of each failing request", func() (bool, string) {
		n := reconciles()
		return n >= seen+2*float64(len(tests)), fmt.Sprintf("%v syncs, %v before", n, seen)
	})
	warnings := map[string][]corev1.Event{}
	waitFor(t, 10*time.Second, "a Warning Event for each failing request", func() (bool, string) {
		var events corev1.EventList
		if err := cl.c.List(context.Background(), &events, client.InNamespace("apps")); err != nil {
			return false, err.Error()
		}
		warnings = map[string][]corev1.Event{}
		for _, e := range events.Items {
			if e.Type == corev1.EventTypeWarning {
				warnings[e.InvolvedObject.Name] = append(warnings[e.InvolvedObject.Name], e)
			}
		}
		return len(warnings) == len(tests), fmt.Sprintf("Warnings for %d of %d requests", len(warnings), len(tests))
	})
	for _, tt := range tests {
		w := warnings[tt.name]
		// The event recorder folds repeats into one Event with a count.
		if len(w) != 1 || w[0].Count != 1 || w[0].Reason != "InvalidRequest" || !strings.Contains(w[0].Message, tt.want) {
			t.Errorf("%s: Warning Events %+v, want exactly one, reason InvalidRequest, count 1, message with %q", tt.name, w, tt.want)
		}
	}
}

// TestMissingTargetNamespace pins that a request waits, without a crash
// loop or a user, for its Secret's namespace, and proceeds once it exists.
func TestMissingTargetNamespace(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	cl.create(t, request(t, "apps", "later", "not-yet", "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n"))
	cr := cl.waitCondition(t, "apps", "later", leashv1.MissingTargetNamespace, corev1.ConditionTrue, "NamespaceNotFound")
	for _, c := range cr.Status.Conditions {
		if c.Type == leashv1.Ready && (c.Status != corev1.ConditionFalse || !strings.Contains(c.Message, "create it")) {
			t.Errorf("Ready = %s %q, want False with what to do", c.Status, c.Message)
		}
	}
	if users := cl.users(t, "/leash/"); len(users) != 0 {
		t.Errorf("a request without its namespace created IAM users %v", users)
	}
	cl.namespace(t, "not-yet")
	cl.waitReady(t, "apps", "later")
	cl.waitCondition(t, "apps", "later", leashv1.MissingTargetNamespace, corev1.ConditionFalse, "")
	if s := cl.secret(t, "not-yet", "later-creds"); s == nil {
		t.Error("no Secret in the namespace once it exists")
	}
}

// newKeyIDSuffix varies a test password by run without making it a secret.
func newKeyIDSuffix(id string) string { return id[len(id)-4:] }

// TestMintWaitsForKeyPropagation pins that a new key is published only once
// it works: leash local makes keys usable after a delay, as IAM does, and
// the Secret must never hold a key that is refused.
func TestMintWaitsForKeyPropagation(t *testing.T) {
	const delay = 3 * time.Second
	var refused atomic.Int64
	cl := newCluster(t, clusterOptions{faults: faults.Config{PropagationDelay: delay}, afterCall: func(action, code string) {
		// A refused signature is refused before the action is read.
		if code == "InvalidClientTokenId" {
			refused.Add(1)
		}
	}})
	cl.namespace(t, "apps")
	// The administrator's own first key waits the delay too.
	time.Sleep(delay)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	cl.create(t, request(t, "apps", "slow", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	start := time.Now()
	cr := cl.waitReady(t, "apps", "slow")
	if refused.Load() == 0 {
		t.Error("the new key was never refused while it propagated: the proof did not run against the delay")
	}
	key := secretKey(t, cl.secret(t, "apps", "slow-creds"))
	id, err := cl.iamClient(key).CallerIdentity(context.Background())
	if err != nil || id.ARN != cr.Status.Principal {
		t.Errorf("the published key: %q, %v; want it to work as %s", id.ARN, err, cr.Status.Principal)
	}
	t.Logf("Ready %v after the request; the proof was refused %d times while the key propagated", time.Since(start).Round(100*time.Millisecond), refused.Load())
}
