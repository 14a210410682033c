package iamclient

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/policy"
)

// NamedDocument is a policy document with the name IAM knows it by (an
// inline policy's name or a managed policy's ARN).
type NamedDocument struct {
	Name     string
	Document string
}

// PrincipalPolicies are the identity policies and boundary IAM holds for a
// user or role.
type PrincipalPolicies struct {
	Identity []NamedDocument
	Boundary *NamedDocument
}

// UserPolicies reads every policy that applies to a user: inline, attached,
// its groups' inline and attached, and its permissions boundary.
func (c *Client) UserPolicies(ctx context.Context, user string) (PrincipalPolicies, error) {
	var out PrincipalPolicies
	u, err := c.GetUser(ctx, user)
	if err != nil {
		return out, err
	}
	if out.Identity, err = c.inlineAndAttached(ctx, principalAPI{
		names: func(ctx context.Context) ([]string, error) { return c.UserPolicyNames(ctx, user) },
		get:   func(ctx context.Context, name string) (string, error) { return c.UserPolicy(ctx, user, name) },
		arns:  func(ctx context.Context) ([]string, error) { return c.AttachedUserPolicies(ctx, user) },
	}); err != nil {
		return out, err
	}
	groups, err := c.groupsForUser(ctx, user)
	if err != nil {
		return out, err
	}
	for _, g := range groups {
		docs, err := c.inlineAndAttached(ctx, c.groupAPI(g))
		if err != nil {
			return out, err
		}
		out.Identity = append(out.Identity, docs...)
	}
	out.Boundary, err = c.boundary(ctx, u.Boundary)
	return out, err
}

// RolePolicies reads every policy that applies to a role's sessions:
// inline, attached and the permissions boundary.
func (c *Client) RolePolicies(ctx context.Context, role string) (PrincipalPolicies, error) {
	var out PrincipalPolicies
	r, err := c.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(role)})
	if err != nil {
		return out, fmt.Errorf("iam:GetRole %s: %w", role, err)
	}
	if out.Identity, err = c.inlineAndAttached(ctx, c.roleAPI(role)); err != nil {
		return out, err
	}
	var boundary string
	if b := r.Role.PermissionsBoundary; b != nil {
		boundary = aws.ToString(b.PermissionsBoundaryArn)
	}
	out.Boundary, err = c.boundary(ctx, boundary)
	return out, err
}

// principalAPI reads the inline and attached policies of one user, group or
// role: the three kinds share the shape but not the calls.
type principalAPI struct {
	names func(context.Context) ([]string, error)
	get   func(context.Context, string) (string, error)
	arns  func(context.Context) ([]string, error)
}

func (c *Client) inlineAndAttached(ctx context.Context, p principalAPI) ([]NamedDocument, error) {
	var docs []NamedDocument
	names, err := p.names(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		d, err := p.get(ctx, n)
		if err != nil {
			return nil, err
		}
		docs = append(docs, NamedDocument{Name: n, Document: d})
	}
	arns, err := p.arns(ctx)
	if err != nil {
		return nil, err
	}
	for _, arn := range arns {
		d, err := c.ManagedPolicyDocument(ctx, arn)
		if err != nil {
			return nil, err
		}
		docs = append(docs, NamedDocument{Name: arn, Document: d})
	}
	return docs, nil
}

func (c *Client) boundary(ctx context.Context, arn string) (*NamedDocument, error) {
	if arn == "" {
		return nil, nil
	}
	d, err := c.ManagedPolicyDocument(ctx, arn)
	if err != nil {
		return nil, err
	}
	return &NamedDocument{Name: arn, Document: d}, nil
}

// ManagedPolicyDocument reads the default version of a managed policy.
func (c *Client) ManagedPolicyDocument(ctx context.Context, arn string) (string, error) {
	p, err := c.iam.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
	if err != nil {
		return "", fmt.Errorf("iam:GetPolicy %s: %w", arn, err)
	}
	v, err := c.iam.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: p.Policy.DefaultVersionId})
	if err != nil {
		return "", fmt.Errorf("iam:GetPolicyVersion %s: %w", arn, err)
	}
	return decodeDocument(aws.ToString(v.PolicyVersion.Document))
}

