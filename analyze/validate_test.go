package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

func v12(statements string) string {
	return `{"Version":"2012-10-17","Statement":[` + statements + `]}`
}

func TestValidateRules(t *testing.T) {
	cases := []ruleCase{
		// VAL-001: unknown service.
		{name: "unknown service", doc: v12(`{"Effect":"Allow","Action":"ec3:DescribeInstances","Resource":"*"}`),
			id: "LEASH-VAL-001", severity: High, path: "Statement[0].Action", want: "did you mean ec2:DescribeInstances?"},
		{name: "unknown service in a list of NotAction", doc: v12(`{"Effect":"Deny","NotAction":["s3:*","iamm:*"],"Resource":"*"}`),
			id: "LEASH-VAL-001", severity: High, path: "Statement[0].NotAction[1]", want: "iam:*"},
		{name: "known service", doc: v12(`{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}`),
			id: "LEASH-VAL-001", severity: -1},
		{name: "every action is no unknown service", doc: v12(`{"Effect":"Allow","Action":"*:*","Resource":"*"}`),
			id: "LEASH-VAL-001", severity: -1},

		// VAL-002: unknown action or pattern.
		{name: "misspelt action", doc: v12(`{"Effect":"Allow","Action":["s3:GetObject","s3:GetObjekt"],"Resource":"*"}`),
			id: "LEASH-VAL-002", severity: High, path: "Statement[0].Action[1]", want: "did you mean s3:GetObject?"},
		{name: "pattern matching no action", doc: v12(`{"Effect":"Allow","Action":"ec2:Descibe*","Resource":"*"}`),
			id: "LEASH-VAL-002", severity: High, path: "Statement[0].Action", want: "ec2:Describe*"},
		{name: "action names ignore case", doc: v12(`{"Effect":"Allow","Action":"S3:getobject","Resource":"*"}`),
			id: "LEASH-VAL-002", severity: -1},
		{name: "pattern matching actions", doc: v12(`{"Effect":"Allow","Action":"s3:Get*","Resource":"*"}`),
			id: "LEASH-VAL-002", severity: -1},

		// VAL-003: a resource no action of the statement takes.
		{name: "bucket ARN for an object action", doc: v12(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops"}`),
			id: "LEASH-VAL-003", severity: Medium, path: "Statement[0].Resource", want: "arn:${Partition}:s3:::${BucketName}/${ObjectName}"},
		{name: "resource a Deny cannot name fails open", doc: v12(`{"Effect":"Deny","Action":"iam:PutRolePolicy","Resource":["arn:aws:iam::123456789012:role/a","arn:aws:iam::123456789012:user/a"]}`),
			id: "LEASH-VAL-003", severity: High, path: "Statement[0].Resource[1]"},
		{name: "NotResource an Allow cannot name fails open", doc: v12(`{"Effect":"Allow","Action":"s3:GetObject","NotResource":"arn:aws:s3:::secret"}`),
			id: "LEASH-VAL-003", severity: High, path: "Statement[0].NotResource"},
		{name: "ARN for an action that supports only *", doc: v12(`{"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"arn:aws:iam::123456789012:role/a"}`),
			id: "LEASH-VAL-003", severity: Medium, path: "Statement[0].Resource", want: `"Resource": "*"`},
		{name: "wildcard action with an action taking the ARN", doc: v12(`{"Effect":"Allow","Action":"s3:Get*","Resource":"arn:aws:s3:::krops"}`),
			id: "LEASH-VAL-003", severity: -1},
		{name: "object ARN with a policy variable", doc: v12(`{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::krops/home/${aws:username}/*"}`),
			id: "LEASH-VAL-003", severity: -1},
		{name: "second of two ARN formats of a type", doc: v12(`{"Effect":"Allow","Action":"apigateway:GET","Resource":"arn:aws:apigateway:eu-north-1::/restapis/a1b2/authorizers/*"}`),
			id: "LEASH-VAL-003", severity: -1},
		{name: "resource star", doc: v12(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}`),
			id: "LEASH-VAL-003", severity: -1},
		{name: "unknown action is reported once", doc: v12(`{"Effect":"Allow","Action":"s3:GetObjekt","Resource":"arn:aws:ec2:*:*:instance/*"}`),
			id: "LEASH-VAL-003", severity: -1},
		{name: "every action and a service that does not exist", doc: v12(`{"Effect":"Deny","Action":"*","Resource":"arn:aws:nosuch:::thing"}`),
			id: "LEASH-VAL-003", severity: High, path: "Statement[0].Resource"},
		{name: "every action and a real resource", doc: v12(`{"Effect":"Deny","Action":"*","Resource":"arn:aws:s3:::krops/*"}`),
			id: "LEASH-VAL-003", severity: -1},

		// VAL-004: condition keys.
		{name: "service key of another service", doc: v12(`{"Effect":"Allow","Action":"iam:GetRole","Resource":"*","Condition":{"StringEquals":{"s3:prefix":"home/"}}}`),
			id: "LEASH-VAL-004", severity: Medium, path: "Statement[0].Condition.StringEquals.s3:prefix", want: "never holds"},
		{name: "negated operator on a key never present fails open", doc: v12(`{"Effect":"Allow","Action":"iam:GetRole","Resource":"*","Condition":{"StringNotEquals":{"ec2:Region":"us-east-1"}}}`),
			id: "LEASH-VAL-004", severity: High, path: "Statement[0].Condition.StringNotEquals.ec2:Region", want: "restricts nothing"},
		{name: "Deny on a key never present fails open", doc: v12(`{"Effect":"Deny","Action":"iam:PutRolePolicy","Resource":"*","Condition":{"StringEquals":{"s3:prefix":"x"}}}`),
			id: "LEASH-VAL-004", severity: High, path: "Statement[0].Condition.StringEquals.s3:prefix"},
		{name: "misspelt key", doc: v12(`{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToServce":"ec2.amazonaws.com"}}}`),
			id: "LEASH-VAL-004", severity: Medium, path: "Statement[0].Condition.StringEquals.iam:PassedToServce", want: "did you mean iam:PassedToService?"},
		{name: "key of the action", doc: v12(`{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"ec2.amazonaws.com"}}}`),
			id: "LEASH-VAL-004", severity: -1},
		{name: "global keys apply to every action", doc: v12(`{"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"StringEquals":{"aws:ResourceTag/team":"krops"}}}`),
			id: "LEASH-VAL-004", severity: -1},
		{name: "key of one action a pattern matches", doc: v12(`{"Effect":"Allow","Action":"s3:List*","Resource":"*","Condition":{"StringLike":{"s3:prefix":"home/*"}}}`),
			id: "LEASH-VAL-004", severity: -1},
		{name: "web identity claims are not checked", kind: policy.Trust,
			doc: v12(`{"Effect":"Allow","Principal":{"Federated":"` + githubProvider + `"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"token.actions.githubusercontent.com:sub":"repo:a/b:ref:refs/heads/main","token.actions.githubusercontent.com:aud":"sts.amazonaws.com"}}}`),
			id:  "LEASH-VAL-004", severity: -1},

		// VAL-005: malformed ARNs.
		{name: "short account", doc: v12(`{"Effect":"Allow","Action":"iam:GetRole","Resource":"arn:aws:iam::12345:role/a"}`),
			id: "LEASH-VAL-005", severity: Medium, path: "Statement[0].Resource", want: `account "12345"`},
		{name: "malformed ARN in a Deny fails open", doc: v12(`{"Effect":"Deny","Action":"iam:GetRole","Resource":["*","arn:aws-foo:iam::123456789012:role/a"]}`),
			id: "LEASH-VAL-005", severity: High, path: "Statement[0].Resource[1]", want: `partition "aws-foo"`},
		{name: "empty service", doc: v12(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws::::krops"}`),
			id: "LEASH-VAL-005", severity: Medium, path: "Statement[0].Resource", want: "empty service"},
		{name: "variables and wildcards in any part", doc: v12(`{"Effect":"Allow","Action":"iam:GetRole","Resource":["arn:*:iam::*:role/${aws:username}","arn:aws:iam::aws:policy/ReadOnlyAccess","arn:aws:s3:::krops/${aws:userid}:x"]}`),
			id: "LEASH-VAL-005", severity: -1},

		// VAL-006: Version.
		{name: "no Version", doc: `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`,
			id: "LEASH-VAL-006", severity: Low, path: "Version"},
		{name: "no Version with policy variables", doc: `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops/${aws:username}/*"}]}`,
			id: "LEASH-VAL-006", severity: Medium, path: "Version", want: "literal text"},
		{name: "Version 2008", doc: `{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`,
			id: "LEASH-VAL-006", severity: Low, path: "Version", want: `"Version": "2012-10-17"`},
		{name: "Version 2012", doc: v12(`{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}`),
			id: "LEASH-VAL-006", severity: -1},

		// VAL-007: an action none of the statement's resources names.
		{name: "instance profile action on roles only", doc: v12(`{"Effect":"Allow","Action":["iam:GetInstanceProfile","iam:GetRole"],"Resource":"arn:aws:iam::*:role/krops-*"}`),
			id: "LEASH-VAL-007", severity: Medium, path: "Statement[0].Action[0]", want: "instance-profile/${InstanceProfileNameWithPath}"},
		{name: "action that supports only * among ARNs", doc: v12(`{"Effect":"Allow","Action":["sts:GetCallerIdentity","iam:GetRole"],"Resource":"arn:aws:iam::*:role/krops-*"}`),
			id: "LEASH-VAL-007", severity: Medium, path: "Statement[0].Action[0]", want: `"Resource": "*"`},
		{name: "Deny of an action on resources it cannot name fails open", doc: v12(`{"Effect":"Deny","Action":["iam:DeleteInstanceProfile","iam:DeleteRole"],"Resource":"arn:aws:iam::*:role/krops-*"}`),
			id: "LEASH-VAL-007", severity: High, path: "Statement[0].Action[0]"},
		{name: "bucket and objects", doc: v12(`{"Effect":"Allow","Action":["s3:ListBucket","s3:GetObject"],"Resource":["arn:aws:s3:::krops","arn:aws:s3:::krops/*"]}`),
			id: "LEASH-VAL-007", severity: -1},
		{name: "star among the resources", doc: v12(`{"Effect":"Allow","Action":["sts:GetCallerIdentity","iam:GetRole"],"Resource":["arn:aws:iam::*:role/krops-*","*"]}`),
			id: "LEASH-VAL-007", severity: -1},
	}
	checkRuleCases(t, cases, func(doc *policy.Document) []Finding { return Validate(doc, "app-policy", nil) })
}

// The seed's krops-ci-e2e policies are valid against the catalog, except
// for one action in the sweep policy's role statement that acts only on
// instance profiles (which its next statement grants).
func TestValidateKropsCIE2E(t *testing.T) {
	for _, name := range []string{"ack-mgmt", "self-deny", "sweep"} {
		fs := Validate(docFile(t, policy.Identity, "krops-ci-e2e/"+name+".json"), name, nil)
		if name == "sweep" {
			if len(fs) != 1 || fs[0].ID != "LEASH-VAL-007" || fs[0].Path != "Statement[1].Action[7]" ||
				!strings.Contains(fs[0].Message, "iam:RemoveRoleFromInstanceProfile") {
				t.Errorf("sweep: %v, want LEASH-VAL-007 on iam:RemoveRoleFromInstanceProfile", fs)
			}
			continue
		}
		if len(fs) != 0 {
			t.Errorf("%s: %v, want no finding", name, fs)
		}
	}
	if fs := Validate(docFile(t, policy.Trust, "krops-ci-e2e/trust.json"), "trust", nil); len(fs) != 0 {
		t.Errorf("trust: %v, want no finding", fs)
	}
}

// Documents built in Go, not parsed, can hold ARNs Parse rejects.
func TestValidateUnparsedARNs(t *testing.T) {
	doc := &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{{
		Effect: policy.Allow, Action: []string{"s3:GetObject"},
		Resource: []string{"arn:aws:s3", "s3://krops/x", "arn:aws:s3:::krops/x y", "arn:aws:s3:::krops/*"},
	}}}
	fs := withID(Validate(doc, "built", nil), "LEASH-VAL-005")
	want := map[string]string{
		"Statement[0].Resource[0]": "3 colon-separated parts",
		"Statement[0].Resource[1]": `does not start with "arn:"`,
		"Statement[0].Resource[2]": "whitespace",
	}
	if len(fs) != len(want) {
		t.Fatalf("got %v, want %d findings", fs, len(want))
	}
	for _, f := range fs {
		if w, ok := want[f.Path]; !ok || !strings.Contains(f.Message, w) {
			t.Errorf("%v: want %q", f, w)
		}
	}
	if fs := withID(Validate(doc, "built", nil), "LEASH-VAL-003"); len(fs) != 0 {
		t.Errorf("malformed ARNs reported again: %v", fs)
	}
}

func TestValidateNil(t *testing.T) {
	if fs := Validate(nil, "none", nil); fs != nil {
		t.Errorf("nil document: %v", fs)
	}
}

// Some services' tables write the tag key placeholder as tag-key, and role
// credentials carry service keys into every request.
func TestValidateConditionKeyForms(t *testing.T) {
	for _, doc := range []string{
		v12(`{"Effect":"Allow","Action":"secretsmanager:GetSecretValue","Resource":"*","Condition":{"StringEquals":{"secretsmanager:ResourceTag/aws:secretsmanager:owningService":"x"}}}`),
		v12(`{"Effect":"Allow","Action":"ssm:DeregisterManagedInstance","Resource":"*","Condition":{"StringEquals":{"ssm:resourceTag/team":"krops"}}}`),
		v12(`{"Effect":"Deny","Action":"s3:GetObject","Resource":"*","Condition":{"ArnNotEquals":{"ec2:SourceInstanceARN":"arn:aws:ec2:eu-north-1:123456789012:instance/i-1"}}}`),
	} {
		if fs := withID(Validate(docOf(t, policy.Identity, doc), "p", nil), "LEASH-VAL-004"); len(fs) != 0 {
			t.Errorf("%s: %v", doc, fs)
		}
	}
}
