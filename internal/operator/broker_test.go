package operator

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/policy"
)

// brokerEnv is an env in Broker mode whose broker is an IAM user made in
// leash local, with its key; its own policy allows it every STS call, so
// that only the made role's trust decides what it may assume.
func brokerEnv(t *testing.T) (*env, string, iamclient.AccessKey) {
	t.Helper()
	e := newEnv(t, envOptions{})
	arn, key := e.stsUser(t, "leash-broker")
	e.p = e.provisioner(t, Config{Mode: leashv1.ModeBroker, BrokerPrincipal: arn})
	return e, arn, key
}

// stsUser makes an IAM user allowed every STS call by its own policy, and
// a key of it.
func (e *env) stsUser(t *testing.T, name string) (string, iamclient.AccessKey) {
	t.Helper()
	u, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: name, Path: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.admin.PutUserPolicy(e.ctx, name, "sts", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:*","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	key, _, err := e.admin.CreateAccessKey(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ARN, key
}

// assumeTagged calls sts:AssumeRole with key, passing tags as session tags.
func (e *env) assumeTagged(t *testing.T, key iamclient.AccessKey, role string, tags map[string]string) (*sts.AssumeRoleOutput, error) {
	t.Helper()
	c := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.local.URL), Credentials: key.Provider()})
	in := &sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String("pod")}
	for k, v := range tags {
		in.Tags = append(in.Tags, ststypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	return c.AssumeRole(e.ctx, in)
}

func brokerRequest(t *testing.T, name string, entries ...leashv1.StatementEntry) *leashv1.CredentialsRequest {
	cr := stsRequest(t, name, []string{"cloud-controller"}, entries...)
	cr.Annotations = map[string]string{AnnotationMode: string(leashv1.ModeBroker)}
	return cr
}

// wantBrokerTrust is the trust the made role must have for namespace apps.
func wantBrokerTrust(brokerARN string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + brokerARN + `"},` +
		`"Action":["sts:AssumeRole","sts:TagSession"],"Condition":{"StringEquals":{"aws:RequestTag/kubernetes-namespace":"apps"}}}]}`
}

// TestBrokerRoleMade: a Broker request gets the role STS mode would make,
// with the broker's trust, its ownership tags, exactly the requested
// policy and a one-hour session limit; it is Ready with mode Broker and
// the role as principal, and no Secret is written.
func TestBrokerRoleMade(t *testing.T) {
	e, brokerARN, _ := brokerEnv(t)
	cr := brokerRequest(t, "ccm", allow("*", "ec2:DescribeInstances"))
	out := e.ready(t, cr)
	name := userName("unit", "apps", "ccm", "uid-ccm")
	arn := "arn:aws:iam::" + e.account + ":role/leash/unit/" + name
	if out.Principal != arn || out.Mode != leashv1.ModeBroker {
		t.Fatalf("principal %q, mode %q; want %q, Broker", out.Principal, out.Mode, arn)
	}
	role, err := e.admin.GetRole(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "trust", role.Trust, wantBrokerTrust(brokerARN), policy.Trust)
	if role.MaxSessionDuration != time.Hour {
		t.Errorf("MaxSessionDuration = %v; want 1h", role.MaxSessionDuration)
	}
	if role.Tags[TagRequestUID] != "uid-ccm" || role.Tags[TagCluster] != "unit" || role.Tags[TagRequest] != "apps/ccm" {
		t.Errorf("tags = %v; want the request's UID, name and the cluster", role.Tags)
	}
	doc, err := e.admin.RolePolicy(e.ctx, name, policyName(name))
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "policy", doc, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances"],"Resource":"*"}]}`, policy.Identity)
	if s := e.secret(t, cr); s != nil {
		t.Errorf("Broker mode wrote Secret %s/%s; want none", s.Namespace, s.Name)
	}
	if cr.Status.Mode != leashv1.ModeBroker || cr.Status.Principal != arn {
		t.Errorf("status.mode %q, status.principal %q; want Broker, %s", cr.Status.Mode, cr.Status.Principal, arn)
	}
	ready := findCondition(&cr.Status, leashv1.Ready)
	if ready == nil || ready.Status != corev1.ConditionTrue || !strings.Contains(ready.Message, "Proven by leash's engine, not by a session") {
		t.Errorf("Ready = %+v; want True, saying the engine proved the role", ready)
	}
	if !slices.Contains(e.events.reasons("Normal"), "RoleCreated") {
		t.Errorf("events %v lack RoleCreated", e.events.reasons("Normal"))
	}
	// A second sync changes nothing.
	before := len(e.events.reasons("Normal"))
	e.ready(t, cr)
	if after := e.events.reasons("Normal"); len(after) != before {
		t.Errorf("a second sync recorded %v; want nothing new", after[before:])
	}
}

// TestBrokerRoleTrustForReal: leash local decides AssumeRole on the made
// role as STS does. The broker passing its pod's namespace as the
// kubernetes-namespace session tag gets a session; with another
// namespace's tag, or no tag, it is refused, and another principal is
// refused with the right tag. A trust condition on aws:RequestTag is
// checked against the tags passed in the AssumeRole call, which needs
// sts:TagSession: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
func TestBrokerRoleTrustForReal(t *testing.T) {
	e, _, brokerKey := brokerEnv(t)
	_, strangerKey := e.stsUser(t, "someone-else")
	cr := brokerRequest(t, "ccm", allow("*", "ec2:DescribeInstances"))
	role := e.ready(t, cr).Principal
	for _, c := range []struct {
		name  string
		key   iamclient.AccessKey
		tags  map[string]string
		allow bool
	}{
		{"the broker with the request's namespace tag gets a session", brokerKey, map[string]string{broker.TagNamespace: "apps", broker.TagServiceAccount: "cloud-controller"}, true},
		{"the broker with another namespace's tag is refused", brokerKey, map[string]string{broker.TagNamespace: "other"}, false},
		{"the broker without session tags is refused", brokerKey, nil, false},
		{"another principal with the request's namespace tag is refused", strangerKey, map[string]string{broker.TagNamespace: "apps"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := e.assumeTagged(t, c.key, role, c.tags)
			if c.allow {
				if err != nil {
					t.Fatalf("AssumeRole: %v; want a session", err)
				}
				want := "arn:aws:sts::" + e.account + ":assumed-role/" + userName("unit", "apps", "ccm", "uid-ccm") + "/pod"
				if got := aws.ToString(out.AssumedRoleUser.Arn); got != want {
					t.Errorf("session %s; want %s", got, want)
				}
				return
			}
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
				t.Errorf("AssumeRole: %v; want AccessDenied", err)
			}
		})
	}
}

