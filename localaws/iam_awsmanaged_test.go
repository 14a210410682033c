package localaws_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/internal/awsmanaged"
	"leash.dev/leash/localaws/localtest"
)

const (
	s3ReadOnly  = "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"
	readOnly    = "arn:aws:iam::aws:policy/ReadOnlyAccess"
	lambdaBasic = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
)

// wholeBodies is an IAM client of e, as the administrator, that reads each
// response whole as it arrives. aws-sdk-go-v2 reading a response of tens of
// kilobytes (a page of 100 policies, ReadOnlyAccess's document) from leash
// local fails now and then with "use of closed network connection" in the
// middle of the body (as in aws/aws-sdk-go-v2#2737), while net/http given
// the same signed request reads every byte; reading the body in the
// transport keeps these tests about IAM's answers.
func wholeBodies(e *localtest.Endpoint) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Credentials: e.Admin.Provider(), RetryMaxAttempts: 1,
		HTTPClient: &http.Client{Transport: readWhole{}}})
}

type readWhole struct{}

func (readWhole) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// TestAWSManagedPoliciesReadByEveryAccount pins that any account reads
// AWS's managed policies with their real path, dates, default version ID
// and document, and that what the set does not hold is NoSuchEntity.
func TestAWSManagedPoliciesReadByEveryAccount(t *testing.T) {
	ctx := context.Background()
	for _, acct := range []string{"111122223333", "444455556666"} {
		t.Run("account "+acct, func(t *testing.T) {
			admin := wholeBodies(localtest.Start(t, localaws.Config{AccountID: acct}))
			// AmazonS3ReadOnlyAccess: created 2015-02-06T18:40:59Z, at v3
			// in the pinned data set.
			p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(s3ReadOnly)})).Policy
			if aws.ToString(p.PolicyName) != "AmazonS3ReadOnlyAccess" || aws.ToString(p.Path) != "/" || aws.ToString(p.Arn) != s3ReadOnly ||
				aws.ToString(p.DefaultVersionId) != "v3" || !p.CreateDate.Equal(time.Date(2015, 2, 6, 18, 40, 59, 0, time.UTC)) ||
				p.UpdateDate.Before(*p.CreateDate) || !strings.HasPrefix(aws.ToString(p.PolicyId), "ANPA") || !p.IsAttachable {
				t.Errorf("GetPolicy = %+v", p)
			}
			doc := must[*iam.GetPolicyVersionOutput](t, "GetPolicyVersion")(admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(s3ReadOnly), VersionId: aws.String("v3")})).PolicyVersion
			if text := decoded(t, doc.Document); !strings.Contains(text, `"s3:Get*"`) || !strings.Contains(text, `"s3:List*"`) || !doc.IsDefaultVersion {
				t.Errorf("GetPolicyVersion v3 = %s (default %v)", text, doc.IsDefaultVersion)
			}
			// The default version only: AWS keeps older ones, the data set
			// leash local carries does not.
			versions := must[*iam.ListPolicyVersionsOutput](t, "ListPolicyVersions")(admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(s3ReadOnly)})).Versions
			if len(versions) != 1 || aws.ToString(versions[0].VersionId) != "v3" || !versions[0].IsDefaultVersion || versions[0].Document != nil {
				t.Errorf("ListPolicyVersions = %+v", versions)
			}
			sr := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(lambdaBasic)})).Policy
			if aws.ToString(sr.Path) != "/service-role/" || aws.ToString(sr.PolicyName) != "AWSLambdaBasicExecutionRole" {
				t.Errorf("GetPolicy of a service-role policy = %+v", sr)
			}
			ro := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(readOnly)})).Policy
			roDoc := must[*iam.GetPolicyVersionOutput](t, "GetPolicyVersion")(admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(readOnly), VersionId: ro.DefaultVersionId})).PolicyVersion
			if text := decoded(t, roDoc.Document); len(text) < 50000 || !strings.Contains(text, `"iam:Get*"`) {
				t.Errorf("ReadOnlyAccess %s is %d characters, want its whole document", aws.ToString(ro.DefaultVersionId), len(text))
			}

			refused := []struct {
				name    string
				call    func() error
				message string
			}{
				{"GetPolicy of a name not in the set", func() error {
					_, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/NoSuchPolicy")})
					return err
				}, "Policy arn:aws:iam::aws:policy/NoSuchPolicy does not exist or is not attachable."},
				{"GetPolicy at the wrong path", func() error {
					_, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/AWSLambdaBasicExecutionRole")})
					return err
				}, "does not exist or is not attachable."},
				{"GetPolicyVersion of a version other than the default", func() error {
					_, err := admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(s3ReadOnly), VersionId: aws.String("v1")})
					return err
				}, "Policy " + s3ReadOnly + " version v1 does not exist or is not attachable."},
				{"GetPolicyVersion of a policy not in the set", func() error {
					_, err := admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/NoSuchPolicy"), VersionId: aws.String("v1")})
					return err
				}, "does not exist or is not attachable."},
				{"ListPolicyVersions of a policy not in the set", func() error {
					_, err := admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/NoSuchPolicy")})
					return err
				}, "does not exist or is not attachable."},
				{"ListEntitiesForPolicy of a policy not in the set", func() error {
					_, err := admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/NoSuchPolicy")})
					return err
				}, "does not exist or is not attachable."},
			}
			for _, tt := range refused {
				t.Run(tt.name+" is NoSuchEntity", func(t *testing.T) {
					err := tt.call()
					wantCode(t, tt.name, err, "NoSuchEntity")
					if err != nil && !strings.Contains(err.Error(), tt.message) {
						t.Errorf("%v, want IAM's message %q", err, tt.message)
					}
				})
			}
		})
	}
}

