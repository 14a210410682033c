package localaws_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// decision is one EvaluationResult, reduced to what the tests compare.
type decision struct {
	action, resource, decision string
	sources                    []string // SourcePolicyType/SourcePolicyId of the matched statements
	missing                    []string
}

func decisions(results []types.EvaluationResult) []decision {
	var out []decision
	for _, r := range results {
		d := decision{action: aws.ToString(r.EvalActionName), resource: aws.ToString(r.EvalResourceName), decision: string(r.EvalDecision), missing: r.MissingContextValues}
		for _, s := range r.MatchedStatements {
			d.sources = append(d.sources, string(s.SourcePolicyType)+"/"+aws.ToString(s.SourcePolicyId))
		}
		out = append(out, d)
	}
	return out
}

func sameDecision(a, b decision) bool {
	return a.action == b.action && a.resource == b.resource && a.decision == b.decision &&
		slices.Equal(a.sources, b.sources) && slices.Equal(a.missing, b.missing)
}

func TestSimulateCustomPolicy(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	bucket := "arn:aws:s3:::reports/q1.csv"
	policy := `{"Version":"2012-10-17","Statement":[` +
		`{"Sid":"Read","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::reports/*"},` +
		`{"Sid":"NoDelete","Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"},` +
		`{"Sid":"FromOffice","Effect":"Allow","Action":"s3:PutObject","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}}]}`
	tests := []struct {
		name string
		in   iam.SimulateCustomPolicyInput
		want []decision
	}{
		{
			name: "each action on each resource is allowed, denied or not allowed",
			in:   iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:GetObject", "s3:DeleteObject", "s3:ListBucket"}, ResourceArns: []string{bucket}},
			want: []decision{
				{"s3:GetObject", bucket, "allowed", []string{"none/PolicyInputList.1"}, nil},
				{"s3:DeleteObject", bucket, "explicitDeny", []string{"none/PolicyInputList.1"}, nil},
				{"s3:ListBucket", bucket, "implicitDeny", nil, nil},
			},
		},
		{
			name: "resources default to *",
			in:   iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:GetObject"}},
			want: []decision{{"s3:GetObject", "*", "implicitDeny", nil, nil}},
		},
		{
			name: "a condition key the request lacks is a missing context value",
			in:   iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:PutObject"}, ResourceArns: []string{bucket}},
			want: []decision{{"s3:PutObject", bucket, "implicitDeny", nil, []string{"aws:SourceIp"}}},
		},
		{
			name: "a context entry satisfies the condition",
			in: iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:PutObject"}, ResourceArns: []string{bucket},
				ContextEntries: []types.ContextEntry{{ContextKeyName: aws.String("aws:SourceIp"), ContextKeyType: types.ContextKeyTypeEnumIp, ContextKeyValues: []string{"203.0.113.9"}}}},
			want: []decision{{"s3:PutObject", bucket, "allowed", []string{"none/PolicyInputList.1"}, nil}},
		},
		{
			name: "a context entry that fails the condition",
			in: iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:PutObject"}, ResourceArns: []string{bucket},
				ContextEntries: []types.ContextEntry{{ContextKeyName: aws.String("aws:SourceIp"), ContextKeyType: types.ContextKeyTypeEnumIp, ContextKeyValues: []string{"198.51.100.1"}}}},
			want: []decision{{"s3:PutObject", bucket, "implicitDeny", nil, nil}},
		},
		{
			name: "an SCP that does not allow the action",
			in: iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:GetObject"}, ResourceArns: []string{bucket},
				OrderedOrganizationPolicyInputList: []types.OrderedOrganizationPolicyType{{ServiceControlPolicyInputList: []string{
					`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*"}}`}}}},
			want: []decision{{"s3:GetObject", bucket, "implicitDeny", []string{"none/PolicyInputList.1"}, nil}},
		},
		{
			name: "a resource policy that names the caller grants on its own",
			in: iam.SimulateCustomPolicyInput{ActionNames: []string{"s3:ListBucket"}, ResourceArns: []string{"arn:aws:s3:::reports"},
				CallerArn: aws.String("arn:aws:iam::" + account + ":user/alice"),
				ResourcePolicy: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account +
					`:user/alice"},"Action":"s3:ListBucket","Resource":"arn:aws:s3:::reports"}}`)},
			want: []decision{{"s3:ListBucket", "arn:aws:s3:::reports", "allowed", []string{"resource/ResourcePolicy"}, nil}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.PolicyInputList = []string{policy}
			out, err := admin.SimulateCustomPolicy(ctx, &in)
			if err != nil {
				t.Fatal(err)
			}
			got := decisions(out.EvaluationResults)
			if !slices.EqualFunc(got, tt.want, sameDecision) {
				t.Errorf("results:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	scp := must[*iam.SimulateCustomPolicyOutput](t, "SimulateCustomPolicy")(admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{
		PolicyInputList: []string{policy}, ActionNames: []string{"s3:GetObject"},
		OrderedOrganizationPolicyInputList: []types.OrderedOrganizationPolicyType{{ServiceControlPolicyInputList: []string{allowAll}}},
	}))
	if d := scp.EvaluationResults[0].OrganizationsDecisionDetail; d == nil || !d.AllowedByOrganizations {
		t.Errorf("OrganizationsDecisionDetail with an SCP that allows = %+v", d)
	}

	paged := must[*iam.SimulateCustomPolicyOutput](t, "SimulateCustomPolicy")(admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{
		PolicyInputList: []string{policy}, ActionNames: []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}, MaxItems: aws.Int32(2)}))
	rest := must[*iam.SimulateCustomPolicyOutput](t, "SimulateCustomPolicy")(admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{
		PolicyInputList: []string{policy}, ActionNames: []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}, Marker: paged.Marker}))
	if len(paged.EvaluationResults) != 2 || !paged.IsTruncated || len(rest.EvaluationResults) != 1 || aws.ToString(rest.EvaluationResults[0].EvalActionName) != "s3:DeleteObject" {
		t.Errorf("pages: %d (truncated %v) then %d", len(paged.EvaluationResults), paged.IsTruncated, len(rest.EvaluationResults))
	}

	refusals := []struct {
		name string
		in   iam.SimulateCustomPolicyInput
		code string
	}{
		{"two boundaries", iam.SimulateCustomPolicyInput{PermissionsBoundaryPolicyInputList: []string{allowAll, allowAll}}, "InvalidInput"},
		{"a resource policy without a caller", iam.SimulateCustomPolicyInput{ResourcePolicy: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}`)}, "InvalidInput"},
		{"a caller that is not a user", iam.SimulateCustomPolicyInput{CallerArn: aws.String("arn:aws:iam::" + account + ":role/ci")}, "InvalidInput"},
		{"a numeric context value that is not a number", iam.SimulateCustomPolicyInput{ContextEntries: []types.ContextEntry{{ContextKeyName: aws.String("s3:max-keys"), ContextKeyType: types.ContextKeyTypeEnumNumeric, ContextKeyValues: []string{"many"}}}}, "InvalidInput"},
		{"a malformed boundary", iam.SimulateCustomPolicyInput{PermissionsBoundaryPolicyInputList: []string{`{"Statement":[{"Effect":"Allow"}]}`}}, "MalformedPolicyDocument"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.PolicyInputList, in.ActionNames = []string{policy}, []string{"s3:GetObject"}
			_, err := admin.SimulateCustomPolicy(ctx, &in)
			wantCode(t, tt.name, err, tt.code)
		})
	}
}

func TestSimulatePrincipalPolicy(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	s3Read := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("s3-read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"*"}}`)})).Policy.Arn
	boundary := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("no-put"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotAction":"s3:PutObject","Resource":"*"}}`)})).Policy.Arn
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Path: aws.String("/eng/"), PermissionsBoundary: boundary}))
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("own-folder"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::home/${aws:username}/*"}}`)}))
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: s3Read}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	must[*iam.AttachRolePolicyOutput](t, "AttachRolePolicy")(admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String("arn:aws:iam::aws:policy/IAMReadOnlyAccess")}))
	aliceARN := "arn:aws:iam::" + account + ":user/eng/alice"

	tests := []struct {
		name string
		in   iam.SimulatePrincipalPolicyInput
		want []decision
	}{
		{
			name: "a user's inline and attached policies, within its boundary",
			in: iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(aliceARN),
				ActionNames:  []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"},
				ResourceArns: []string{"arn:aws:s3:::home/alice/notes.txt", "arn:aws:s3:::home/bob/notes.txt"}},
			want: []decision{
				// The boundary's statements that allow are matched too.
				{"s3:GetObject", "arn:aws:s3:::home/alice/notes.txt", "allowed", []string{"user-managed/s3-read", "user-managed/no-put"}, nil},
				{"s3:GetObject", "arn:aws:s3:::home/bob/notes.txt", "allowed", []string{"user-managed/s3-read", "user-managed/no-put"}, nil},
				// The boundary does not allow PutObject.
				{"s3:PutObject", "arn:aws:s3:::home/alice/notes.txt", "implicitDeny", []string{"user-managed/s3-read"}, nil},
				{"s3:PutObject", "arn:aws:s3:::home/bob/notes.txt", "implicitDeny", []string{"user-managed/s3-read"}, nil},
				// ${aws:username} is the simulated user's name.
				{"s3:DeleteObject", "arn:aws:s3:::home/alice/notes.txt", "allowed", []string{"user/own-folder", "user-managed/no-put"}, nil},
				{"s3:DeleteObject", "arn:aws:s3:::home/bob/notes.txt", "implicitDeny", []string{"user-managed/no-put"}, nil},
			},
		},
		{
			name: "a boundary given in the request replaces the user's",
			in: iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(aliceARN), ActionNames: []string{"s3:PutObject"},
				PermissionsBoundaryPolicyInputList: []string{allowAll}},
			want: []decision{{"s3:PutObject", "*", "allowed", []string{"user-managed/s3-read", "none/PermissionsBoundaryPolicyInputList.1"}, nil}},
		},
		{
			name: "extra policies add to the user's",
			in: iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(aliceARN), ActionNames: []string{"s3:GetObject"},
				PolicyInputList: []string{`{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"s3:*","Resource":"*"}}`}},
			want: []decision{{"s3:GetObject", "*", "explicitDeny", []string{"none/PolicyInputList.1"}, nil}},
		},
		{
			name: "a role's attached AWS managed policy",
			in:   iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String("arn:aws:iam::" + account + ":role/ci"), ActionNames: []string{"iam:GetRole", "iam:DeleteRole"}},
			want: []decision{
				{"iam:GetRole", "*", "allowed", []string{"aws-managed/IAMReadOnlyAccess"}, nil},
				{"iam:DeleteRole", "*", "implicitDeny", nil, nil},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := admin.SimulatePrincipalPolicy(ctx, &tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := decisions(out.EvaluationResults)
			if !slices.EqualFunc(got, tt.want, sameDecision) {
				t.Errorf("results:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	out := must[*iam.SimulatePrincipalPolicyOutput](t, "SimulatePrincipalPolicy")(admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{
		PolicySourceArn: aws.String(aliceARN), ActionNames: []string{"s3:GetObject", "s3:PutObject"}}))
	for i, want := range []bool{true, false} {
		d := out.EvaluationResults[i].PermissionsBoundaryDecisionDetail
		if d == nil || d.AllowedByPermissionsBoundary != want {
			t.Errorf("%s: PermissionsBoundaryDecisionDetail = %+v, want allowed %v", aws.ToString(out.EvaluationResults[i].EvalActionName), d, want)
		}
	}

	refusals := []struct {
		name   string
		source string
		code   string
	}{
		{"a user that does not exist", "arn:aws:iam::" + account + ":user/nobody", "NoSuchEntity"},
		{"a user named with the wrong path", "arn:aws:iam::" + account + ":user/alice", "NoSuchEntity"},
		{"a group that does not exist", "arn:aws:iam::" + account + ":group/devs", "NoSuchEntity"},
		{"not an IAM ARN", "arn:aws:s3:::bucket", "InvalidInput"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			_, err := admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(tt.source), ActionNames: []string{"s3:GetObject"}})
			wantCode(t, tt.name, err, tt.code)
		})
	}
	_, err := admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(aliceARN), ActionNames: []string{"s3:GetObject"},
		PolicyInputList: []string{`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*"}}`}})
	if apiCode(err) != "MalformedPolicyDocument" || !strings.Contains(err.Error(), "PolicyInputList.1") {
		t.Errorf("a malformed extra policy: %v, want MalformedPolicyDocument naming PolicyInputList.1", err)
	}
}
