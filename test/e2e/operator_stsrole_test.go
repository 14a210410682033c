package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/awscreds"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy"
)

// stsIssuerURL is the service-account issuer of the STS tests' API server.
const stsIssuerURL = "https://oidc.leash.example/e2e"

// newSTSCluster is a cluster whose API server signs service-account tokens
// as an issuer made by oidcissuer (the layout leash sts create-issuer
// writes), whose leash local trusts that issuer through its key set, and
// whose account has the IAM OIDC provider for it.
func newSTSCluster(t *testing.T) *cluster {
	t.Helper()
	return newSTSClusterWith(t, clusterOptions{})
}

// newSTSClusterWith is newSTSCluster with more options (webhooks); o's
// issuer and jwks are newSTSCluster's.
func newSTSClusterWith(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "issuer")
	is, _, err := oidcissuer.Create(dir, oidcissuer.CreateOptions{URL: stsIssuerURL, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	kid := is.SigningKey().ID
	o.issuer = &apiserver.Issuer{URL: stsIssuerURL, SigningKeyFile: oidcissuer.PrivateKeyFile(dir, kid), PublicKeyFiles: []string{oidcissuer.PublicKeyFile(dir, kid)}}
	o.jwks = map[string]string{stsIssuerURL: oidcissuer.JWKSFile(dir)}
	cl := newCluster(t, o)
	_, err = cl.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(stsIssuerURL), ClientIDList: []string{operator.DefaultAudience}, ThumbprintList: []string{strings.Repeat("0", 40)}})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// stsRoleRequest is a request in STS mode for the ServiceAccount sa of
// namespace ns, whose Secret is in ns too.
func stsRoleRequest(t *testing.T, ns, name, sa, entries string) *leashv1.CredentialsRequest {
	t.Helper()
	cr := request(t, ns, name, ns, entries)
	cr.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeSTS)}
	cr.Spec.ServiceAccountNames = []string{sa}
	return cr
}

func (cl *cluster) serviceAccount(t *testing.T, ns, name string) {
	t.Helper()
	cl.create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
}

// roleOf reads a role with its tags; ok false when IAM has none of that name.
func (cl *cluster) roleOf(t *testing.T, name string) (*iamtypes.Role, bool) {
	t.Helper()
	out, err := cl.admin.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(name)})
	if apiErrCode(err) == "NoSuchEntity" {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Role, true
}