// TestBrokerPrincipalMissing: Broker mode without --broker-principal fails
// with its condition, naming the flag, before anything is made.
func TestBrokerPrincipalMissing(t *testing.T) {
	e := newEnv(t, envOptions{cfg: Config{Mode: leashv1.ModeBroker}})
	cr := brokerRequest(t, "ccm", allow("*", "ec2:DescribeInstances"))
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure == nil || out.Failure.Reason != ReasonBrokerPrincipalMissing || !strings.Contains(out.Failure.Message, "--broker-principal ARN") {
		t.Fatalf("failure %+v; want %s naming --broker-principal", out.Failure, ReasonBrokerPrincipalMissing)
	}
	if _, err := e.admin.GetRole(e.ctx, userName("unit", "apps", "ccm", "uid-ccm")); !iamclient.IsNotFound(err) {
		t.Errorf("GetRole: %v; want NoSuchEntity, as nothing is made", err)
	}
	if c := findCondition(&cr.Status, leashv1.CredentialsProvisionFailure); c == nil || c.Status != corev1.ConditionTrue || c.Reason != ReasonBrokerPrincipalMissing {
		t.Errorf("CredentialsProvisionFailure = %+v; want True with %s", c, ReasonBrokerPrincipalMissing)
	}
}

// TestBrokerRoleLifecycle: a statement change rewrites the role's policy,
// leash.dev/revoke puts the session deny on the role, and Remove deletes
// the role.
func TestBrokerRoleLifecycle(t *testing.T) {
	e, _, _ := brokerEnv(t)
	cr := brokerRequest(t, "ccm", allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	name := userName("unit", "apps", "ccm", "uid-ccm")

	setEntries(t, cr, allow("*", "ec2:DescribeInstances", "ec2:CreateTags"))
	e.ready(t, cr)
	doc, err := e.admin.RolePolicy(e.ctx, name, policyName(name))
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "updated policy", doc, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances","ec2:CreateTags"],"Resource":"*"}]}`, policy.Identity)

	e.clock.advance(time.Minute)
	cutoff := e.clock.Now().Truncate(time.Second)
	annotateRevoke(cr, formatTime(cutoff))
	e.clock.advance(time.Minute)
	e.ready(t, cr)
	deny, err := e.admin.RolePolicy(e.ctx, name, revoke.PolicyName)
	if err != nil {
		t.Fatalf("the role has no %s after the revocation: %v", revoke.PolicyName, err)
	}
	if got, err := denyCutoff(deny); err != nil || !got.Equal(cutoff) {
		t.Errorf("the deny cuts off at %v (%v), want %v", got, err, cutoff)
	}
	if cr.Status.RevokedAt == nil || !cr.Status.RevokedAt.Time.Equal(cutoff) || !strings.Contains(cr.Status.Revocation, name) {
		t.Errorf("status.revokedAt %v, revocation %q; want %v and the role", cr.Status.RevokedAt, cr.Status.Revocation, cutoff)
	}

	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.GetRole(e.ctx, name); !iamclient.IsNotFound(err) {
		t.Errorf("GetRole after Remove: %v; want NoSuchEntity", err)
	}
	if !slices.Contains(e.events.reasons("Normal"), "RoleDeleted") {
		t.Errorf("events %v lack RoleDeleted", e.events.reasons("Normal"))
	}
}

// TestBrokerModeSwitch: STS and Broker mode make the same role, so a
// request switched from one to the other keeps it and only its trust
// changes; the web-identity Secret STS mode wrote stays the request's.
func TestBrokerModeSwitch(t *testing.T) {
	e, _ := stsEnv(t, false)
	brokerARN, _ := e.stsUser(t, "leash-broker")
	e.p = e.provisioner(t, Config{Mode: leashv1.ModeSTS, OIDCIssuer: testIssuer, ProofTimeout: 2 * time.Second, BrokerPrincipal: brokerARN})
	cr := stsRequest(t, "ccm", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
	stsOut := e.ready(t, cr)
	cr.Annotations = map[string]string{AnnotationMode: string(leashv1.ModeBroker)}
	out := e.ready(t, cr)
	if out.Principal != stsOut.Principal {
		t.Errorf("principal %q after the switch; want the same role %q", out.Principal, stsOut.Principal)
	}
	role, err := e.admin.GetRole(e.ctx, userName("unit", "apps", "ccm", "uid-ccm"))
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "trust after the switch", role.Trust, wantBrokerTrust(brokerARN), policy.Trust)
	if !slices.Contains(e.events.reasons("Normal"), "RoleUpdated") {
		t.Errorf("events %v lack RoleUpdated", e.events.reasons("Normal"))
	}
}

// TestBrokerTrustProblems: the engine's proof finds every way a trust may
// hand the role to someone else, or to the broker for another namespace.
func TestBrokerTrustProblems(t *testing.T) {
	const (
		role   = "arn:aws:iam::111122223333:role/leash/unit/r"
		broker = "arn:aws:iam::111122223333:user/leash-broker"
	)
	made, _, err := brokerTrust(broker, "apps")
	if err != nil {
		t.Fatal(err)
	}
	stmt := func(principal, cond string) string {
		s := `{"Effect":"Allow","Principal":{"AWS":"` + principal + `"},"Action":["sts:AssumeRole","sts:TagSession"]`
		if cond != "" {
			s += `,"Condition":` + cond
		}
		return s + "}"
	}
	doc := func(stmts ...string) string {
		return `{"Version":"2012-10-17","Statement":[` + strings.Join(stmts, ",") + `]}`
	}
	apps := `{"StringEquals":{"aws:RequestTag/kubernetes-namespace":"apps"}}`
	for _, c := range []struct {
		name, trust, want string
	}{
		{"the trust leash makes passes", made, ""},
		{"a role broker passes through its sessions", mustBrokerTrust(t, "arn:aws:iam::111122223333:role/system/leash-broker"), ""},
		{"no namespace condition admits the broker without the tag", doc(stmt(broker, "")), "without session tag"},
		{"a wildcard namespace admits another namespace", doc(stmt(broker, `{"StringLike":{"aws:RequestTag/kubernetes-namespace":"*"}}`)), "another namespace's session tag"},
		{"another namespace's condition refuses the broker its own", doc(stmt(broker, `{"StringEquals":{"aws:RequestTag/kubernetes-namespace":"kube-system"}}`)), "may not sts:AssumeRole with session tag"},
		{"the whole account admits others", doc(stmt(broker, apps), stmt("arn:aws:iam::111122223333:root", apps)), "a principal of account 111122223333 other than the broker"},
		{"another principal named instead of the broker", doc(stmt("arn:aws:iam::111122223333:user/other", apps)), "may not sts:AssumeRole"},
		{"no sts:TagSession refuses the broker its tags", doc(`{"Effect":"Allow","Principal":{"AWS":"` + broker + `"},"Action":"sts:AssumeRole","Condition":` + apps + `}`), "may not sts:TagSession"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := broker
			if strings.Contains(c.name, "role broker") {
				b = "arn:aws:iam::111122223333:role/system/leash-broker"
			}
			got := strings.Join(brokerTrustProblems(c.trust, role, b, "apps"), "; ")
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("problems %q; want %q", got, c.want)
			}
		})
	}
}

