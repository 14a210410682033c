// The wide shape: few documents shared, each request carrying large
// documents of its own, with every condition operator family on global
// keys only (keys that apply to every action, so that the peer's strict
// mode keeps them all).

package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

const otherAccount = "444455556666"

// org is the organization of the batch's accounts; a few requests come from
// another.
const (
	orgID   = "o-a1b2c3d4e5"
	orgPath = orgID + "/r-ab12/ou-ab12-11111111/ou-ab12-22222222/"
)

// wideActions are the actions a wide request calls: the shared shape's and
// three services with resource policies of their own.
var wideActions = append(append([]action{}, actions...),
	action{"sns:Publish", "sns", topic, topicPattern},
	action{"lambda:InvokeFunction", "lambda", function, functionPattern},
	action{"secretsmanager:GetSecretValue", "secretsmanager", secret, secretPattern},
)

func topic(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:sns:%s:%s:topic-%d", regions[r.IntN(len(regions))], account, r.IntN(30))
}
func topicPattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:sns:*:%s:topic-%d*", account, r.IntN(30))
}
func function(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:fn-%d", regions[r.IntN(len(regions))], account, r.IntN(30))
}
func functionPattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:fn-*", regions[r.IntN(len(regions))], account)
}
func secret(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:app/s-%d-AbCdEf", regions[r.IntN(len(regions))], account, r.IntN(30))
}
func secretPattern(r *rand.Rand) string {
	return fmt.Sprintf("arn:aws:secretsmanager:*:%s:secret:app/s-%d-??????", account, r.IntN(30))
}

// policyActions are what statements list besides the requests' actions:
// real actions and wildcards of the batch's services and a few others.
var policyActions = []string{
	"s3:ListBucket", "s3:GetBucketPolicy", "s3:PutObjectAcl", "s3:GetObjectVersion", "s3:Get*", "s3:List*",
	"sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:*Message*",
	"dynamodb:Query", "dynamodb:Scan", "dynamodb:UpdateItem", "dynamodb:BatchGetItem", "dynamodb:*Item",
	"ec2:StartInstances", "ec2:StopInstances", "ec2:RunInstances", "ec2:CreateTags", "ec2:Describe*",
	"logs:CreateLogStream", "logs:CreateLogGroup", "logs:*",
	"kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*",
	"sns:Publish", "sns:Subscribe", "sns:Get*",
	"lambda:InvokeFunction", "lambda:Get*", "secretsmanager:GetSecretValue", "secretsmanager:Describe*",
	"iam:PassRole", "iam:Get*", "cloudwatch:PutMetricData", "sts:AssumeRole", "sts:TagSession",
}

var (
	teams    = []string{"platform", "data-1", "data-2", "web", "security"}
	envs     = []string{"prod", "stage", "dev"}
	vpces    = []string{"vpce-0a1b2c3d", "vpce-11aa22bb"}
	services = []string{"s3", "sqs", "dynamodb", "ec2", "logs", "sns", "lambda", "secretsmanager"}
)

// wideGen draws wide requests; pool is the few identity policies shared.
type wideGen struct {
	r    *rand.Rand
	pool []named
}

func newWide(seed uint64) *wideGen {
	g := &wideGen{r: rand.New(rand.NewPCG(seed, 0x77696465))}
	for i := range 500 {
		g.pool = append(g.pool, named{Name: fmt.Sprintf("managed-%d", i), Document: g.identityDoc(10+g.r.IntN(11), nil)})
	}
	return g
}

// pick returns one of list.
func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// some returns 1 to n distinct elements of list, in list order.
func some[T any](r *rand.Rand, list []T, n int) []T {
	k := min(1+r.IntN(n), len(list))
	idx := r.Perm(len(list))[:k]
	slices.Sort(idx)
	out := make([]T, k)
	for i, j := range idx {
		out[i] = list[j]
	}
	return out
}

