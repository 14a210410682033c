package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// refusal is a request the operator must refuse before any IAM call.
type refusal struct {
	name    string
	cfg     Config
	request func(t *testing.T) *leashv1.CredentialsRequest
	reason  string
	// want are the parts of the message: the field, the fix.
	want []string
}

func TestRefusedBeforeAnyIAMCall(t *testing.T) {
	tests := []refusal{
		{"a misspelt action is refused naming its entry and index, with the did-you-mean", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "typo", allow("*", "ec2:DescribeImages"), allow("*", "ec2:DescribeRegions", "ec2:DescribeInstancez"))
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries[1].action[1]: ", `"ec2:DescribeInstancez" is not an action of service ec2`, "did you mean ec2:DescribeInstances"}},
		{"an unknown service prefix is refused with the did-you-mean", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "svc", allow("*", "ecc2:DescribeInstances"))
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries[0].action: ", `"ecc2" is not a service prefix`, "did you mean ec2:DescribeInstances"}},
		{"a pattern that matches no action is refused", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "pattern", allow("*", "ec2:Describe*", "ec2:Descrbe*"))
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries[0].action[1]: ", `"ec2:Descrbe*" matches no action`}},
		{"a resource no action of the entry accepts is refused naming the entry's resource", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "bucket", allow("arn:aws:s3:::reports", "s3:GetObject"))
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries[0].resource: ", `"arn:aws:s3:::reports" is of no resource type that s3:GetObject accepts`}},
		{"an ARN of no type of a merged-prefix service is still refused", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "elb", allow("arn:aws:elasticloadbalancing:*:*:targetgrup/*/*", "elasticloadbalancing:AddTags"))
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries[0].resource: "}},
		{"many misspelt actions spell out the first five and count the rest", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "many", allow("*", "ec2:Describe1", "ec2:Describe2", "ec2:Describe3", "ec2:Describe4", "ec2:Describe5", "ec2:Describe6", "ec2:Describe7", "ec2:Describe8"))
		}, "InvalidRequest", []string{"statementEntries[0].action[4]: ", "; and 3 more (checked before any IAM call)"}},
		{"a deny-only request is refused: it would mint a user allowed nothing", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "deny", leashv1.StatementEntry{Effect: "Deny", Action: []string{"ec2:*"}, Resource: "*"})
		}, "NothingAllowed", []string{"spec.providerSpec.statementEntries: every entry is a Deny", "add an Allow entry"}},
		{"an empty request is refused", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "empty")
		}, "InvalidRequest", []string{"spec.providerSpec.statementEntries: is empty", "list the IAM statements"}},
		{"a ${NAMESPACE} placeholder in secretRef.namespace is an unrendered template, not a namespace to create", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			cr := mintRequest(t, "tmpl", allow("*", "ec2:DescribeInstances"))
			cr.Spec.SecretRef.Namespace = "${NAMESPACE}"
			return cr
		}, "UnrenderedTemplate", []string{"spec.secretRef.namespace: ", "the manifest is a template; replace ${NAMESPACE}"}},
		{"a placeholder in an entry's resource is an unrendered template", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			return mintRequest(t, "tmplres", allow("arn:aws:s3:::${BUCKET}/*", "s3:GetObject"))
		}, "UnrenderedTemplate", []string{"spec.providerSpec.statementEntries[0].resource: ", "replace ${BUCKET}"}},
		{"stsIAMRoleARN in Mint mode is refused, saying how to switch to Manual or remove it", Config{}, func(t *testing.T) *leashv1.CredentialsRequest {
			cr := mintRequest(t, "stsmint", allow("*", "ec2:DescribeInstances"))
			setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = "arn:aws:iam::123456789012:role/reader" })
			return cr
		}, "InvalidRequest", []string{"spec.providerSpec.stsIAMRoleARN: ", "honoured in Manual mode only", "leash.dev/mode: Manual", "remove stsIAMRoleARN"}},
		{"a request's rotate-after shorter than the rotation grace is refused naming both", Config{RotationGrace: 10 * time.Minute}, func(t *testing.T) *leashv1.CredentialsRequest {
			cr := mintRequest(t, "rotate", allow("*", "ec2:DescribeInstances"))
			cr.Annotations = map[string]string{AnnotationRotateAfter: "5m"}
			return cr
		}, "InvalidRequest", []string{"metadata.annotations[leash.dev/rotate-after]: 5m0s is shorter than the operator's rotation grace of 10m0s"}},
	}
	checkRefusals(t, tests)
}