func (c *Client) groupsForUser(ctx context.Context, user string) ([]string, error) {
	var groups []string
	p := iam.NewListGroupsForUserPaginator(c.iam, &iam.ListGroupsForUserInput{UserName: aws.String(user)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListGroupsForUser %s: %w", user, err)
		}
		for _, g := range out.Groups {
			groups = append(groups, aws.ToString(g.GroupName))
		}
	}
	return groups, nil
}

func (c *Client) groupAPI(group string) principalAPI {
	return principalAPI{
		names: func(ctx context.Context) ([]string, error) {
			var names []string
			p := iam.NewListGroupPoliciesPaginator(c.iam, &iam.ListGroupPoliciesInput{GroupName: aws.String(group)})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					return nil, fmt.Errorf("iam:ListGroupPolicies %s: %w", group, err)
				}
				names = append(names, out.PolicyNames...)
			}
			return names, nil
		},
		get: func(ctx context.Context, name string) (string, error) {
			out, err := c.iam.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String(group), PolicyName: aws.String(name)})
			if err != nil {
				return "", fmt.Errorf("iam:GetGroupPolicy %s %s: %w", group, name, err)
			}
			return decodeDocument(aws.ToString(out.PolicyDocument))
		},
		arns: func(ctx context.Context) ([]string, error) {
			var arns []string
			p := iam.NewListAttachedGroupPoliciesPaginator(c.iam, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String(group)})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					return nil, fmt.Errorf("iam:ListAttachedGroupPolicies %s: %w", group, err)
				}
				for _, a := range out.AttachedPolicies {
					arns = append(arns, aws.ToString(a.PolicyArn))
				}
			}
			return arns, nil
		},
	}
}

func (c *Client) roleAPI(role string) principalAPI {
	return principalAPI{
		names: func(ctx context.Context) ([]string, error) { return c.RolePolicyNames(ctx, role) },
		get:   func(ctx context.Context, name string) (string, error) { return c.RolePolicy(ctx, role, name) },
		arns:  func(ctx context.Context) ([]string, error) { return c.AttachedRolePolicies(ctx, role) },
	}
}

// SimulationQuestion is one action on one resource under a context, asked of
// SimulatePrincipalPolicy.
type SimulationQuestion struct {
	Action   string
	Resource string
	// Context maps condition keys to their values.
	Context map[string][]string
}

// SimulationAnswer is IAM's decision ("allowed", "explicitDeny",
// "implicitDeny") for one question.
type SimulationAnswer struct {
	Decision string
	// Statements name the policies whose statements decided.
	Statements []string
}

// Simulate asks IAM's policy simulator about a principal, one question per
// call because each carries its own context.
func (c *Client) Simulate(ctx context.Context, principal string, q SimulationQuestion) (SimulationAnswer, error) {
	in := &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(principal),
		ActionNames: []string{q.Action}, ResourceArns: []string{q.Resource}}
	for k, vs := range q.Context {
		in.ContextEntries = append(in.ContextEntries, iamtypes.ContextEntry{ContextKeyName: aws.String(k),
			ContextKeyType: iamtypes.ContextKeyTypeEnumStringList, ContextKeyValues: vs})
	}
	out, err := c.iam.SimulatePrincipalPolicy(ctx, in)
	if err != nil {
		return SimulationAnswer{}, fmt.Errorf("iam:SimulatePrincipalPolicy %s %s: %w", principal, q.Action, err)
	}
	var a SimulationAnswer
	for _, r := range out.EvaluationResults {
		a.Decision = string(r.EvalDecision)
		for _, s := range r.MatchedStatements {
			a.Statements = append(a.Statements, aws.ToString(s.SourcePolicyId))
		}
	}
	return a, nil
}

