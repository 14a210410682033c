package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"leash.dev/leash/policy/catalog"
)

// document is a policy document; its fields are in the order people write
// them, so the printed snapshot reads as a real one does.
type document struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

type statement struct {
	Sid       string                    `json:"Sid,omitempty"`
	Effect    string                    `json:"Effect"`
	Principal any                       `json:"Principal,omitempty"`
	Action    any                       `json:"Action,omitempty"`
	NotAction any                       `json:"NotAction,omitempty"`
	Resource  any                       `json:"Resource,omitempty"`
	Condition map[string]map[string]any `json:"Condition,omitempty"`
}

// text is the document's JSON.
func (d document) text() string {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // a document of strings and maps always marshals
	}
	return string(b)
}

// oneOrMany writes a single value as a string and more as a list, as
// policy authors do.
func oneOrMany(v []string) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// services are the services generated policies grant, with the weight of
// each: the usual mix of an application account.
var services = []struct {
	prefix string
	weight int
}{
	{"s3", 20}, {"ec2", 15}, {"dynamodb", 8}, {"lambda", 8}, {"logs", 8}, {"sqs", 6},
	{"sns", 5}, {"kms", 5}, {"cloudwatch", 5}, {"secretsmanager", 4}, {"ssm", 4},
	{"ecr", 3}, {"ecs", 3}, {"rds", 3}, {"cloudformation", 2}, {"route53", 2},
	{"elasticloadbalancing", 2}, {"autoscaling", 2}, {"eks", 1}, {"sts", 1},
}

// actionPool holds each service's action names from the catalog, so that
// every generated action is one AWS has.
type actionPool struct {
	names       map[string][]string
	totalWeight int
}

func newActionPool(cat *catalog.Catalog) *actionPool {
	p := &actionPool{names: map[string][]string{}}
	for _, s := range services {
		for _, a := range cat.Expand(s.prefix + ":*") {
			p.names[s.prefix] = append(p.names[s.prefix], a.String())
		}
		if len(p.names[s.prefix]) == 0 {
			panic("catalog has no actions for " + s.prefix) // the list above names catalog services
		}
		p.totalWeight += s.weight
	}
	return p
}

func (p *actionPool) service(r *rand.Rand) string {
	n := r.IntN(p.totalWeight)
	for _, s := range services {
		if n < s.weight {
			return s.prefix
		}
		n -= s.weight
	}
	return services[0].prefix
}

// resourceFor is a resource of the service, or "*".
func resourceFor(r *rand.Rand, svc, account string, n int) string {
	if r.IntN(2) == 0 {
		return "*"
	}
	switch svc {
	case "s3":
		return fmt.Sprintf("arn:aws:s3:::app-bucket-%d/*", n)
	case "dynamodb":
		return fmt.Sprintf("arn:aws:dynamodb:us-east-1:%s:table/table-%d", account, n)
	case "sqs":
		return fmt.Sprintf("arn:aws:sqs:us-east-1:%s:queue-%d", account, n)
	case "sns":
		return fmt.Sprintf("arn:aws:sns:us-east-1:%s:topic-%d", account, n)
	case "lambda":
		return fmt.Sprintf("arn:aws:lambda:us-east-1:%s:function:fn-%d", account, n)
	case "logs":
		return fmt.Sprintf("arn:aws:logs:us-east-1:%s:log-group:/app/%d:*", account, n)
	case "secretsmanager":
		return fmt.Sprintf("arn:aws:secretsmanager:us-east-1:%s:secret:app-%d-*", account, n)
	case "kms":
		return fmt.Sprintf("arn:aws:kms:us-east-1:%s:key/*", account)
	}
	return fmt.Sprintf("arn:aws:%s:us-east-1:%s:*", svc, account)
}

