// The shared shape: the batch bench/batch.sh has always timed. Each request
// has its own identity policy, resource policy (S3 and SQS), permissions
// boundary, session policy and SCPs on two levels, drawn so that some
// documents repeat across the batch (pools, as an account's shared policies
// do) and many are distinct.

package main

import (
	"fmt"
	"math/rand/v2"
)

const account = "111122223333"

var regions = []string{"us-east-1", "eu-west-1", "eu-north-1", "ap-southeast-2"}

// action is one action of the batch and how its resources are named.
type action struct {
	name    string
	service string
	arn     func(r *rand.Rand) string // a resource of the action
	pattern func(r *rand.Rand) string // a Resource pattern in policies
}

var actions = []action{
	{"s3:GetObject", "s3", s3Object, s3Pattern},
	{"s3:PutObject", "s3", s3Object, s3Pattern},
	{"s3:DeleteObject", "s3", s3Object, s3Pattern},
	{"sqs:SendMessage", "sqs", sqsQueue, sqsPattern},
	{"sqs:ReceiveMessage", "sqs", sqsQueue, sqsPattern},
	{"dynamodb:GetItem", "dynamodb", table, tablePattern},
	{"dynamodb:PutItem", "dynamodb", table, tablePattern},
	{"ec2:DescribeInstances", "ec2", star, star},
	{"ec2:TerminateInstances", "ec2", instance, instancePattern},
	{"logs:PutLogEvents", "logs", logStream, logPattern},
}