// condition draws one condition operator and key with values that the
// batch's contexts sometimes meet and sometimes do not.
func (g *wideGen) condition(into map[string]any) {
	r := g.r
	var op, key string
	var v any
	switch r.IntN(22) {
	case 0:
		op, key, v = "StringEquals", "aws:RequestedRegion", some(r, regions, 3)
	case 1:
		op, key, v = "StringNotEquals", "aws:RequestedRegion", some(r, regions, 2)
	case 2:
		op, key, v = "StringLike", "aws:PrincipalTag/team", []string{"plat*", "data-?"}
	case 3:
		op, key, v = "StringEqualsIgnoreCase", "aws:PrincipalTag/env", "PROD"
	case 4:
		op, key, v = "ArnLike", "aws:PrincipalArn", fmt.Sprintf("arn:aws:iam::%s:role/app-%d*", account, r.IntN(10))
	case 5:
		op, key, v = "ArnNotLike", "aws:PrincipalArn", []string{fmt.Sprintf("arn:aws:iam::%s:role/admin-*", account), "arn:aws:iam::*:role/break-glass"}
	case 6:
		op, key, v = "IpAddress", "aws:SourceIp", []string{"10.0.0.0/8", "192.168.0.0/16", "2001:db8::/32"}
	case 7:
		op, key, v = "NotIpAddress", "aws:SourceIp", "203.0.113.0/24"
	case 8:
		op, key, v = "DateGreaterThan", "aws:CurrentTime", fmt.Sprintf("2026-%02d-01T00:00:00Z", 1+r.IntN(12))
	case 9:
		op, key, v = "DateLessThan", "aws:CurrentTime", fmt.Sprintf("2026-%02d-15T00:00:00Z", 1+r.IntN(12))
	case 10:
		op, key = "NumericLessThan", "aws:MultiFactorAuthAge"
		if r.IntN(2) == 0 {
			v = 3600 // a number, not a string
		} else {
			v = "3600"
		}
	case 11:
		op, key, v = "NumericLessThanEquals", "aws:EpochTime", fmt.Sprint(1780000000+r.IntN(20000000))
	case 12:
		op, key, v = "Bool", "aws:MultiFactorAuthPresent", true
	case 13:
		op, key, v = "BoolIfExists", "aws:MultiFactorAuthPresent", "true"
	case 14:
		op, key, v = "Null", "aws:MultiFactorAuthAge", "false"
	case 15:
		op, key, v = "ForAnyValue:StringEquals", "aws:CalledVia", []string{"cloudformation.amazonaws.com", "athena.amazonaws.com"}
	case 16:
		op, key, v = "ForAllValues:StringLike", "aws:PrincipalOrgPaths", []string{orgID + "/r-ab12/*"}
	case 17:
		op, key, v = "StringEqualsIfExists", "aws:SourceVpce", pick(r, vpces)
	case 18:
		op, key, v = "StringEquals", "aws:PrincipalOrgID", orgID
	case 19:
		op, key, v = "StringLike", "aws:userid", "AROA*:session-*"
	case 20:
		op, key, v = "NumericGreaterThanIfExists", "aws:MultiFactorAuthAge", 60
	case 21:
		op, key, v = "Bool", "aws:SecureTransport", "true"
	}
	keys, ok := into[op].(map[string]any)
	if !ok {
		keys = map[string]any{}
		into[op] = keys
	}
	keys[key] = v
}

// conditions draws none to three conditions.
func (g *wideGen) conditions(max int) map[string]any {
	n := g.r.IntN(max + 2)
	if n == 0 || n > max {
		return nil
	}
	c := map[string]any{}
	for range n {
		g.condition(c)
	}
	return c
}

// statement draws an identity statement: many actions and resources,
// sometimes NotAction or NotResource, sometimes a policy variable.
func (g *wideGen) statement(sid int) statement {
	r := g.r
	s := statement{Sid: fmt.Sprintf("Stmt%d", sid), Effect: "Allow"}
	if r.IntN(7) == 0 {
		s.Effect = "Deny"
	}
	list := some(r, policyActions, 6)
	if r.IntN(3) == 0 {
		list = append(list, pick(r, wideActions).name)
	}
	if r.IntN(8) == 0 {
		s.NotAction = list
	} else if len(list) == 1 && r.IntN(2) == 0 {
		s.Action = list[0]
	} else {
		s.Action = list
	}
	var res []string
	for range 1 + r.IntN(4) {
		res = append(res, pick(r, wideActions).pattern(r))
	}
	if r.IntN(6) == 0 {
		res = append(res, "arn:aws:s3:::bucket-${aws:PrincipalTag/team}/*")
	}
	switch {
	case r.IntN(10) == 0:
		s.NotResource = res
	case r.IntN(8) == 0:
		s.Resource = "*"
	default:
		s.Resource = res
	}
	s.Condition = g.conditions(3)
	return s
}