// TestAWSManagedPolicyUseIsCounted pins ListEntitiesForPolicy and the
// counts GetPolicy shows for an AWS managed policy: this account's users
// and roles, attached or bounded, and nothing left after detaching.
func TestAWSManagedPolicyUseIsCounted(t *testing.T) {
	ctx := context.Background()
	admin := localtest.Start(t, localaws.Config{}).IAM(nil)
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), PermissionsBoundary: aws.String(s3ReadOnly)}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(s3ReadOnly)}))
	must[*iam.AttachRolePolicyOutput](t, "AttachRolePolicy")(admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String(s3ReadOnly)}))

	p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(s3ReadOnly)})).Policy
	if aws.ToInt32(p.AttachmentCount) != 2 || aws.ToInt32(p.PermissionsBoundaryUsageCount) != 1 {
		t.Errorf("AttachmentCount %d, PermissionsBoundaryUsageCount %d; want 2, 1", aws.ToInt32(p.AttachmentCount), aws.ToInt32(p.PermissionsBoundaryUsageCount))
	}
	e := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String(s3ReadOnly)}))
	if len(e.PolicyUsers) != 1 || aws.ToString(e.PolicyUsers[0].UserName) != "alice" || len(e.PolicyRoles) != 1 || aws.ToString(e.PolicyRoles[0].RoleName) != "ci" {
		t.Errorf("ListEntitiesForPolicy = users %+v roles %+v", e.PolicyUsers, e.PolicyRoles)
	}
	e = must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String(s3ReadOnly), EntityFilter: types.EntityTypeRole}))
	if len(e.PolicyUsers) != 0 || len(e.PolicyRoles) != 1 {
		t.Errorf("ListEntitiesForPolicy of roles = users %+v roles %+v", e.PolicyUsers, e.PolicyRoles)
	}
	must[*iam.DetachUserPolicyOutput](t, "DetachUserPolicy")(admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(s3ReadOnly)}))
	must[*iam.DetachRolePolicyOutput](t, "DetachRolePolicy")(admin.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String(s3ReadOnly)}))
	p = must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(s3ReadOnly)})).Policy
	if aws.ToInt32(p.AttachmentCount) != 0 || aws.ToInt32(p.PermissionsBoundaryUsageCount) != 1 {
		t.Errorf("after detaching: AttachmentCount %d, PermissionsBoundaryUsageCount %d; want 0, 1", aws.ToInt32(p.AttachmentCount), aws.ToInt32(p.PermissionsBoundaryUsageCount))
	}
}

