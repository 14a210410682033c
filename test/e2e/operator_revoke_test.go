package e2e

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/revoke"
)

// TestOperatorRevokeAnnotation is the incident responder's path in a
// cluster: kubectl annotate leash.dev/revoke on a minted request retires
// its key at once for a proven new one, and on a role-based request puts
// the session deny on the role; the status and an Event say when and what,
// without a secret; a bad time is refused while the key keeps working, and
// removing the annotation lifts nothing.
func TestOperatorRevokeAnnotation(t *testing.T) {
	kubectl := apiserver.Kubectl(t)
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	ccm := cl.newRole(t, "ccm", "system:serviceaccount:apps:ccm",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	kubeconfig := cl.api.Kubeconfig(t, "responder")
	run := func(args ...string) string {
		t.Helper()
		return kubectlOutput(t, kubectl, append([]string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(filepath.Dir(kubeconfig), "cache")}, args...)...)
	}

	cl.create(t, request(t, "apps", "reader", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cr := cl.waitReady(t, "apps", "reader")
	user := userOf(t, cr)
	old := secretKey(t, cl.secret(t, "apps", "reader-creds"))
	if _, err := cl.iamClient(old).CallerIdentity(ctx); err != nil {
		t.Fatalf("the minted key before the revocation: %v", err)
	}

	// A bad time: refused, named, and the key keeps working.
	run("annotate", "credentialsrequest", "-n", "apps", "reader", operator.AnnotationRevoke+"=yesterday")
	cr = cl.waitCondition(t, "apps", "reader", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "InvalidRevokeTime")
	if msg := conditionOf(cr, leashv1.CredentialsProvisionFailure).Message; !strings.Contains(msg, "metadata.annotations["+operator.AnnotationRevoke+"]") || !strings.Contains(msg, "RFC 3339") {
		t.Errorf("condition message %q: want it to name the annotation and RFC 3339", msg)
	}
	waitFor(t, 30*time.Second, "a Warning Event InvalidRevokeTime", func() (bool, string) {
		w := warningEvents(t, cl, "apps")["reader"]
		for _, e := range w {
			if e.Reason == "InvalidRevokeTime" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", w)
	})
	if got := secretKey(t, cl.secret(t, "apps", "reader-creds")); got.ID != old.ID {
		t.Fatalf("a bad annotation replaced the key %s with %s", old.ID, got.ID)
	}
	if _, err := cl.iamClient(old).CallerIdentity(ctx); err != nil {
		t.Fatalf("the key after a refused annotation: %v, want it still working", err)
	}

	// A time after the key was issued, at the second as IAM keeps it.
	created := keyCreated(t, cl, user, old.ID)
	waitFor(t, 5*time.Second, "a second after the key's creation", func() (bool, string) {
		return time.Now().Truncate(time.Second).After(created), ""
	})
	cutoff := time.Now().UTC().Format(time.RFC3339)
	run("annotate", "--overwrite", "credentialsrequest", "-n", "apps", "reader", operator.AnnotationRevoke+"="+cutoff)
	waitFor(t, 60*time.Second, "status.revokedAt "+cutoff, func() (bool, string) {
		cr = cl.get(t, "apps", "reader")
		return cr.Status.RevokedAt != nil && cr.Status.RevokedAt.UTC().Format(time.RFC3339) == cutoff, fmt.Sprintf("%+v", cr.Status)
	})
	key := secretKey(t, cl.secret(t, "apps", "reader-creds"))
	if key.ID == old.ID {
		t.Fatalf("the Secret still holds %s after the revocation", old.ID)
	}
	if _, err := cl.iamClient(old).CallerIdentity(ctx); apiErrCode(err) != "InvalidClientTokenId" {
		t.Errorf("the revoked key %s: %v, want InvalidClientTokenId", old.ID, err)
	}
	id, err := cl.iamClient(key).CallerIdentity(ctx)
	if err != nil || id.ARN != cr.Status.Principal {
		t.Errorf("the new key acts as %q (%v), want %s", id.ARN, err, cr.Status.Principal)
	}
	if got := cl.keys(t, user); len(got) != 1 || got[0] != key.ID {
		t.Errorf("keys of %s %v, want only %s", user, got, key.ID)
	}
	cr = cl.waitReady(t, "apps", "reader")

	// The status, as kubectl shows it, and the Event say when and why.
	status := run("get", "credentialsrequest", "-n", "apps", "reader", "-o", "jsonpath={.status.revokedAt} {.status.revocation}")
	t.Logf("status: %s", status)
	for _, want := range []string{cutoff, old.ID, key.ID, user, operator.AnnotationRevoke} {
		if !strings.Contains(status, want) {
			t.Errorf("status %q: want it to name %s", status, want)
		}
	}
	var revoked string
	waitFor(t, 30*time.Second, "a CredentialsRevoked Event", func() (bool, string) {
		var events corev1.EventList
		if err := cl.c.List(ctx, &events, client.InNamespace("apps")); err != nil {
			return false, err.Error()
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "reader" && e.Reason == "CredentialsRevoked" {
				revoked = e.Message
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d Events", len(events.Items))
	})
	t.Logf("Event CredentialsRevoked: %s", revoked)
	if !strings.Contains(revoked, old.ID) || !strings.Contains(revoked, cutoff) {
		t.Errorf("Event %q: want it to name %s and %s", revoked, old.ID, cutoff)
	}
	described := run("describe", "credentialsrequest", "-n", "apps", "reader")
	events := run("get", "events", "-n", "apps", "-o", "yaml")
	for what, text := range map[string]string{"status": status, "the Event": revoked, "kubectl describe": described, "the namespace's Events": events} {
		for _, k := range []iamclient.AccessKey{old, key} {
			if strings.Contains(text, k.Secret.Reveal()) {
				t.Errorf("%s holds the secret of key %s", what, k.ID)
			}
		}
	}

	// Removing the annotation lifts nothing and retires nothing more.
	run("annotate", "credentialsrequest", "-n", "apps", "reader", operator.AnnotationRevoke+"-")
	cr = cl.waitReady(t, "apps", "reader")
	if got := secretKey(t, cl.secret(t, "apps", "reader-creds")); got.ID != key.ID || cr.Status.RevokedAt == nil {
		t.Errorf("after removing the annotation: Secret key %s, status.revokedAt %v; want %s kept and the record kept", got.ID, cr.Status.RevokedAt, key.ID)
	}

	// A role-based request: the role gets the session deny.
	sts := stsRequest(t, "apps", "ccm", ccm, "")
	sts.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeManual)}
	cl.create(t, sts)
	cl.waitReady(t, "apps", "ccm")
	cutoff = time.Now().UTC().Format(time.RFC3339)
	run("annotate", "credentialsrequest", "-n", "apps", "ccm", operator.AnnotationRevoke+"="+cutoff)
	var doc string
	waitFor(t, 60*time.Second, "the session deny on role ccm", func() (bool, string) {
		out, err := cl.admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("ccm"), PolicyName: aws.String(revoke.PolicyName)})
		if err != nil {
			return false, err.Error()
		}
		doc, err = url.QueryUnescape(aws.ToString(out.PolicyDocument))
		return err == nil, doc
	})
	if got, err := revoke.ReadDeny(doc); err != nil || got.Cutoff.UTC().Format(time.RFC3339) != cutoff {
		t.Errorf("role ccm's deny cuts off at %v (%v), want %s", got, err, cutoff)
	}
	waitFor(t, 30*time.Second, "status.revokedAt of the role-based request", func() (bool, string) {
		cr = cl.get(t, "apps", "ccm")
		return cr.Status.RevokedAt != nil && strings.Contains(cr.Status.Revocation, ccm), cr.Status.Revocation
	})
}

// keyCreated is when IAM says a user's key was made.
func keyCreated(t *testing.T, cl *cluster, user, id string) time.Time {
	t.Helper()
	out, err := cl.admin.ListAccessKeys(context.Background(), &iam.ListAccessKeysInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range out.AccessKeyMetadata {
		if aws.ToString(k.AccessKeyId) == id {
			return aws.ToTime(k.CreateDate)
		}
	}
	t.Fatalf("user %s has no key %s", user, id)
	return time.Time{}
}