// identityDoc is a document of n statements; when grant is not nil, one of
// them is replaced by grant.
func (g *wideGen) identityDoc(n int, grant *statement) *document {
	d := &document{Version: "2012-10-17"}
	for i := range n {
		d.Statement = append(d.Statement, g.statement(i))
	}
	if grant != nil {
		d.Statement[g.r.IntN(n)] = *grant
	}
	return d
}

// grant is a statement allowing the request's action on its resource,
// maybe under conditions.
func (g *wideGen) grant(a action, resource string) statement {
	r := g.r
	s := statement{Sid: "Grant", Effect: "Allow", Condition: g.conditions(2)}
	acts := []string{a.name, a.service + ":*", a.service + ":" + a.name[len(a.service)+1:len(a.service)+4] + "*"}
	s.Action = append(some(r, policyActions, 3), acts[r.IntN(len(acts))])
	if r.IntN(2) == 0 {
		s.Resource = []string{resource, a.pattern(r)}
	} else {
		s.Resource = resource
	}
	return s
}

func (g *wideGen) request(i int) request {
	r := g.r
	a := pick(r, wideActions)
	role := r.IntN(100)
	acct := account
	if r.IntN(10) == 0 {
		acct = otherAccount
	}
	req := request{Action: a.name, Resource: a.arn(r)}
	session := r.IntN(6) != 0
	if !session {
		req.Principal = fmt.Sprintf("arn:aws:iam::%s:user/dev-%d", acct, role)
	} else {
		req.Principal = fmt.Sprintf("arn:aws:sts::%s:assumed-role/app-%d/session-%d", acct, role, i)
	}
	req.Context = g.context(i)

	// Identity policies: 10 to 40 statements in one to three documents,
	// one in ten a shared managed policy; two times in three one of them
	// grants the request.
	total := 10 + r.IntN(31)
	docs := 1 + r.IntN(3)
	granted := r.IntN(3) != 0
	for k := range docs {
		if r.IntN(10) == 0 {
			req.IdentityPolicies = append(req.IdentityPolicies, pick(r, g.pool))
			continue
		}
		var grant *statement
		if granted && k == 0 {
			s := g.grant(a, req.Resource)
			grant = &s
		}
		req.IdentityPolicies = append(req.IdentityPolicies, named{
			Name: fmt.Sprintf("inline-%d-%d", i, k), Document: g.identityDoc(max(1, total/docs), grant)})
	}
	switch a.service {
	case "s3", "sqs", "sns", "lambda", "secretsmanager":
		if r.IntN(3) != 0 {
			req.ResourcePolicy = g.resourceDoc(a, req.Resource, role)
		}
	}
	if r.IntN(10) < 7 {
		req.PermissionsBoundary = g.boundaryDoc(a)
	}
	// Session policies only for role sessions: the peer refuses one for
	// an IAM user.
	if session && r.IntN(2) == 0 {
		d := &document{Version: "2012-10-17"}
		for range 1 + r.IntN(3) {
			d.Statement = append(d.Statement, statement{Effect: "Allow", Action: some(r, []string{a.name, a.service + ":*", "s3:*", "sqs:*", "dynamodb:*", "ec2:*"}, 3), Resource: "*"})
		}
		req.SessionPolicy = d
	}
	req.SCPs = g.scps(a)
	if r.IntN(2) == 0 {
		req.RCPs = g.rcps()
	}
	return req
}