// TestUnknownAWSManagedPolicyIsNotAttached pins that every way of using an
// arn:aws:iam::aws:policy/… ARN that is not in AWS's set is IAM's
// NoSuchEntity with its message, and that nothing is recorded.
func TestUnknownAWSManagedPolicyIsNotAttached(t *testing.T) {
	ctx := context.Background()
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("readers")}))

	for _, arn := range []string{
		"arn:aws:iam::aws:policy/NoSuchPolicy",
		// A real policy's name under another path is another ARN.
		"arn:aws:iam::aws:policy/service-role/ReadOnlyAccess",
	} {
		uses := []struct {
			name string
			call func() error
		}{
			{"AttachUserPolicy", func() error {
				_, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(arn)})
				return err
			}},
			{"AttachRolePolicy", func() error {
				_, err := admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String(arn)})
				return err
			}},
			{"AttachGroupPolicy", func() error {
				_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: aws.String(arn)})
				return err
			}},
			{"PutUserPermissionsBoundary", func() error {
				_, err := admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("alice"), PermissionsBoundary: aws.String(arn)})
				return err
			}},
			{"PutRolePermissionsBoundary", func() error {
				_, err := admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("ci"), PermissionsBoundary: aws.String(arn)})
				return err
			}},
			{"CreateUser with it as the boundary", func() error {
				_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob"), PermissionsBoundary: aws.String(arn)})
				return err
			}},
			{"AssumeRole with it as a session policy", func() error {
				_, err := e.STS(nil).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/ci"), RoleSessionName: aws.String("session"),
					PolicyArns: []ststypes.PolicyDescriptorType{{Arn: aws.String(arn)}}})
				return err
			}},
		}
		for _, u := range uses {
			t.Run(u.name+" with "+arn, func(t *testing.T) {
				err := u.call()
				wantCode(t, u.name, err, "NoSuchEntity")
				if err != nil && !strings.Contains(err.Error(), "Policy "+arn+" does not exist or is not attachable.") {
					t.Errorf("%v, want IAM's message naming the policy", err)
				}
			})
		}
	}

	// Nothing was recorded.
	user := must[*iam.GetUserOutput](t, "GetUser")(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})).User
	role := must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ci")})).Role
	if user.PermissionsBoundary != nil || role.PermissionsBoundary != nil {
		t.Errorf("boundaries recorded: user %+v role %+v", user.PermissionsBoundary, role.PermissionsBoundary)
	}
	if a := must[*iam.ListAttachedUserPoliciesOutput](t, "ListAttachedUserPolicies")(admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("user's attached policies: %+v", a)
	}
	if a := must[*iam.ListAttachedGroupPoliciesOutput](t, "ListAttachedGroupPolicies")(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("readers")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("group's attached policies: %+v", a)
	}
	if a := must[*iam.ListAttachedRolePoliciesOutput](t, "ListAttachedRolePolicies")(admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("ci")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("role's attached policies: %+v", a)
	}
	if _, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bob")}); apiCode(err) != "NoSuchEntity" {
		t.Errorf("the refused CreateUser left a user (GetUser: %v)", err)
	}
	// The same calls with a policy of the set go through, so the refusals
	// are about the policy alone.
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(readOnly)}))
	must[*iam.PutRolePermissionsBoundaryOutput](t, "PutRolePermissionsBoundary")(admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("ci"), PermissionsBoundary: aws.String(lambdaBasic)}))
}