// checkRefusals syncs each case's request and fails unless it is refused
// with the case's reason and message, a Warning Event, no IAM user and no
// Secret.
func checkRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{cfg: tt.cfg})
			cr := tt.request(t)
			before := cr.Status.DeepCopy()
			out, err := e.sync(t, e.p, cr)
			e.p.warnIfTurnedFailing(cr, before)
			if err != nil {
				t.Fatalf("sync: %v; want a failure condition, not an error to retry", err)
			}
			f := out.Failure
			if f == nil || f.Type != leashv1.CredentialsProvisionFailure || f.Reason != tt.reason {
				t.Fatalf("failure %+v; want %s/%s", f, leashv1.CredentialsProvisionFailure, tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message %q does not say %q", f.Message, w)
				}
			}
			if c := findCondition(&cr.Status, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse || c.Reason != tt.reason {
				t.Errorf("Ready condition %+v; want False with reason %s", c, tt.reason)
			}
			if got := e.events.reasons(corev1.EventTypeWarning); len(got) != 1 || got[0] != tt.reason {
				t.Errorf("Warning events %v; want one, %s", got, tt.reason)
			}
			users, err := e.admin.ListUsers(e.ctx, userPath("unit"))
			if err != nil {
				t.Fatal(err)
			}
			if len(users) != 0 {
				t.Errorf("IAM holds %d minted user(s) after a refused request, want none: %+v", len(users), users)
			}
			if s := e.secret(t, cr); s != nil {
				t.Errorf("Secret %s/%s written for a refused request", s.Namespace, s.Name)
			}
		})
	}
}

func TestAcceptedDespiteCatalogDoubts(t *testing.T) {
	tests := []struct {
		name    string
		entries []leashv1.StatementEntry
		// warning is a part of the PolicyWarnings message; "" wants none.
		warning string
	}{
		{"a pattern that matches actions is fine", []leashv1.StatementEntry{allow("*", "ec2:Describe*")}, ""},
		{"a policy variable is not a template placeholder", []leashv1.StatementEntry{allow("arn:aws:iam::*:user/${aws:username}", "iam:GetUser")}, ""},
		{"a condition key none of the entry's actions carries is a warning, not a refusal", []leashv1.StatementEntry{{Effect: "Allow", Action: []string{"ec2:DescribeInstances"}, Resource: "*",
			PolicyCondition: leashv1.IAMPolicyCondition{"StringEquals": {"s3:prefix": "home/"}}}},
			"spec.providerSpec.statementEntries[0].policyCondition.StringEquals.s3:prefix: condition key s3:prefix applies to none of the statement's actions"},
		{"a load balancer v2 ARN for elasticloadbalancing:AddTags, which the catalog merges with the classic API, is neither refused nor warned of",
			[]leashv1.StatementEntry{allow("arn:aws:elasticloadbalancing:*:*:targetgroup/*/*", "elasticloadbalancing:AddTags")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			cr := mintRequest(t, "fine", tt.entries...)
			before := cr.Status.DeepCopy()
			out := e.ready(t, cr)
			e.p.warnIfTurnedFailing(cr, before)
			e.actsAs(t, e.publishedKey(t, cr), out.Principal)
			c := findCondition(&cr.Status, leashv1.PolicyWarnings)
			warned := e.events.reasons(corev1.EventTypeWarning)
			if tt.warning == "" {
				if c != nil || len(warned) != 0 {
					t.Errorf("PolicyWarnings %+v, Warning events %v; want neither", c, warned)
				}
				return
			}
			if c == nil || c.Status != corev1.ConditionTrue || !strings.Contains(c.Message, tt.warning) {
				t.Errorf("PolicyWarnings %+v; want True saying %q", c, tt.warning)
			}
			if len(warned) != 1 || warned[0] != "PolicyWarnings" {
				t.Errorf("Warning events %v; want one, PolicyWarnings", warned)
			}
			if r := findCondition(&cr.Status, leashv1.Ready); r == nil || r.Status != corev1.ConditionTrue {
				t.Errorf("Ready %+v; want True beside the warning", r)
			}
		})
	}
}