// context holds global keys only, some absent, some multivalued.
func (g *wideGen) context(i int) map[string]any {
	r := g.r
	c := map[string]any{
		"aws:RequestedRegion":   pick(r, regions),
		"aws:SecureTransport":   r.IntN(8) != 0,
		"aws:CurrentTime":       fmt.Sprintf("2026-%02d-%02dT12:00:00Z", 1+r.IntN(12), 1+r.IntN(28)),
		"aws:EpochTime":         1780000000 + r.IntN(20000000),
		"aws:PrincipalTag/team": pick(r, teams),
		"aws:PrincipalTag/env":  pick(r, envs),
		"aws:userid":            fmt.Sprintf("AROAEXAMPLEID%d:session-%d", r.IntN(100), i),
	}
	if r.IntN(4) == 0 {
		c["aws:SourceIp"] = fmt.Sprintf("203.0.113.%d", 1+r.IntN(254))
	} else {
		c["aws:SourceIp"] = fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254))
	}
	if r.IntN(3) != 0 {
		c["aws:MultiFactorAuthPresent"] = r.IntN(4) != 0
		c["aws:MultiFactorAuthAge"] = r.IntN(7200)
	}
	if r.IntN(10) != 0 {
		c["aws:PrincipalOrgID"] = orgID
		c["aws:PrincipalOrgPaths"] = []string{orgPath}
	} else {
		c["aws:PrincipalOrgID"] = "o-zzzzzzzzzz"
		c["aws:PrincipalOrgPaths"] = []string{"o-zzzzzzzzzz/r-zz99/ou-zz99-33333333/"}
	}
	if r.IntN(4) == 0 {
		c["aws:CalledVia"] = some(r, []string{"cloudformation.amazonaws.com", "athena.amazonaws.com", "dynamodb.amazonaws.com"}, 2)
	}
	if r.IntN(2) == 0 {
		c["aws:SourceVpce"] = pick(r, vpces)
	}
	return c
}

// resourceDoc names principals by role, account ID and root, grants or
// denies, sometimes to everyone under a condition.
func (g *wideGen) resourceDoc(a action, resource string, role int) *document {
	r := g.r
	d := &document{Version: "2012-10-17"}
	for range 2 + r.IntN(5) {
		var s statement
		switch r.IntN(5) {
		case 0:
			s = statement{Effect: "Deny", Principal: "*", Action: a.service + ":*", Resource: a.pattern(r),
				Condition: map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}}
		case 1:
			s = statement{Effect: "Allow", Principal: map[string]any{"AWS": "*"}, Action: []string{a.name, a.service + ":Get*"}, Resource: a.pattern(r),
				Condition: map[string]any{"StringEquals": map[string]any{"aws:PrincipalOrgID": orgID}}}
		case 2:
			s = statement{Effect: "Allow", Principal: map[string]any{"Service": []string{"cloudformation.amazonaws.com", a.service + ".amazonaws.com"}}, Action: a.name, Resource: resource}
		default:
			principals := []string{
				fmt.Sprintf("arn:aws:iam::%s:role/app-%d", account, r.IntN(100)),
				fmt.Sprintf("arn:aws:iam::%s:role/app-%d", otherAccount, r.IntN(100)),
				otherAccount,
				"arn:aws:iam::" + account + ":root",
			}
			if r.IntN(2) == 0 {
				principals = append(principals, fmt.Sprintf("arn:aws:iam::%s:role/app-%d", account, role))
			}
			s = statement{Effect: "Allow", Principal: map[string]any{"AWS": some(r, principals, 4)}, Action: some(r, []string{a.name, a.service + ":*", a.service + ":List*"}, 2), Resource: []string{resource, a.pattern(r)}, Condition: g.conditions(1)}
		}
		d.Statement = append(d.Statement, s)
	}
	return d
}

func (g *wideGen) boundaryDoc(a action) *document {
	r := g.r
	var allowed []string
	for _, s := range services {
		if s == a.service && r.IntN(6) != 0 || r.IntN(3) == 0 {
			allowed = append(allowed, s+":*")
		}
	}
	if len(allowed) == 0 {
		allowed = []string{"iam:Get*"}
	}
	d := &document{Version: "2012-10-17", Statement: []statement{{Sid: "Services", Effect: "Allow", Action: allowed, Resource: "*"}}}
	for range r.IntN(4) {
		d.Statement = append(d.Statement, statement{Effect: "Deny", Action: some(r, policyActions, 4), Resource: "*", Condition: g.conditions(1)})
	}
	return d
}