// permissions is an identity policy of one to four statements over the
// weighted services: specific actions from the catalog or Get/List/Describe
// wildcards, on "*" or on named resources, now and then a Deny or a
// condition.
func (g *generator) permissions() document {
	d := document{Version: "2012-10-17"}
	for range 1 + g.r.IntN(4) {
		svc := g.pool.service(g.r)
		s := statement{Effect: "Allow"}
		if g.r.IntN(10) == 0 {
			s.Effect = "Deny"
		}
		if g.r.IntN(3) == 0 {
			s.Action = oneOrMany(g.wildcards(svc))
		} else {
			names := g.pool.names[svc]
			var acts []string
			for range 1 + g.r.IntN(5) {
				acts = appendNew(acts, names[g.r.IntN(len(names))])
			}
			s.Action = oneOrMany(acts)
		}
		s.Resource = resourceFor(g.r, svc, g.account, g.r.IntN(1000))
		switch g.r.IntN(12) {
		case 0:
			s.Condition = map[string]map[string]any{"StringEquals": {"aws:RequestedRegion": []string{"us-east-1", "eu-west-1"}}}
		case 1:
			s.Condition = map[string]map[string]any{"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}
		}
		d.Statement = append(d.Statement, s)
	}
	return d
}

// wildcards are read-style action patterns of a service, each matching at
// least one catalog action.
func (g *generator) wildcards(svc string) []string {
	var out []string
	for _, verb := range []string{"Get", "List", "Describe"} {
		if g.r.IntN(2) == 0 {
			continue
		}
		if p := svc + ":" + verb + "*"; len(g.cat.Expand(p)) > 0 {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = append(out, svc+":*")
	}
	return out
}

// boundaryDocument allows a handful of whole services and nothing of IAM:
// the ceiling teams put on the principals they create.
func (g *generator) boundaryDocument() document {
	var acts []string
	for range 2 + g.r.IntN(4) {
		acts = appendNew(acts, g.pool.service(g.r)+":*")
	}
	return document{Version: "2012-10-17", Statement: []statement{
		{Sid: "Ceiling", Effect: "Allow", Action: oneOrMany(acts), Resource: "*"},
		{Sid: "NoIAM", Effect: "Deny", Action: "iam:*", Resource: "*"},
	}}
}

// appendNew appends s unless list has it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// trustServices are the services most roles trust, with weights.
var trustServices = []string{"ec2.amazonaws.com", "ec2.amazonaws.com", "lambda.amazonaws.com", "lambda.amazonaws.com", "ecs-tasks.amazonaws.com"}

func serviceTrust(svc string) document {
	return document{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Principal: map[string]any{"Service": svc}, Action: "sts:AssumeRole"},
	}}
}

func awsTrust(arns []string, mfa bool) document {
	s := statement{Effect: "Allow", Principal: map[string]any{"AWS": oneOrMany(arns)}, Action: "sts:AssumeRole"}
	if mfa {
		s.Condition = map[string]map[string]any{"Bool": {"aws:MultiFactorAuthPresent": "true"}}
	}
	return document{Version: "2012-10-17", Statement: []statement{s}}
}

// awsManaged are the AWS managed policies generated accounts attach. The
// documents are written here in the spirit of AWS's (read-only, admin,
// power user, a service role's), not copied from them.
var awsManaged = []struct {
	path, name string
	doc        document
}{
	{"/", "ReadOnlyAccess", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{
		"cloudwatch:Describe*", "cloudwatch:Get*", "cloudwatch:List*", "dynamodb:Describe*", "dynamodb:List*",
		"ec2:Describe*", "ec2:Get*", "iam:Get*", "iam:List*", "lambda:Get*", "lambda:List*", "logs:Describe*",
		"logs:Get*", "s3:Get*", "s3:List*", "sqs:Get*", "sqs:List*"}, Resource: "*"}}}},
	{"/", "AdministratorAccess", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: "*", Resource: "*"}}}},
	{"/", "PowerUserAccess", document{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", NotAction: []string{"iam:*", "organizations:*", "account:*"}, Resource: "*"},
		{Effect: "Allow", Action: []string{"iam:CreateServiceLinkedRole", "iam:ListRoles", "organizations:DescribeOrganization"}, Resource: "*"},
	}}},
	{"/", "AmazonEC2ReadOnlyAccess", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{
		"ec2:Describe*", "elasticloadbalancing:Describe*", "autoscaling:Describe*", "cloudwatch:ListMetrics"}, Resource: "*"}}}},
	{"/", "AmazonS3ReadOnlyAccess", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{"s3:Get*", "s3:List*"}, Resource: "*"}}}},
	{"/", "IAMReadOnlyAccess", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{"iam:Get*", "iam:List*"}, Resource: "*"}}}},
	{"/service-role/", "AWSLambdaBasicExecutionRole", document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: []string{
		"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}, Resource: "*"}}}},
}

// privileges are the grants that open escalation paths, one of which a few
// principals get as an inline policy, so that who-can and escalation
// searches over a generated account have paths to find.
func privileges(account string) []struct {
	name     string
	forUsers bool
	doc      document
} {
	allow := func(acts []string, res string) document {
		return document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: oneOrMany(acts), Resource: res}}}
	}
	return []struct {
		name     string
		forUsers bool
		doc      document
	}{
		{"iam-admin", false, allow([]string{"iam:*"}, "*")},
		{"pass-role-to-ec2", false, allow([]string{"iam:PassRole", "ec2:RunInstances"}, "*")},
		{"pass-role-to-lambda", false, allow([]string{"iam:PassRole", "lambda:CreateFunction", "lambda:InvokeFunction"}, "*")},
		{"create-access-keys", true, allow([]string{"iam:CreateAccessKey"}, "arn:aws:iam::"+account+":user/*")},
		{"attach-user-policy", true, allow([]string{"iam:AttachUserPolicy"}, "arn:aws:iam::"+account+":user/*")},
		{"put-role-policy", false, allow([]string{"iam:PutRolePolicy", "iam:UpdateAssumeRolePolicy"}, "arn:aws:iam::"+account+":role/*")},
	}
}