func mustBrokerTrust(t *testing.T, principal string) string {
	t.Helper()
	text, _, err := brokerTrust(principal, "apps")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestBrokerRefusals: settings and requests Broker mode cannot honour are
// refused naming the field and the fix, before any IAM call.
func TestBrokerRefusals(t *testing.T) {
	for _, c := range []struct {
		name, principal, want string
	}{
		{"a user ARN is a broker principal", "arn:aws:iam::111122223333:user/leash-broker", ""},
		{"a role ARN with a path is a broker principal", "arn:aws:iam::111122223333:role/system/leash-broker", ""},
		{"a wildcard is refused", "arn:aws:iam::111122223333:role/*", "--broker-principal"},
		{"an account is refused", "111122223333", "--broker-principal"},
		{"an S3 ARN is refused", "arn:aws:s3:::bucket", "give the ARN of the IAM user or role"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Mode: leashv1.ModeBroker, ClusterName: "unit", BrokerPrincipal: c.principal}
			err := cfg.Validate()
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Validate: %v; want %q", err, c.want)
			}
		})
	}
	e, _, _ := brokerEnv(t)
	named := brokerRequest(t, "named", allow("*", "ec2:DescribeInstances"))
	spec := `{"apiVersion":"cloudcredential.openshift.io/v1","kind":"AWSProviderSpec","stsIAMRoleARN":"arn:aws:iam::111122223333:role/r","statementEntries":[{"effect":"Allow","action":["ec2:DescribeInstances"],"resource":"*"}]}`
	named.Spec.ProviderSpec.Raw = []byte(spec)
	noSAs := brokerRequest(t, "nosas", allow("*", "ec2:DescribeInstances"))
	noSAs.Spec.ServiceAccountNames = nil
	for _, c := range []struct {
		name string
		cr   *leashv1.CredentialsRequest
		want string
	}{
		{"a role of the request's own is refused", named, "spec.providerSpec.stsIAMRoleARN"},
		{"no service accounts is refused", noSAs, "spec.serviceAccountNames"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := e.sync(t, e.p, c.cr)
			if err != nil || out.Failure == nil || out.Failure.Reason != ReasonInvalidRequest || !strings.Contains(out.Failure.Message, c.want) {
				t.Fatalf("sync: %v, failure %+v; want %s naming %s", err, out.Failure, ReasonInvalidRequest, c.want)
			}
			if _, err := e.admin.GetRole(e.ctx, userName("unit", "apps", c.cr.Name, string(c.cr.UID))); !iamclient.IsNotFound(err) {
				t.Errorf("GetRole: %v; want NoSuchEntity", err)
			}
		})
	}
}