// scps are 3 to 5 levels: FullAWSAccess at the root, then at each level one
// to three of an allow list of services, a region deny, a deny by tag and
// FullAWSAccess.
func (g *wideGen) scps(a action) [][]named {
	r := g.r
	levels := [][]named{{{Name: "FullAWSAccess", Document: fullAccess()}}}
	for l := range 2 + r.IntN(3) {
		var level []named
		if r.IntN(5) != 0 {
			level = append(level, named{Name: "FullAWSAccess", Document: fullAccess()})
		} else {
			var allowed []string
			for _, s := range services {
				if s == a.service && r.IntN(8) != 0 || r.IntN(2) == 0 {
					allowed = append(allowed, s+":*")
				}
			}
			if len(allowed) == 0 {
				allowed = []string{"iam:*"}
			}
			level = append(level, named{Name: fmt.Sprintf("allow-services-%d", l), Document: &document{Version: "2012-10-17",
				Statement: []statement{{Effect: "Allow", Action: allowed, Resource: "*"}}}})
		}
		for range r.IntN(3) {
			var d *document
			switch r.IntN(3) {
			case 0:
				d = &document{Version: "2012-10-17", Statement: []statement{{Sid: "DenyOutsideRegions", Effect: "Deny",
					NotAction: []string{"iam:*", "sts:*", "organizations:*", "cloudfront:*"}, Resource: "*",
					Condition: map[string]any{"StringNotEquals": map[string]any{"aws:RequestedRegion": some(r, regions, 4)}}}}}
			case 1:
				d = &document{Version: "2012-10-17", Statement: []statement{{Effect: "Deny", Action: some(r, []string{"ec2:TerminateInstances", "s3:DeleteObject", "dynamodb:PutItem", "sqs:SendMessage", "secretsmanager:GetSecretValue"}, 2), Resource: "*",
					Condition: map[string]any{"StringNotEqualsIfExists": map[string]any{"aws:PrincipalTag/env": pick(r, envs)}}}}}
			default:
				d = &document{Version: "2012-10-17", Statement: []statement{{Effect: "Deny", Action: "*", NotResource: []string{"arn:aws:s3:::bucket-*", "arn:aws:sqs:*:*:*", "arn:aws:dynamodb:*:*:table/*", "arn:aws:sns:*:*:*", "arn:aws:lambda:*:*:function:*", "arn:aws:secretsmanager:*:*:secret:*", "arn:aws:logs:*:*:*", "arn:aws:ec2:*:*:*"},
					Condition: map[string]any{"BoolIfExists": map[string]any{"aws:ViaAWSService": "false"}}}}}
			}
			level = append(level, named{Name: fmt.Sprintf("scp-%d-%d", l, len(level)), Document: d})
		}
		levels = append(levels, level)
	}
	return levels
}

// rcps are 1 to 3 levels, each a deny of principals outside the
// organization or of insecure transport. (AWS attaches RCPFullAWSAccess, an
// Allow of "*", at every level too; the peer refuses an Allow or an Action
// of "*" in an RCP, and both engines read a level without it as allowing.)
func (g *wideGen) rcps() [][]named {
	r := g.r
	var levels [][]named
	for l := range 1 + r.IntN(3) {
		var level []named
		switch r.IntN(2) {
		case 0:
			level = append(level, named{Name: fmt.Sprintf("rcp-org-%d", l), Document: &document{Version: "2012-10-17", Statement: []statement{{
				Effect: "Deny", Principal: "*", Action: []string{"s3:*", "sqs:*", "secretsmanager:*"}, Resource: "*",
				Condition: map[string]any{
					"StringNotEqualsIfExists": map[string]any{"aws:PrincipalOrgID": orgID},
					"BoolIfExists":            map[string]any{"aws:PrincipalIsAWSService": "false"},
				}}}}})
		default:
			level = append(level, named{Name: fmt.Sprintf("rcp-tls-%d", l), Document: &document{Version: "2012-10-17", Statement: []statement{{
				Effect: "Deny", Principal: "*", Action: []string{"s3:*", "sqs:*"}, Resource: "*",
				Condition: map[string]any{"BoolIfExists": map[string]any{"aws:SecureTransport": "false"}}}}}})
		}
		levels = append(levels, level)
	}
	return levels
}