// roleName is the role's name in a role ARN.
func roleName(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

// TestOperatorSTSRole: on the real API server, a request in STS mode gets a
// role trusted by its ServiceAccount, proven with a TokenRequest token
// before its Secret is written; a pod's SDK path (awscreds.Load on the
// Secret's file and a token the API server issues) acts as the role; a
// statement change changes the role's policy; deleting the request deletes
// the role and its policy; and the sweep deletes a role whose request is gone.
func TestOperatorSTSRole(t *testing.T) {
	cl := newSTSCluster(t)
	ctx := context.Background()
	const ns = "kube-cloud"
	cl.namespace(t, ns)
	cl.serviceAccount(t, ns, "cloud-controller")
	stopFirst, _ := cl.runOperator(t, cl.operatorOptions(operator.Config{OIDCIssuer: stsIssuerURL}))

	cl.create(t, stsRoleRequest(t, ns, "ccm", "cloud-controller", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cr := cl.waitReady(t, ns, "ccm")
	roleARN := cr.Status.Principal
	if !strings.HasPrefix(roleARN, "arn:aws:iam::"+account+":role/leash/e2e/e2e-"+ns+"-ccm-") {
		t.Fatalf("status.principal = %q; want the made role", roleARN)
	}
	name := roleName(roleARN)
	role, ok := cl.roleOf(t, name)
	if !ok {
		t.Fatalf("role %s does not exist", name)
	}
	trust := decodeDoc(t, aws.ToString(role.AssumeRolePolicyDocument))
	wantTrust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + account +
		`:oidc-provider/oidc.leash.example/e2e"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{` +
		`"oidc.leash.example/e2e:sub":"system:serviceaccount:` + ns + `:cloud-controller","oidc.leash.example/e2e:aud":"sts.amazonaws.com"}}}]}`
	sameDoc(t, "trust", trust, wantTrust, policy.Trust)
	checkRolePolicy(t, cl, name, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances"],"Resource":"*"}]}`)

	// The pod's path: the Secret's credentials file, a token the API
	// server issues for the ServiceAccount, the SDK's web-identity chain.
	s := cl.secret(t, ns, "ccm-creds")
	if s == nil {
		t.Fatal("no Secret")
	}
	podDir := t.TempDir()
	tokenFile := filepath.Join(podDir, "token")
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"sts.amazonaws.com"}, ExpirationSeconds: aws.Int64(600)}}
	if err := cl.c.SubResource("token").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cloud-controller"}}, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	file := strings.Replace(string(s.Data[operator.SecretKeyCredentials]), leashv1.DefaultCloudTokenPath, tokenFile, 1)
	credsFile := filepath.Join(podDir, "credentials")
	if err := os.WriteFile(credsFile, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	who := podIdentity(t, cl, credsFile)
	if !strings.HasPrefix(who, "arn:aws:sts::"+account+":assumed-role/"+name+"/") {
		t.Errorf("the pod acts as %q; want a session of role %s", who, name)
	}

	// A statement change changes the role's policy.
	cur := cl.get(t, ns, "ccm")
	updated := request(t, ns, "ccm", ns, "- effect: Allow\n  action: [\"ec2:DescribeInstances\", \"ec2:CreateTags\"]\n  resource: \"*\"\n")
	cur.Spec.ProviderSpec = updated.Spec.ProviderSpec
	if err := cl.c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the role's policy to follow the statement change", func() (bool, string) {
		doc, err := cl.rolePolicy(name)
		return err == nil && strings.Contains(doc, "ec2:CreateTags"), doc
	})

	// Deletion takes the role, its policy and the Secret.
	if err := cl.c.Delete(ctx, cl.get(t, ns, "ccm")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the role to be deleted with its request", func() (bool, string) {
		_, ok := cl.roleOf(t, name)
		return !ok && cl.secret(t, ns, "ccm-creds") == nil, ""
	})

	// The sweep: a role leash made for this cluster whose request is gone.
	orphan := "e2e-" + ns + "-gone-orphan"
	_, err := cl.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(orphan), Path: aws.String("/leash/e2e/"),
		AssumeRolePolicyDocument: aws.String(wantTrust), Tags: []iamtypes.Tag{
			{Key: aws.String(operator.TagCluster), Value: aws.String("e2e")},
			{Key: aws.String(operator.TagRequestUID), Value: aws.String("uid-of-a-deleted-request")},
			{Key: aws.String(operator.TagRequest), Value: aws.String(ns + "/gone")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(orphan), PolicyName: aws.String(orphan + "-policy"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	stopFirst()
	stop, _ := cl.runOperator(t, func() operator.Options {
		o := cl.operatorOptions(operator.Config{OIDCIssuer: stsIssuerURL})
		o.SweepInterval, o.SweepGrace = time.Second, time.Millisecond
		return o
	}())
	defer stop()
	waitFor(t, 30*time.Second, "the sweep to delete role "+orphan, func() (bool, string) {
		_, ok := cl.roleOf(t, orphan)
		return !ok, ""
	})
}

func (cl *cluster) rolePolicy(role string) (string, error) {
	out, err := cl.admin.GetRolePolicy(context.Background(), &iam.GetRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(role + "-policy")})
	if err != nil {
		return "", err
	}
	return url.QueryUnescape(aws.ToString(out.PolicyDocument))
}

func checkRolePolicy(t *testing.T, cl *cluster, role, want string) {
	t.Helper()
	doc, err := cl.rolePolicy(role)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "policy of "+role, doc, want, policy.Identity)
}

func sameDoc(t *testing.T, what, have, want string, kind policy.Kind) {
	t.Helper()
	h, err := policy.Parse([]byte(have), kind)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, have)
	}
	w, err := policy.Parse([]byte(want), kind)
	if err != nil {
		t.Fatal(err)
	}
	if !policy.Equivalent(h, w) {
		got, _ := json.Marshal(json.RawMessage(have))
		t.Errorf("%s = %s\nwant %s", what, got, want)
	}
}

// podIdentity loads credentials as a pod's SDK does, from the credentials
// file, and asks STS who they are.
func podIdentity(t *testing.T, cl *cluster, credsFile string) string {
	t.Helper()
	cfg, _, err := awscreds.Load(context.Background(), awscreds.WithCredentialsFile(credsFile), awscreds.WithEndpoint(cl.url),
		awscreds.WithLoadOptions(config.WithRegion("us-east-1")))
	if err != nil {
		t.Fatalf("awscreds.Load: %v", err)
	}
	out, err := sts.NewFromConfig(cfg, func(o *sts.Options) { o.BaseEndpoint = aws.String(cl.url) }).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity with the pod's credentials: %v", err)
	}
	return aws.ToString(out.Arn)
}

// decodeDoc is a policy document as IAM returns it, URL-encoded.
func decodeDoc(t *testing.T, s string) string {
	t.Helper()
	d, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