// TestListPoliciesOverTheAWSSet pins ListPolicies against its API reference
// (IAM API Reference, ListPolicies): Scope "To list only AWS managed
// policies, set Scope to AWS. To list only the customer managed policies in
// your AWS account, set Scope to Local. … If it is not included, or if it
// is set to All, all policies are returned"; OnlyAttached "only the policies
// that are attached to an IAM user, group, or role"; PathPrefix "defaults to
// a slash (/), listing all policies"; PolicyUsageFilter with the values
// PermissionsPolicy and PermissionsBoundary; MaxItems "defaults to 100",
// IsTruncated and Marker to go on.
func TestListPoliciesOverTheAWSSet(t *testing.T) {
	ctx := context.Background()
	admin := wholeBodies(localtest.Start(t, localaws.Config{}))
	allowAll := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
	must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("zz-own"), Path: aws.String("/service-role/"), PolicyDocument: aws.String(allowAll)}))
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), PermissionsBoundary: aws.String(readOnly)}))
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(s3ReadOnly)}))

	var inSet, serviceRole int
	for p := range awsmanaged.All() {
		inSet++
		if p.Path == "/service-role/" {
			serviceRole++
		}
	}
	// every pages through ListPolicies with MaxItems per page (the
	// default when 0), and checks the pages join up.
	every := func(t *testing.T, in iam.ListPoliciesInput, maxItems int32) []types.Policy {
		t.Helper()
		var out []types.Policy
		if maxItems > 0 {
			in.MaxItems = aws.Int32(maxItems)
		}
		for pages := 0; ; pages++ {
			page, err := admin.ListPolicies(ctx, &in)
			if err != nil {
				t.Fatal(err)
			}
			want := int(maxItems)
			if want == 0 {
				want = 100
			}
			if page.IsTruncated && len(page.Policies) != want {
				t.Fatalf("page %d holds %d, want %d", pages, len(page.Policies), want)
			}
			out = append(out, page.Policies...)
			if !page.IsTruncated {
				if page.Marker != nil {
					t.Errorf("last page has Marker %q", aws.ToString(page.Marker))
				}
				return out
			}
			in.Marker = page.Marker
		}
	}
	names := func(ps []types.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, aws.ToString(p.PolicyName))
		}
		return out
	}
	sorted := func(t *testing.T, ps []types.Policy) {
		t.Helper()
		if !slices.IsSortedFunc(names(ps), func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
			t.Errorf("not listed by name")
		}
	}

	tests := []struct {
		name     string
		in       iam.ListPoliciesInput
		maxItems int32
		check    func(t *testing.T, got []types.Policy)
	}{
		{"Scope AWS lists the whole set, paged 100 at a time", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws}, 0, func(t *testing.T, got []types.Policy) {
			if len(got) != inSet || len(got) < 1500 {
				t.Errorf("%d policies, want the set's %d", len(got), inSet)
			}
			for _, p := range got {
				if !strings.HasPrefix(aws.ToString(p.Arn), "arn:aws:iam::aws:policy/") {
					t.Fatalf("%s is not AWS managed", aws.ToString(p.Arn))
				}
			}
			sorted(t, got)
		}},
		{"no Scope is All: the set and the account's own, by name, in pages of 1000", iam.ListPoliciesInput{}, 1000, func(t *testing.T, got []types.Policy) {
			if len(got) != inSet+1 || aws.ToString(got[len(got)-1].PolicyName) != "zz-own" {
				t.Errorf("%d policies ending %s, want %d ending zz-own", len(got), aws.ToString(got[len(got)-1].PolicyName), inSet+1)
			}
			sorted(t, got)
		}},
		{"Scope Local lists the account's own", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeLocal}, 0, func(t *testing.T, got []types.Policy) {
			if n := names(got); !slices.Equal(n, []string{"zz-own"}) {
				t.Errorf("%v", n)
			}
		}},
		{"PathPrefix selects by path in both scopes", iam.ListPoliciesInput{PathPrefix: aws.String("/service-role/")}, 37, func(t *testing.T, got []types.Policy) {
			if len(got) != serviceRole+1 {
				t.Errorf("%d policies, want %d", len(got), serviceRole+1)
			}
			for _, p := range got {
				if aws.ToString(p.Path) != "/service-role/" {
					t.Errorf("%s at %s", aws.ToString(p.Arn), aws.ToString(p.Path))
				}
			}
		}},
		{"OnlyAttached keeps those attached, with this account's counts", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, OnlyAttached: true}, 0, func(t *testing.T, got []types.Policy) {
			if len(got) != 1 || aws.ToString(got[0].Arn) != s3ReadOnly || aws.ToInt32(got[0].AttachmentCount) != 1 || aws.ToInt32(got[0].PermissionsBoundaryUsageCount) != 0 {
				t.Errorf("%+v", got)
			}
		}},
		{"PolicyUsageFilter PermissionsPolicy keeps those attached as permissions", iam.ListPoliciesInput{PolicyUsageFilter: types.PolicyUsageTypePermissionsPolicy}, 0, func(t *testing.T, got []types.Policy) {
			if n := names(got); !slices.Equal(n, []string{"AmazonS3ReadOnlyAccess"}) {
				t.Errorf("%v", n)
			}
		}},
		{"PolicyUsageFilter PermissionsBoundary keeps those set as a boundary", iam.ListPoliciesInput{PolicyUsageFilter: types.PolicyUsageTypePermissionsBoundary}, 0, func(t *testing.T, got []types.Policy) {
			if len(got) != 1 || aws.ToString(got[0].Arn) != readOnly || aws.ToInt32(got[0].PermissionsBoundaryUsageCount) != 1 || aws.ToInt32(got[0].AttachmentCount) != 0 {
				t.Errorf("%+v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, every(t, tt.in, tt.maxItems)) })
	}

	refused := []struct {
		name string
		in   iam.ListPoliciesInput
		code string
	}{
		{"a Scope outside All, AWS, Local", iam.ListPoliciesInput{Scope: "Everything"}, "ValidationError"},
		{"a PolicyUsageFilter outside its two values", iam.ListPoliciesInput{PolicyUsageFilter: "Inline"}, "ValidationError"},
		{"a PathPrefix not starting with a slash, for AWS too", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, PathPrefix: aws.String("service-role/")}, "ValidationError"},
		{"MaxItems above 1000", iam.ListPoliciesInput{MaxItems: aws.Int32(1001)}, "ValidationError"},
		{"a Marker IAM did not give", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, Marker: aws.String("not-a-marker")}, "InvalidInput"},
	}
	for _, tt := range refused {
		t.Run(tt.name+" is "+tt.code, func(t *testing.T) {
			_, err := admin.ListPolicies(ctx, &tt.in)
			wantCode(t, tt.name, err, tt.code)
		})
	}
}

