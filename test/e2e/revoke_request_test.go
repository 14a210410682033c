package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/revoke"
)

// TestRevokeRequestInCluster revokes the user the operator minted for a
// CredentialsRequest on a real API server, found through the request's
// status.principal, and annotates the request with the cutoff for the
// operator.
func TestRevokeRequestInCluster(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	const ns = "revoke-req"
	cl.namespace(t, ns)
	stop, _ := cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	cl.create(t, request(t, ns, "ccm", ns, "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cr := cl.waitReady(t, ns, "ccm")
	stop() // the operator's answer to the annotation is not under test here
	user := userOf(t, cr)
	if len(cl.keys(t, user)) == 0 {
		t.Fatalf("the operator minted no key for %s", user)
	}

	stdout, _ := runLeash(t, "revoke", "--request", ns+"/ccm", "--kubeconfig", cl.api.Kubeconfig(t, "responder"),
		"--endpoint", cl.url, "--credentials-file", cl.local.AdminCredentialsPath(), "--output", "json")
	var rep revoke.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Principal != cr.Status.Principal || rep.Kind != revoke.User {
		t.Errorf("revoked %s %s, want the request's principal %s", rep.Kind, rep.Principal, cr.Status.Principal)
	}
	if keys := cl.keys(t, user); len(keys) != 0 {
		t.Errorf("keys left on %s: %v", user, keys)
	}
	p, err := cl.admin.GetUserPolicy(context.Background(), &iam.GetUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String(revoke.PolicyName)})
	if err != nil {
		t.Fatalf("no deny on %s: %v", user, iamclient.ResultCode(err))
	}
	if cutoff := denyCutoff(t, p.PolicyDocument, nil); !cutoff.Equal(rep.Cutoff) {
		t.Errorf("deny cutoff %v, report %v", cutoff, rep.Cutoff)
	}
	if got := cl.get(t, ns, "ccm").Annotations[operator.AnnotationRevoke]; got != rep.Cutoff.Format(time.RFC3339) {
		t.Errorf("annotation %s = %q, want the cutoff %s", operator.AnnotationRevoke, got, rep.Cutoff.Format(time.RFC3339))
	}
}