// TestMadeRoleBounded: the roles leash makes, in Broker and STS mode, carry
// the permissions boundary a minted user would (here --permissions-boundary;
// the ceiling when there is one): set in CreateRole, and brought in line on
// a role made before it was configured.
func TestMadeRoleBounded(t *testing.T) {
	for _, mode := range []leashv1.CredentialsMode{leashv1.ModeBroker, leashv1.ModeSTS} {
		t.Run(string(mode), func(t *testing.T) {
			e, _ := stsEnv(t, false)
			brokerARN, _ := e.stsUser(t, "leash-broker")
			out, err := e.sdk(t).CreatePolicy(e.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("bound"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*","Resource":"*"}]}`)})
			if err != nil {
				t.Fatal(err)
			}
			bound := aws.ToString(out.Policy.Arn)
			cfg := Config{Mode: mode, OIDCIssuer: testIssuer, ProofTimeout: 2 * time.Second, BrokerPrincipal: brokerARN}
			name := userName("unit", "apps", "ccm", "uid-ccm")
			boundary := func() string {
				t.Helper()
				role, err := e.admin.GetRole(e.ctx, name)
				if err != nil {
					t.Fatal(err)
				}
				return role.Boundary
			}

			cr := stsRequest(t, "ccm", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
			e.p = e.provisioner(t, cfg)
			e.ready(t, cr)
			if b := boundary(); b != "" {
				t.Fatalf("boundary %q with none configured", b)
			}
			cfg.Boundary = bound
			e.p = e.provisioner(t, cfg)
			e.ready(t, cr)
			if b := boundary(); b != bound {
				t.Errorf("adopted role's boundary %q; want %s", b, bound)
			}
			if !slices.Contains(e.events.reasons("Normal"), "BoundaryUpdated") {
				t.Errorf("events %v lack BoundaryUpdated", e.events.reasons("Normal"))
			}

			fresh := stsRequest(t, "fresh", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
			e.ready(t, fresh)
			role, err := e.admin.GetRole(e.ctx, userName("unit", "apps", "fresh", "uid-fresh"))
			if err != nil || role.Boundary != bound {
				t.Errorf("new role's boundary %q (%v); want %s", role.Boundary, err, bound)
			}
		})
	}
}