// TestAWSManagedDocumentsAreEnforced pins that the authorizer and
// SimulatePrincipalPolicy use the real documents of attached AWS managed
// policies and boundaries: ReadOnlyAccess allows IAM reads and no writes.
func TestAWSManagedDocumentsAreEnforced(t *testing.T) {
	ctx := context.Background()
	e, admin := adminClient(t)
	allowAll := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
	reader := userClient(t, e, admin, "reader", "")
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("reader"), PolicyArn: aws.String(readOnly)}))
	bounded := userClient(t, e, admin, "bounded", allowAll)
	must[*iam.PutUserPermissionsBoundaryOutput](t, "PutUserPermissionsBoundary")(admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("bounded"), PermissionsBoundary: aws.String(readOnly)}))

	for _, c := range []struct {
		name   string
		client *iam.Client
	}{{"attached", reader}, {"as the boundary of an allow-all user", bounded}} {
		t.Run("ReadOnlyAccess "+c.name+" allows ListUsers", func(t *testing.T) {
			if _, err := c.client.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
				t.Error(err)
			}
		})
		t.Run("ReadOnlyAccess "+c.name+" denies CreateUser", func(t *testing.T) {
			_, err := c.client.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("new-" + strings.ReplaceAll(c.name, " ", "-"))})
			wantCode(t, "CreateUser", err, "AccessDenied")
		})
	}

	out := must[*iam.SimulatePrincipalPolicyOutput](t, "SimulatePrincipalPolicy")(admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{
		PolicySourceArn: aws.String("arn:aws:iam::" + account + ":user/reader"), ActionNames: []string{"s3:GetObject", "s3:PutObject", "ec2:DescribeInstances"}}))
	got := decisions(out.EvaluationResults)
	want := []decision{
		{"s3:GetObject", "*", "allowed", []string{"aws-managed/ReadOnlyAccess"}, nil},
		{"s3:PutObject", "*", "implicitDeny", nil, nil},
		{"ec2:DescribeInstances", "*", "allowed", []string{"aws-managed/ReadOnlyAccess"}, nil},
	}
	if !slices.EqualFunc(got, want, sameDecision) {
		t.Errorf("SimulatePrincipalPolicy:\n got %+v\nwant %+v", got, want)
	}
}

// TestEveryAWSManagedPolicyCannotBeChanged pins, for every policy of the
// set as ListPolicies pages it, the rule TestAWSManagedPoliciesCannotBeChanged
// pins for one: a new version and deletion are AccessDenied, and the policy
// is as it was.
func TestEveryAWSManagedPolicyCannotBeChanged(t *testing.T) {
	ctx := context.Background()
	admin := wholeBodies(localtest.Start(t, localaws.Config{}))
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`
	seen := 0
	in := &iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, MaxItems: aws.Int32(1000)}
	for {
		page := must[*iam.ListPoliciesOutput](t, "ListPolicies")(admin.ListPolicies(ctx, in))
		for _, p := range page.Policies {
			seen++
			_, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: p.Arn, PolicyDocument: aws.String(doc), SetAsDefault: true})
			if apiCode(err) != "AccessDenied" {
				t.Errorf("CreatePolicyVersion on %s: %v, want AccessDenied", aws.ToString(p.Arn), err)
			}
			_, err = admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: p.Arn})
			if apiCode(err) != "AccessDenied" {
				t.Errorf("DeletePolicy on %s: %v, want AccessDenied", aws.ToString(p.Arn), err)
			}
		}
		if !page.IsTruncated {
			break
		}
		in.Marker = page.Marker
	}
	if seen != awsmanaged.Len() {
		t.Errorf("went through %d policies, want %d", seen, awsmanaged.Len())
	}
	after := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(s3ReadOnly)})).Policy
	if aws.ToString(after.DefaultVersionId) != "v3" {
		t.Errorf("AmazonS3ReadOnlyAccess is at %s after the refused calls, want v3", aws.ToString(after.DefaultVersionId))
	}
}