func TestManualRoleMustExist(t *testing.T) {
	e := newEnv(t, envOptions{cfg: Config{Mode: leashv1.ModeManual}})
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + e.account +
		`:oidc-provider/oidc.unit.example.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}`
	created, err := e.sdk(t).CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String("reader"), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.sdk(t).PutRolePolicy(e.ctx, &iam.PutRolePolicyInput{RoleName: aws.String("reader"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	role := func(t *testing.T, name, arn string) *leashv1.CredentialsRequest {
		cr := mintRequest(t, name, allow("*", "ec2:DescribeInstances"))
		setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = arn })
		return cr
	}

	t.Run("a role IAM does not have is RoleNotFound naming stsIAMRoleARN, no Secret is written, and no principal is shown", func(t *testing.T) {
		cr := role(t, "missing", "arn:aws:iam::"+e.account+":role/no-such-role")
		out, err := e.sync(t, e.p, cr)
		if err != nil {
			t.Fatalf("sync: %v; want a failure condition", err)
		}
		f := out.Failure
		if f == nil || f.Type != leashv1.InsufficientCloudCredentials || f.Reason != "RoleNotFound" ||
			!strings.Contains(f.Message, "spec.providerSpec.stsIAMRoleARN: role arn:aws:iam::"+e.account+":role/no-such-role does not exist") ||
			!strings.Contains(f.Message, "create the role") {
			t.Fatalf("failure %+v; want InsufficientCloudCreds/RoleNotFound naming the field and the fix", f)
		}
		if out.Provisioned || e.secret(t, cr) != nil {
			t.Errorf("provisioned %v, Secret %v; want no Secret for a role that does not exist", out.Provisioned, e.secret(t, cr))
		}
		var table strings.Builder
		if err := WriteTable(&table, []Applied{{Request: "apps/missing", Outcome: out}}); err != nil {
			t.Fatal(err)
		}
		row := strings.Fields(strings.Split(table.String(), "\n")[1]) // REQUEST MODE PRINCIPAL ...
		if out.Principal != "" || cr.Status.Principal != "" || len(row) < 3 || row[2] != "-" {
			t.Errorf("principal %q, status.principal %q, table\n%s\nwant no principal for a role that does not exist (the PRINCIPAL column shows only one that exists)", out.Principal, cr.Status.Principal, table.String())
		}
	})
	t.Run("an existing role with the permissions is Ready with its web-identity Secret", func(t *testing.T) {
		cr := role(t, "present", aws.ToString(created.Role.Arn))
		out := e.ready(t, cr)
		if out.Principal != aws.ToString(created.Role.Arn) || e.secret(t, cr) == nil {
			t.Errorf("principal %s, Secret %v; want the role and its Secret", out.Principal, e.secret(t, cr))
		}
	})
	t.Run("an error reading the role other than NoSuchEntity is retried, not taken as success", func(t *testing.T) {
		down := func(key iamclient.AccessKey) *iamclient.Client {
			return iamclient.New(iamclient.Config{Endpoint: e.local.URL, Credentials: key.Provider(),
				HTTPClient: &http.Client{Transport: roleReadsFail{http.DefaultTransport}}, MaxAttempts: 2})
		}
		p, err := NewProvisioner(Config{Mode: leashv1.ModeManual, ClusterName: "unit"}, FileRoot{Path: e.local.AdminCredentialsPath()}, down, e.cluster, e.events)
		if err != nil {
			t.Fatal(err)
		}
		cr := role(t, "outage", aws.ToString(created.Role.Arn))
		out, err := e.sync(t, p, cr)
		if err == nil || out.Provisioned || e.secret(t, cr) != nil {
			t.Fatalf("error %v, provisioned %v, Secret %v; want an error to retry and no Secret", err, out.Provisioned, e.secret(t, cr))
		}
		if c := findCondition(&cr.Status, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse {
			t.Errorf("Ready %+v; want False while the role cannot be read", c)
		}
	})
}

// roleReadsFail breaks the connection of every IAM call about a role, as
// a network outage does, and passes the others.
type roleReadsFail struct{ base http.RoundTripper }

func (r roleReadsFail) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(body, []byte("RoleName=")) {
			return nil, errors.New("connection reset by peer")
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	return r.base.RoundTrip(req)
}

// setSpec changes the request's providerSpec beyond its entries.
func setSpec(t *testing.T, cr *leashv1.CredentialsRequest, change func(*leashv1.AWSProviderSpec)) {
	t.Helper()
	spec, err := awsSpec(cr)
	if err != nil {
		t.Fatal(err)
	}
	change(spec)
	cr.Generation++
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cr.Spec.ProviderSpec.Raw = raw
}

func TestConfigRefusesRotationShorterThanGrace(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantError string
	}{
		{"rotate-after shorter than the grace fails at start naming both flags", Config{RotateAfter: 5 * time.Minute, RotationGrace: 10 * time.Minute},
			"--rotate-after 5m0s (or the ConfigMap's rotateAfter) is shorter than --rotation-grace 10m0s"},
		{"rotate-after equal to the grace is fine", Config{RotateAfter: 10 * time.Minute, RotationGrace: 10 * time.Minute}, ""},
		{"no rotation with a grace is fine", Config{RotationGrace: 10 * time.Minute}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Mode, tt.cfg.ClusterName = leashv1.ModeMint, "unit"
			err := tt.cfg.Validate()
			if tt.wantError == "" && err != nil || tt.wantError != "" && (err == nil || !strings.Contains(err.Error(), tt.wantError)) {
				t.Errorf("Validate: %v; want %q", err, tt.wantError)
			}
		})
	}
}

// BenchmarkCheckRequest is the cost the checks add to every sync, for a
// request of the cloud controller manager's size (46 actions).
func BenchmarkCheckRequest(b *testing.B) {
	crs, err := ReadRequests("../../examples/ccm")
	if err != nil {
		b.Fatal(err)
	}
	cr := crs[0]
	spec, err := awsSpec(cr)
	if err != nil {
		b.Fatal(err)
	}
	p := &Provisioner{cfg: Config{Mode: leashv1.ModeMint}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.checkRequest(cr, spec, leashv1.ModeMint); err != nil {
			b.Fatal(err)
		}
	}
}
