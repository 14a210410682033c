package operator

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	leashv1 "leash.dev/leash/api/v1"
)

// TestSTSRoleTrustIsJudged pins that a request naming its own STS role
// gets the role's trust policy in status.roleTrust, which admission judges
// pods by, and a Ready of False, reason RoleTrustRefuses, when the role
// does not trust a ServiceAccount the request lists (for the operator's
// audience); the Secret is written either way, as the role is the
// administrator's to fix. A web identity token's sub is
// system:serviceaccount:NAMESPACE:NAME:
// https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html
func TestSTSRoleTrustIsJudged(t *testing.T) {
	e := newEnv(t, envOptions{})
	const provider = "oidc.example.com/cluster"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + e.account + `:oidc-provider/` + provider + `"},"Action":"sts:AssumeRoleWithWebIdentity",` +
		`"Condition":{"StringEquals":{"` + provider + `:aud":"sts.amazonaws.com","` + provider + `:sub":"system:serviceaccount:apps:web"}}}]}`
	r, err := e.sdk(t).CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("web"), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.admin.PutRolePolicy(e.ctx, "web", "use", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	cr := mintRequest(t, "web", allow("*", "iam:ListUsers"))
	withMode(cr, leashv1.ModeManual)
	setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = aws.ToString(r.Role.Arn) })

	cr.Spec.ServiceAccountNames = []string{"web"}
	e.ready(t, cr)
	if cr.Status.RoleTrust != trust {
		t.Errorf("status.roleTrust %q, want the role's trust policy %q", cr.Status.RoleTrust, trust)
	}

	cr.Spec.ServiceAccountNames = []string{"web", "worker"}
	cr.Generation++
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Failure
	if f == nil || f.Reason != "RoleTrustRefuses" || !strings.Contains(f.Message, `spec.serviceAccountNames[1]: role `+aws.ToString(r.Role.Arn)+` does not trust a token of ServiceAccount apps/worker for audience "sts.amazonaws.com"`) ||
		!strings.Contains(f.Message, `system:serviceaccount:apps:worker`) || strings.Contains(f.Message, "apps/web") {
		t.Errorf("failure %+v; want RoleTrustRefuses naming worker, its sub and the fix, and not web", f)
	}
	if !out.Provisioned || cr.Status.RoleTrust != trust {
		t.Errorf("provisioned %v, status.roleTrust %q: the Secret and the trust are kept for the administrator to fix the role", out.Provisioned, cr.Status.RoleTrust)
	}
}