func star(*rand.Rand) string { return "*" }
func s3Object(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:s3:::bucket-%d/data/key-%d", r.IntN(50), r.IntN(1000))
}
func s3Pattern(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return "arn:aws:s3:::*"
	}
	return fmt.Sprintf("arn:aws:s3:::bucket-%d/*", r.IntN(50))
}
func sqsQueue(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:sqs:%s:%s:queue-%d", regions[r.IntN(len(regions))], account, r.IntN(40))
}
func sqsPattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:sqs:*:%s:queue-%d*", account, r.IntN(40))
}
func table(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/t-%d", regions[r.IntN(len(regions))], account, r.IntN(40))
}
func tablePattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:dynamodb:*:%s:table/t-%d", account, r.IntN(40))
}
func instance(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:ec2:%s:%s:instance/i-%012x", regions[r.IntN(len(regions))], account, r.Uint64()&0xffffffffffff)
}
func instancePattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:ec2:%s:%s:instance/*", regions[r.IntN(len(regions))], account)
}
func logStream(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:logs:%s:%s:log-group:app-%d:log-stream:s-%d", regions[r.IntN(len(regions))], account, r.IntN(30), r.IntN(100))
}
func logPattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:logs:*:%s:log-group:app-%d:*", account, r.IntN(30))
}

// gen holds the pools of shared documents, drawn once from the seed.
type gen struct {
	r          *rand.Rand
	identity   []named     // managed policies attached to many roles
	resource   []*document // bucket and queue policies
	boundaries []*document
	sessions   []*document
	scps       []named // the OU level's policies
}

func newGen(seed uint64) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6c65617368))}
	for i := range 200 {
		g.identity = append(g.identity, named{Name: fmt.Sprintf("managed-%d", i), Document: g.identityDoc()})
	}
	for range 100 {
		g.resource = append(g.resource, g.resourceDoc())
	}
	for range 20 {
		g.boundaries = append(g.boundaries, g.boundaryDoc())
	}
	for range 50 {
		g.sessions = append(g.sessions, g.sessionDoc())
	}
	g.scps = []named{
		{"deny-regions", &document{"2012-10-17", []statement{{Sid: "DenyOutsideRegions", Effect: "Deny", Action: "*", Resource: "*",
			Condition: map[string]any{"StringNotEquals": map[string]any{"aws:RequestedRegion": []string{"us-east-1", "eu-west-1", "eu-north-1"}}}}}}},
		{"deny-terminate", &document{"2012-10-17", []statement{{Effect: "Deny", Action: "ec2:TerminateInstances", Resource: "*"}}}},
		{"deny-insecure", &document{"2012-10-17", []statement{{Effect: "Deny", Action: []string{"s3:*", "sqs:*"}, Resource: "*",
			Condition: map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}}}}},
		{"allow-services", &document{"2012-10-17", []statement{{Effect: "Allow", Action: []string{"s3:*", "sqs:*", "dynamodb:*", "ec2:*", "logs:*"}, Resource: "*"}}}},
		{"FullAWSAccess", fullAccess()},
	}
	return g
}

func fullAccess() *document {
	return &document{"2012-10-17", []statement{{Effect: "Allow", Action: "*", Resource: "*"}}}
}

// identityDoc allows 1 to 4 of the batch's actions, sometimes with a
// condition, and sometimes denies one.
func (g *gen) identityDoc() *document {
	d := &document{Version: "2012-10-17"}
	for i := range 1 + g.r.IntN(4) {
		a := actions[g.r.IntN(len(actions))]
		s := statement{Sid: fmt.Sprintf("S%d", i), Effect: "Allow", Action: []string{a.name, a.service + ":List*"}, Resource: a.pattern(g.r)}
		switch g.r.IntN(5) {
		case 0:
			s.Condition = map[string]any{"StringEquals": map[string]any{"aws:RequestedRegion": regions[g.r.IntN(len(regions))]}}
		case 1:
			s.Condition = map[string]any{"IpAddress": map[string]any{"aws:SourceIp": "10.0.0.0/8"}}
		}
		d.Statement = append(d.Statement, s)
	}
	if g.r.IntN(4) == 0 {
		a := actions[g.r.IntN(len(actions))]
		d.Statement = append(d.Statement, statement{Sid: "NoDelete", Effect: "Deny", Action: a.name, Resource: "*"})
	}
	return d
}

func (g *gen) resourceDoc() *document {
	role := fmt.Sprintf("arn:aws:iam::%s:role/app-%d", account, g.r.IntN(100))
	principal := map[string]any{"AWS": role}
	if g.r.IntN(3) == 0 {
		principal = map[string]any{"AWS": "arn:aws:iam::" + account + ":root"}
	}
	a := actions[g.r.IntN(5)] // an S3 or SQS action
	return &document{"2012-10-17", []statement{{Effect: "Allow", Principal: principal, Action: a.service + ":*", Resource: a.pattern(g.r)}}}
}

func (g *gen) boundaryDoc() *document {
	var services []string
	for _, s := range []string{"s3", "sqs", "dynamodb", "ec2", "logs"} {
		if g.r.IntN(4) != 0 {
			services = append(services, s+":*")
		}
	}
	if len(services) == 0 {
		services = []string{"s3:*"}
	}
	return &document{"2012-10-17", []statement{{Effect: "Allow", Action: services, Resource: "*"}}}
}

func (g *gen) sessionDoc() *document {
	a := actions[g.r.IntN(len(actions))]
	return &document{"2012-10-17", []statement{{Effect: "Allow", Action: []string{a.service + ":*"}, Resource: "*"}}}
}

// request draws request i: about a third of the identity policies and half
// of the resource and session policies come from the pools, the rest are
// the request's own.
func (g *gen) request(i int) request {
	r := g.r
	a := actions[r.IntN(len(actions))]
	role := r.IntN(100)
	req := request{
		Principal: fmt.Sprintf("arn:aws:sts::%s:assumed-role/app-%d/session-%d", account, role, i),
		Action:    a.name,
		Resource:  a.arn(r),
		Context: map[string]any{
			"aws:RequestedRegion": regions[r.IntN(len(regions))],
			"aws:SecureTransport": r.IntN(8) != 0,
			"aws:SourceIp":        fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254)),
		},
	}
	for k := range 1 + r.IntN(3) {
		if r.IntN(3) == 0 {
			req.IdentityPolicies = append(req.IdentityPolicies, g.identity[r.IntN(len(g.identity))])
			continue
		}
		// An inline policy that grants the request's own action on its
		// resource half of the time, so that many requests are allowed.
		d := g.identityDoc()
		if r.IntN(2) == 0 {
			d.Statement[0].Action = a.name
			d.Statement[0].Resource = req.Resource
		}
		req.IdentityPolicies = append(req.IdentityPolicies, named{Name: fmt.Sprintf("inline-%d-%d", i, k), Document: d})
	}
	if a.service == "s3" || a.service == "sqs" {
		switch r.IntN(3) {
		case 0:
			req.ResourcePolicy = g.resource[r.IntN(len(g.resource))]
		case 1:
			d := g.resourceDoc()
			d.Statement[0].Principal = map[string]any{"AWS": fmt.Sprintf("arn:aws:iam::%s:role/app-%d", account, role)}
			d.Statement[0].Resource = req.Resource
			req.ResourcePolicy = d
		}
	}
	if r.IntN(10) < 7 {
		req.PermissionsBoundary = g.boundaries[r.IntN(len(g.boundaries))]
	}
	switch r.IntN(4) {
	case 0:
		req.SessionPolicy = g.sessions[r.IntN(len(g.sessions))]
	case 1:
		req.SessionPolicy = &document{"2012-10-17", []statement{{Effect: "Allow", Action: a.name, Resource: req.Resource}}}
	}
	level1 := []named{g.scps[r.IntN(len(g.scps))]}
	if r.IntN(2) == 0 {
		level1 = append(level1, g.scps[4]) // FullAWSAccess beside a deny
	}
	req.SCPs = [][]named{{{Name: "FullAWSAccess", Document: fullAccess()}}, level1}
	return req
}
