package e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/workload"
)

// TestAdmissionAdmitsTheSTSExample runs examples/ccm-sts as a cluster runs
// it: applied with kubectl to an API server whose ServiceAccount admission
// adds its own kube-api-access token volume to every pod before the
// webhooks run, with the operator in STS mode making the request's role
// and serving the webhooks. The Deployment's pod is admitted, as is a pod
// the mutating webhook wires to the same request, and leash check workload
// finds nothing in either pod as the API server stored it: the webhook and
// the check give the same verdict. The token each admitted pod would be
// given is one AssumeRoleWithWebIdentity takes at leash local; for a
// request naming its own role, the pods of a ServiceAccount its trust does
// not admit are refused, and STS refuses their token too.
func TestAdmissionAdmitsTheSTSExample(t *testing.T) {
	cl := newSTSClusterWith(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	const ns, example, sa = "kube-system", "aws-cloud-controller-manager-sts", "cloud-controller-manager"

	// kube-system fails closed: a pod is stored only if the webhooks
	// answered and allowed it.
	kubeSystem := &corev1.Namespace{}
	if err := cl.c.Get(ctx, client.ObjectKey{Name: ns}, kubeSystem); err != nil {
		t.Fatal(err)
	}
	kubeSystem.Labels["leash.dev/admission"] = "enforce"
	if err := cl.c.Update(ctx, kubeSystem); err != nil {
		t.Fatal(err)
	}
	// The operator serves its webhooks before the example is applied: the
	// CredentialsRequest webhook fails closed.
	wio := cl.api.Env.WebhookInstallOptions
	o := cl.operatorOptions(operator.Config{Mode: leashv1.ModeSTS, OIDCIssuer: stsIssuerURL})
	o.Webhook = &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir, RefuseAt: analyze.High}
	_, _ = cl.runOperator(t, o)
	waitListening(t, wio)
	kubeconfig := cl.api.Kubeconfig(t, "e2e-admin")
	kubectlOutput(t, apiserver.Kubectl(t), "--kubeconfig="+kubeconfig, "--cache-dir="+filepath.Join(filepath.Dir(kubeconfig), "cache"),
		"apply", "-f", filepath.Join("..", "..", "examples", "ccm-sts"))
	cr := cl.waitReady(t, ns, example)

	var d appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aws-cloud-controller-manager"}, &d); err != nil {
		t.Fatal(err)
	}
	np := &networkingv1.NetworkPolicy{}
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aws-cloud-controller-manager-egress"}, np); err != nil {
		t.Fatal(err)
	}
	// admitted creates p, wants the API server's token volume in the
	// stored pod (else this test proves nothing) and no finding from
	// leash check workload on it.
	admitted := func(t *testing.T, p *corev1.Pod) *corev1.Pod {
		t.Helper()
		if err := cl.c.Create(ctx, p); err != nil {
			t.Fatalf("the webhook refused the pod: %v", err)
		}
		got := &corev1.Pod{}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		if apiAccess(got.Spec) == "" || got.Spec.ServiceAccountName != sa {
			t.Errorf("stored pod runs as %q with volumes %+v: want %s and a kube-api-access-* volume from the ServiceAccount admission", got.Spec.ServiceAccountName, got.Spec.Volumes, sa)
		}
		if ids := checkWorkload(t, manifest(got, "Pod", "v1"), manifest(cr.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"),
			manifest(np.DeepCopy(), "NetworkPolicy", "networking.k8s.io/v1")); len(ids) != 0 {
			t.Errorf("leash check workload on the stored pod: %v, want none, as the webhook admitted it", ids)
		}
		return got
	}

	// assumes asks the API server for the token the kubelet would project
	// into the stored pod's volume (its audience, the pod's ServiceAccount)
	// and wants STS at leash local to take it for the request's role.
	assumes := func(t *testing.T, got *corev1.Pod, volume string) {
		t.Helper()
		audience := ""
		for _, v := range got.Spec.Volumes {
			if v.Name != volume || v.Projected == nil {
				continue
			}
			for _, src := range v.Projected.Sources {
				if src.ServiceAccountToken != nil {
					audience = src.ServiceAccountToken.Audience
				}
			}
		}
		if audience == "" {
			t.Fatalf("stored volumes %+v: want %s, a projected service account token", got.Spec.Volumes, volume)
		}
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: aws.Int64(600)}}
		if err := cl.c.SubResource("token").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: got.Spec.ServiceAccountName}}, tr); err != nil {
			t.Fatal(err)
		}
		c := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(cl.url), Credentials: aws.AnonymousCredentials{}})
		out, err := c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(cr.Status.Principal), RoleSessionName: aws.String("pod"), WebIdentityToken: aws.String(tr.Status.Token)})
		if err != nil {
			t.Fatalf("STS refused the admitted pod's token (volume %s, audience %s) for role %s: %v", volume, audience, cr.Status.Principal, err)
		}
		if arn := aws.ToString(out.AssumedRoleUser.Arn); !strings.Contains(arn, ":assumed-role/"+roleName(cr.Status.Principal)+"/pod") {
			t.Errorf("the session is %s, want one of role %s", arn, cr.Status.Principal)
		}
	}

	t.Run("the Deployment's pod, with its own projected token, is admitted, and STS takes that token", func(t *testing.T) {
		got := admitted(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws-cloud-controller-manager-0", Labels: d.Spec.Template.Labels},
			Spec: *d.Spec.Template.Spec.DeepCopy()})
		var own string
		for _, v := range got.Spec.Volumes {
			if v.Projected != nil && !strings.HasPrefix(v.Name, "kube-api-access-") {
				own = v.Name
			}
		}
		assumes(t, got, own)
	})

	t.Run("a pod the mutating webhook wires to the request is admitted, and STS takes its token", func(t *testing.T) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws-cloud-controller-manager-wired", Labels: d.Spec.Template.Labels,
			Annotations: map[string]string{workload.AnnotationCredentials: example}},
			Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "ccm", Image: d.Spec.Template.Spec.Containers[0].Image}}}}
		assumes(t, admitted(t, p), admission.TokenVolume)
	})

	t.Run("a request naming its own role wires the pods of a ServiceAccount the role trusts, and refuses the others, as STS answers their tokens", func(t *testing.T) {
		const provider = "oidc.leash.example/e2e"
		trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + account + `:oidc-provider/` + provider + `"},"Action":"sts:AssumeRoleWithWebIdentity",` +
			`"Condition":{"StringEquals":{"` + provider + `:aud":"sts.amazonaws.com","` + provider + `:sub":"system:serviceaccount:` + ns + `:` + sa + `"}}}]}`
		out, err := cl.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ccm-own"), AssumeRolePolicyDocument: aws.String(trust)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ccm-own"), PolicyName: aws.String("use"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)}); err != nil {
			t.Fatal(err)
		}
		role := aws.ToString(out.Role.Arn)
		own := request(t, ns, "own-role", ns, "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n")
		own.Spec.ProviderSpec.Raw = bytes.Replace(own.Spec.ProviderSpec.Raw, []byte(`"kind":"AWSProviderSpec"`), []byte(`"kind":"AWSProviderSpec","stsIAMRoleARN":"`+role+`"`), 1)
		cl.create(t, own)
		own = cl.waitReady(t, ns, "own-role")
		if own.Status.RoleTrust == "" {
			t.Fatal("status.roleTrust is empty: the operator did not read the role's trust")
		}
		cl.serviceAccount(t, ns, "other")
		pod := func(name, account string) *corev1.Pod {
			return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: d.Spec.Template.Labels,
				Annotations: map[string]string{workload.AnnotationCredentials: "own-role"}},
				Spec: corev1.PodSpec{ServiceAccountName: account, Containers: []corev1.Container{{Name: "ccm", Image: d.Spec.Template.Spec.Containers[0].Image}}}}
		}
		// What STS says of each ServiceAccount's token, at leash local.
		exchange := func(account string) error {
			tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{operator.DefaultAudience}, ExpirationSeconds: aws.Int64(600)}}
			if err := cl.c.SubResource("token").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account}}, tr); err != nil {
				t.Fatal(err)
			}
			c := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(cl.url), Credentials: aws.AnonymousCredentials{}})
			_, err := c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(role), RoleSessionName: aws.String("pod"), WebIdentityToken: aws.String(tr.Status.Token)})
			return err
		}

		trusted := pod("own-role-trusted", sa)
		if err := cl.c.Create(ctx, trusted); err != nil {
			t.Fatalf("the webhook refused the pod of %s, which the role trusts: %v", sa, err)
		}
		if err := exchange(sa); err != nil {
			t.Errorf("STS refused the token of %s, whose pod the webhook admitted: %v", sa, err)
		}
		got := &corev1.Pod{}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(trusted), got); err != nil {
			t.Fatal(err)
		}
		if ids := checkWorkload(t, manifest(got, "Pod", "v1"), manifest(own.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"),
			manifest(np.DeepCopy(), "NetworkPolicy", "networking.k8s.io/v1")); len(ids) != 0 {
			t.Errorf("leash check workload on the admitted pod: %v, want none", ids)
		}

		untrusted := pod("own-role-untrusted", "other")
		err = cl.c.Create(ctx, untrusted.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-012") || !strings.Contains(err.Error(), "role "+role+` does not trust a token of the pod's ServiceAccount "other"`) ||
			!strings.Contains(err.Error(), "system:serviceaccount:"+ns+":other") {
			t.Fatalf("create: %v; want Forbidden with LEASH-WL-012 naming the role, the ServiceAccount and the sub to trust", err)
		}
		if err := exchange("other"); apiErrCode(err) != "AccessDenied" {
			t.Errorf("STS answered the token of other, whose pod the webhook refused, with %v; want AccessDenied", err)
		}
		if ids := checkWorkload(t, manifest(untrusted, "Pod", "v1"), manifest(own.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"),
			manifest(np.DeepCopy(), "NetworkPolicy", "networking.k8s.io/v1")); strings.Join(ids, ",") != "LEASH-WL-012" {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-012", ids)
		}
	})
}