// PrincipalName splits an IAM user or role ARN, or an assumed-role session
// ARN, into its kind ("user" or "role") and name; ok is false for other
// principals (the account root, federated users).
func PrincipalName(arn string) (kind, name string, ok bool) {
	a, ok := policy.ParseARN(arn)
	if !ok {
		return "", "", false
	}
	service, resource := a.Service, a.Resource
	switch {
	case service == "iam" && strings.HasPrefix(resource, "user/"):
		return "user", resource[strings.LastIndexByte(resource, '/')+1:], true
	case service == "iam" && strings.HasPrefix(resource, "role/"):
		return "role", resource[strings.LastIndexByte(resource, '/')+1:], true
	case service == "sts" && strings.HasPrefix(resource, "assumed-role/"):
		role, _, _ := strings.Cut(strings.TrimPrefix(resource, "assumed-role/"), "/")
		return "role", role, true
	}
	return "", "", false
}

// ManagedPolicyVersion is one version of a managed policy.
type ManagedPolicyVersion struct {
	ID      string
	Default bool
	Created time.Time
}

// CreatePolicy creates a customer managed policy and returns its ARN.
func (c *Client) CreatePolicy(ctx context.Context, path, name, doc string) (string, error) {
	out, err := c.iam.CreatePolicy(ctx, &iam.CreatePolicyInput{Path: aws.String(path), PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
	if err != nil {
		return "", fmt.Errorf("iam:CreatePolicy %s%s: %w", path, name, err)
	}
	return aws.ToString(out.Policy.Arn), nil
}

// PolicyVersions lists a managed policy's versions.
func (c *Client) PolicyVersions(ctx context.Context, arn string) ([]ManagedPolicyVersion, error) {
	var vs []ManagedPolicyVersion
	p := iam.NewListPolicyVersionsPaginator(c.iam, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(arn)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListPolicyVersions %s: %w", arn, err)
		}
		for _, v := range out.Versions {
			vs = append(vs, ManagedPolicyVersion{ID: aws.ToString(v.VersionId), Default: v.IsDefaultVersion, Created: aws.ToTime(v.CreateDate)})
		}
	}
	return vs, nil
}

// CreatePolicyVersion adds a version and makes it the default.
func (c *Client) CreatePolicyVersion(ctx context.Context, arn, doc string) error {
	_, err := c.iam.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(arn), PolicyDocument: aws.String(doc), SetAsDefault: true})
	if err != nil {
		return fmt.Errorf("iam:CreatePolicyVersion %s: %w", arn, err)
	}
	return nil
}

// DeletePolicyVersion deletes a non-default version.
func (c *Client) DeletePolicyVersion(ctx context.Context, arn, id string) error {
	_, err := c.iam.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(arn), VersionId: aws.String(id)})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeletePolicyVersion %s %s: %w", arn, id, err)
	}
	return nil
}

// DeletePolicy deletes a managed policy's other versions, then the policy;
// one already gone is not an error.
func (c *Client) DeletePolicy(ctx context.Context, arn string) error {
	vs, err := c.PolicyVersions(ctx, arn)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, v := range vs {
		if !v.Default {
			if err := c.DeletePolicyVersion(ctx, arn, v.ID); err != nil {
				return err
			}
		}
	}
	if _, err := c.iam.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)}); err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeletePolicy %s: %w", arn, err)
	}
	return nil
}

// AttachUserPolicy attaches a managed policy to a user.
func (c *Client) AttachUserPolicy(ctx context.Context, user, arn string) error {
	_, err := c.iam.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String(user), PolicyArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:AttachUserPolicy %s %s: %w", user, arn, err)
	}
	return nil
}

// ManagedPolicy is a customer managed policy as ListPolicies shows it.
type ManagedPolicy struct {
	ARN, Name   string
	Attachments int
	Created     time.Time
}

// ListPolicies lists the account's own managed policies under a path.
func (c *Client) ListPolicies(ctx context.Context, prefix string) ([]ManagedPolicy, error) {
	var out []ManagedPolicy
	p := iam.NewListPoliciesPaginator(c.iam, &iam.ListPoliciesInput{PathPrefix: aws.String(prefix), Scope: iamtypes.PolicyScopeTypeLocal})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListPolicies %s: %w", prefix, err)
		}
		for _, pol := range page.Policies {
			out = append(out, ManagedPolicy{ARN: aws.ToString(pol.Arn), Name: aws.ToString(pol.PolicyName),
				Attachments: int(aws.ToInt32(pol.AttachmentCount)), Created: aws.ToTime(pol.CreateDate)})
		}
	}
	return out, nil
}
