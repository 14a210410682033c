package peer_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/policy"
)

// The generator builds random but realistic cases: real actions with ARNs of
// the resource type each action takes, principals in one or two accounts, and
// conditions over global keys that apply to every action (the peer drops keys
// that do not apply to the action, which would make it answer a different
// question).
//
// It stays clear of the peer's known departures from AWS, each pinned by a
// reference case (policy/testdata/reference) and described in KNOWN_DIFFERENCES.md, so that the
// agreement figure measures everything else:
//   - every document is Version 2012-10-17 (the peer resolves variables in
//     2008-10-17 documents);
//   - date values have the same form as the key (ISO 8601 for aws:CurrentTime,
//     epoch seconds for aws:EpochTime): the peer compares epoch seconds with
//     ISO dates in milliseconds;
//   - policy variables appear only in Resource (the peer fails a NotResource
//     entry whose variable has no value), never in a resource name without a
//     type prefix such as a queue name (the peer takes the / of
//     ${aws:PrincipalTag/team} for the end of a type prefix), in condition
//     values only of positive operators (the peer fails negated operators
//     whose variable has no value), and never as ${*}, ${?} or ${$};
//   - no SCPs, identity policies or boundaries for service principals (they
//     apply only to principals of an account);
//   - IPv4 CIDRs are never /0 and single addresses carry their /32 (the peer
//     reads 0.0.0.0/0 as one address, and fails NotIpAddress between a bare
//     IPv4 address and an IPv6 caller);
//   - no federated-user sessions, web identities or OIDC keys;
//   - no account root callers (the root user's implicit full access in its
//     account, which the peer does not model);
//   - no session policy beside a resource policy (the peer applies the
//     session policy even when the resource policy names the session);
//   - NotPrincipal lists only callers, never accounts or roles, and a case
//     with NotPrincipal has no boundary (AWS applies such a Deny to every
//     principal with a boundary; the peer does not);
//   - no service-linked role callers (no role named AWSServiceRoleFor..., no
//     path /aws-service-role/): SCPs and RCPs do not restrict them, and the
//     peer applies them;
//   - no request that a rule outside policies refuses: policy ARNs are
//     customer managed ones in the two accounts (never arn:aws:iam::aws:policy/),
//     roles are never under /aws-service-role/, and there are no KMS aliases
//     (the peer has no rule for the first two and answers ImplicitDeny for
//     alias/aws/, where leash answers ExplicitDeny).

const (
	acctA = "111122223333"
	acctB = "444455556666"
)

// principal is a caller the generator can pick.
type principal struct {
	arn     string
	account string
	kind    string // user, session or root
	// user is the user name (aws:username); role is a session's role ARN.
	user string
	role string
}

var principals = []principal{
	{arn: "arn:aws:iam::" + acctA + ":user/alice", account: acctA, kind: "user", user: "alice"},
	{arn: "arn:aws:iam::" + acctA + ":user/division/carol", account: acctA, kind: "user", user: "carol"},
	{arn: "arn:aws:iam::" + acctB + ":user/dave", account: acctB, kind: "user", user: "dave"},
	{arn: "arn:aws:sts::" + acctA + ":assumed-role/AppRole/app-session", account: acctA, kind: "session", role: "arn:aws:iam::" + acctA + ":role/AppRole"},
	{arn: "arn:aws:sts::" + acctA + ":assumed-role/Deployer/ci-42", account: acctA, kind: "session", role: "arn:aws:iam::" + acctA + ":role/service/Deployer"},
	{arn: "arn:aws:sts::" + acctB + ":assumed-role/Auditor/audit", account: acctB, kind: "session", role: "arn:aws:iam::" + acctB + ":role/Auditor"},
}

var servicePrincipals = []string{"cloudtrail.amazonaws.com", "config.amazonaws.com", "sns.amazonaws.com"}

// action is a real action and the resource type it takes. resource returns an
// ARN of that type in the account, or "*" for actions without resource types.
type action struct {
	name string
	// kind is the resource type: "" for actions that take only "*".
	kind string
	// resourcePolicy is true when resources of this kind carry their own
	// policy (a bucket, queue, key, table or role trust policy).
	resourcePolicy bool
	// others are further actions of the same service, for policies that name
	// neighbours of the requested action.
	others []string
}

var actions = []action{
	{name: "s3:GetObject", kind: "object", resourcePolicy: true, others: []string{"s3:PutObject", "s3:ListBucket"}},
	{name: "s3:PutObject", kind: "object", resourcePolicy: true, others: []string{"s3:GetObject", "s3:DeleteObject"}},
	{name: "s3:DeleteObject", kind: "object", resourcePolicy: true, others: []string{"s3:PutObject", "s3:GetObjectTagging"}},
	{name: "s3:GetObjectTagging", kind: "object", resourcePolicy: true, others: []string{"s3:GetObject"}},
	{name: "s3:ListBucket", kind: "bucket", resourcePolicy: true, others: []string{"s3:GetObject", "s3:GetBucketPolicy"}},
	{name: "s3:GetBucketPolicy", kind: "bucket", resourcePolicy: true, others: []string{"s3:ListBucket", "s3:PutBucketPolicy"}},
	{name: "s3:ListAllMyBuckets", others: []string{"s3:ListBucket"}},
	{name: "ec2:DescribeInstances", others: []string{"ec2:DescribeVpcs", "ec2:StartInstances"}},
	{name: "ec2:DescribeVpcs", others: []string{"ec2:DescribeInstances"}},
	{name: "ec2:StopInstances", kind: "instance", others: []string{"ec2:StartInstances", "ec2:TerminateInstances"}},
	{name: "ec2:TerminateInstances", kind: "instance", others: []string{"ec2:StopInstances", "ec2:DescribeInstances"}},
	{name: "ec2:RebootInstances", kind: "instance", others: []string{"ec2:StopInstances"}},
	{name: "iam:GetUser", kind: "user", others: []string{"iam:ListUsers", "iam:CreateAccessKey"}},
	{name: "iam:CreateAccessKey", kind: "user", others: []string{"iam:GetUser", "iam:DeleteUser"}},
	{name: "iam:DeleteUser", kind: "user", others: []string{"iam:GetUser"}},
	{name: "iam:GetRole", kind: "role", others: []string{"iam:PassRole", "iam:ListRoles"}},
	{name: "iam:PassRole", kind: "role", others: []string{"iam:GetRole", "iam:AttachRolePolicy"}},
	{name: "iam:AttachRolePolicy", kind: "role", others: []string{"iam:PassRole"}},
	{name: "iam:CreatePolicyVersion", kind: "policy", others: []string{"iam:GetUser"}},
	{name: "iam:ListUsers", others: []string{"iam:ListRoles", "iam:GetUser"}},
	{name: "iam:ListRoles", others: []string{"iam:ListUsers"}},
	{name: "sts:AssumeRole", kind: "role", resourcePolicy: true, others: []string{"sts:TagSession", "sts:GetSessionToken"}},
	{name: "sts:GetSessionToken", others: []string{"sts:AssumeRole"}},
	{name: "kms:Decrypt", kind: "key", resourcePolicy: true, others: []string{"kms:Encrypt", "kms:GenerateDataKey"}},
	{name: "kms:Encrypt", kind: "key", resourcePolicy: true, others: []string{"kms:Decrypt"}},
	{name: "kms:GenerateDataKey", kind: "key", resourcePolicy: true, others: []string{"kms:Decrypt", "kms:DescribeKey"}},
	{name: "kms:DescribeKey", kind: "key", resourcePolicy: true, others: []string{"kms:ListKeys"}},
	{name: "kms:ListKeys", others: []string{"kms:DescribeKey", "kms:CreateKey"}},
	{name: "kms:CreateKey", others: []string{"kms:ListKeys"}},
	{name: "sqs:SendMessage", kind: "queue", resourcePolicy: true, others: []string{"sqs:ReceiveMessage", "sqs:DeleteMessage"}},
	{name: "sqs:ReceiveMessage", kind: "queue", resourcePolicy: true, others: []string{"sqs:SendMessage"}},
	{name: "sqs:DeleteMessage", kind: "queue", resourcePolicy: true, others: []string{"sqs:ReceiveMessage"}},
	{name: "sqs:ListQueues", others: []string{"sqs:SendMessage"}},
	{name: "dynamodb:GetItem", kind: "table", resourcePolicy: true, others: []string{"dynamodb:PutItem", "dynamodb:Query"}},
	{name: "dynamodb:PutItem", kind: "table", resourcePolicy: true, others: []string{"dynamodb:GetItem", "dynamodb:DeleteItem"}},
	{name: "dynamodb:Query", kind: "table", resourcePolicy: true, others: []string{"dynamodb:Scan", "dynamodb:GetItem"}},
	{name: "dynamodb:DeleteItem", kind: "table", resourcePolicy: true, others: []string{"dynamodb:PutItem"}},
	{name: "dynamodb:ListTables", others: []string{"dynamodb:DescribeTable"}},
}

// serviceActions are the actions whose callers may be service principals
// (services that write logs or messages into a customer's resource).
var serviceActions = map[string]bool{"s3:PutObject": true, "s3:GetBucketPolicy": true, "sqs:SendMessage": true, "kms:GenerateDataKey": true, "kms:Decrypt": true}

// Resource names per account; the generator picks an owner account first.
var (
	buckets   = map[string][]string{acctA: {"amzn-s3-demo-bucket", "amzn-s3-demo-reports"}, acctB: {"amzn-s3-demo-logs"}}
	objects   = []string{"reports/2024.csv", "home/alice/notes.txt", "home/carol/plan.md", "public/index.html", "teams/payments/q3.csv", "AWSLogs/" + acctA + "/CloudTrail/log.json.gz"}
	regions   = []string{"us-east-1", "eu-west-1"}
	instances = []string{"i-0abcd1234efgh5678", "i-0fedcba987654321a"}
	users     = []string{"alice", "division/carol", "dave", "build-bot"}
	roles     = []string{"AppRole", "service/Deployer", "Auditor", "Admin"}
	policies  = []string{"ReadOnly", "teams/payments-admin"}
	keys      = []string{"1234abcd-12ab-34cd-56ef-1234567890ab", "0987dcba-09fe-87dc-65ba-ab0987654321"}
	queues    = []string{"orders", "orders-dlq", "payments"}
	tables    = []string{"Orders", "Customers", "payments-ledger"}
)

// gen draws random cases from a seeded source.
type gen struct {
	r *rand.Rand
	// the case being built
	p        principal
	service  string // a service principal, when the caller is one
	act      action
	resource string
	owner    string // the resource's account
	// inNotResource is set while drawing NotResource entries.
	inNotResource bool
	// notPrincipal is set once the case has a NotPrincipal statement.
	notPrincipal bool
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func (g *gen) intn(n int) int        { return g.r.IntN(n) }
func pick[T any](g *gen, list []T) T { return list[g.r.IntN(len(list))] }

// between returns a count in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// next builds one case as JSON.
func (g *gen) next() []byte {
	c := g.build()
	data, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	return data
}

func (g *gen) build() simulate.Case {
	g.service = ""
	g.notPrincipal = false
	g.act = pick(g, actions)
	g.p = pick(g, principals)
	if serviceActions[g.act.name] && g.chance(0.15) {
		g.service = pick(g, servicePrincipals)
	}
	// The resource's account: mostly the caller's, sometimes the other one.
	g.owner = g.p.account
	if g.service != "" || g.chance(0.3) {
		g.owner = pick(g, []string{acctA, acctB})
	}
	g.resource = g.arn(g.act.kind, g.owner)
	c := simulate.Case{Action: g.act.name, Resource: g.resource}
	if g.service != "" {
		c.Principal = g.service
	} else {
		c.Principal = g.p.arn
	}
	if g.act.kind == "object" || g.act.kind == "bucket" {
		// S3 ARNs carry no account.
		c.ResourceAccount = g.owner
	}
	c.Context = g.context()

	if g.service == "" {
		n := pick(g, []int{0, 1, 1, 1, 2, 2, 3})
		for i := 0; i < n; i++ {
			c.IdentityPolicies = append(c.IdentityPolicies, simulate.NamedDocument{
				Name: fmt.Sprintf("identity-%d", i+1), Document: g.doc(g.between(1, 5), stmtIdentity)})
		}
	}
	if g.act.resourcePolicy && (g.service != "" || g.chance(0.4)) {
		kind := stmtResource
		if strings.HasPrefix(g.act.name, "sts:AssumeRole") {
			kind = stmtTrust
		}
		c.ResourcePolicy = g.doc(g.between(1, 4), kind)
	}
	if g.service == "" && g.p.kind != "root" && !g.notPrincipal && g.chance(0.2) {
		c.PermissionsBoundary = g.doc(g.between(1, 3), stmtBoundary)
	}
	if g.p.kind == "session" && g.service == "" && c.ResourcePolicy == nil && g.chance(0.25) {
		c.SessionPolicy = g.doc(g.between(1, 3), stmtBoundary)
	}
	if g.service == "" && g.chance(0.25) {
		for l, n := 0, g.between(1, 3); l < n; l++ {
			var level []simulate.NamedDocument
			if l == 0 && g.chance(0.7) {
				level = append(level, simulate.NamedDocument{Name: "FullAWSAccess", Document: json.RawMessage(fullAccess)})
			} else {
				for i, m := 0, g.between(1, 2); i < m; i++ {
					level = append(level, simulate.NamedDocument{Name: fmt.Sprintf("scp-%d-%d", l, i+1), Document: g.doc(g.between(1, 3), stmtSCP)})
				}
			}
			c.SCPs = append(c.SCPs, level)
		}
	}
	if g.chance(0.15) {
		for l, n := 0, g.between(1, 2); l < n; l++ {
			var level []simulate.NamedDocument
			for i, m := 0, g.between(0, 2); i < m; i++ {
				level = append(level, simulate.NamedDocument{Name: fmt.Sprintf("rcp-%d-%d", l, i+1), Document: g.doc(g.between(1, 2), stmtRCP)})
			}
			c.RCPs = append(c.RCPs, level)
		}
	}
	return c
}

// fullAccess is AWS's default SCP, FullAWSAccess.
const fullAccess = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`

func raw(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// arn returns a resource of the kind in the account ("*" for no kind).
func (g *gen) arn(kind, account string) string {
	switch kind {
	case "object":
		return "arn:aws:s3:::" + pick(g, buckets[account]) + "/" + pick(g, objects)
	case "bucket":
		return "arn:aws:s3:::" + pick(g, buckets[account])
	case "instance":
		return "arn:aws:ec2:" + pick(g, regions) + ":" + account + ":instance/" + pick(g, instances)
	case "user":
		return "arn:aws:iam::" + account + ":user/" + pick(g, users)
	case "role":
		return "arn:aws:iam::" + account + ":role/" + pick(g, roles)
	case "policy":
		return "arn:aws:iam::" + account + ":policy/" + pick(g, policies)
	case "key":
		return "arn:aws:kms:" + pick(g, regions) + ":" + account + ":key/" + pick(g, keys)
	case "queue":
		return "arn:aws:sqs:" + pick(g, regions) + ":" + account + ":" + pick(g, queues)
	case "table":
		return "arn:aws:dynamodb:" + pick(g, regions) + ":" + account + ":table/" + pick(g, tables)
	}
	return "*"
}

// stmtKind is the policy type a statement is for.
type stmtKind int

const (
	stmtIdentity stmtKind = iota
	stmtBoundary          // boundaries and session policies
	stmtResource
	stmtTrust
	stmtSCP
	stmtRCP
)

func (g *gen) doc(n int, kind stmtKind) json.RawMessage {
	stmts := make([]any, n)
	for i := range stmts {
		stmts[i] = g.statement(kind)
	}
	d := map[string]any{"Version": "2012-10-17"}
	if n == 1 && g.chance(0.3) {
		d["Statement"] = stmts[0]
	} else {
		d["Statement"] = stmts
	}
	return raw(d)
}

func (g *gen) statement(kind stmtKind) map[string]any {
	s := map[string]any{}
	allow := 0.82
	switch kind {
	case stmtBoundary, stmtResource, stmtTrust:
		allow = 0.88
	case stmtSCP:
		allow = 0.8
	case stmtRCP:
		allow = 0
	}
	effect := "Deny"
	if g.chance(allow) {
		effect = "Allow"
	}
	s["Effect"] = effect
	if g.chance(0.2) {
		s["Sid"] = fmt.Sprintf("S%d", g.intn(100))
	}
	if kind != stmtRCP && g.chance(0.12) {
		s["NotAction"] = g.list(g.actionPattern)
	} else {
		s["Action"] = g.list(func() string {
			a := g.actionPattern()
			if kind == stmtRCP && a == "*" {
				a = g.act.name
			}
			return a
		})
	}
	switch kind {
	case stmtTrust:
		// Trust policies have no Resource.
	default:
		if kind != stmtRCP && g.chance(0.1) {
			g.inNotResource = true
			s["NotResource"] = g.list(g.resourcePattern)
			g.inNotResource = false
		} else if kind == stmtRCP && g.chance(0.5) {
			s["Resource"] = "*"
		} else {
			s["Resource"] = g.list(g.resourcePattern)
		}
	}
	switch kind {
	case stmtResource, stmtTrust:
		if effect == "Deny" && g.chance(0.1) {
			s["NotPrincipal"] = map[string]any{"AWS": g.list(g.notPrincipalEntry)}
			g.notPrincipal = true
		} else {
			s["Principal"] = g.principalElement()
		}
	case stmtRCP:
		s["Principal"] = "*"
	}
	condChance := 0.4
	if kind == stmtRCP {
		condChance = 0.8
	}
	if g.chance(condChance) {
		s["Condition"] = g.condition(effect)
	}
	return s
}

// list returns one value as a string, or one to three as an array.
func (g *gen) list(f func() string) any {
	if g.chance(0.5) {
		return f()
	}
	n := g.between(1, 3)
	out := make([]any, n)
	for i := range out {
		out[i] = f()
	}
	return out
}

func (g *gen) actionPattern() string {
	a := g.act.name
	svc, name, _ := strings.Cut(a, ":")
	switch g.intn(12) {
	case 0, 1, 2:
		return a
	case 3:
		return strings.ToLower(a)
	case 4:
		return strings.ToUpper(svc) + ":" + name
	case 5:
		return svc + ":*"
	case 6:
		return "*"
	case 7:
		return svc + ":" + name[:1+g.intn(len(name)-1)] + "*"
	case 8:
		i := g.intn(len(name))
		return svc + ":" + name[:i] + "?" + name[i+1:]
	case 9:
		return svc + ":*" + name[len(name)-1-g.intn(len(name)-1):]
	case 10:
		return pick(g, g.act.others)
	}
	other := pick(g, actions)
	return other.name
}

func (g *gen) resourcePattern() string {
	r := g.resource
	if r == "*" || g.chance(0.2) {
		switch g.intn(4) {
		case 0:
			return "*"
		case 1:
			// A resource of another action's type.
			o := pick(g, actions)
			return g.arn(o.kind, pick(g, []string{acctA, acctB}))
		}
		if r == "*" {
			return "*"
		}
	}
	a, _ := policy.ParseARN(r)
	id := a.Resource
	// prefix is the resource type before the id ("instance/", "table/", ...),
	// which takes no wildcards.
	prefix := ""
	if i := strings.IndexByte(id, '/'); i >= 0 && a.Service != "s3" {
		prefix, id = id[:i+1], id[i+1:]
	}
	with := func(region, account, resID string) string {
		return policy.ARN{Partition: a.Partition, Service: a.Service, Region: region, Account: account, Resource: prefix + resID}.String()
	}
	switch g.intn(13) {
	case 0, 1:
		return r
	case 2:
		return "*"
	case 3:
		return with(a.Region, a.Account, id[:g.intn(len(id))]+"*")
	case 4:
		if a.Region != "" {
			return with("*", a.Account, id)
		}
		return with(a.Region, a.Account, "*")
	case 5:
		if a.Account != "" {
			return with(a.Region, "*", id)
		}
		return with(a.Region, a.Account, "*"+id[len(id)-g.intn(len(id)):])
	case 6:
		i := g.intn(len(id))
		if id[i] == '/' {
			return r
		}
		return with(a.Region, a.Account, id[:i]+"?"+id[i+1:])
	case 7:
		return g.arn(g.act.kind, g.owner)
	case 8:
		return g.arn(g.act.kind, pick(g, []string{acctA, acctB}))
	case 9:
		return with(a.Region, a.Account, strings.ToUpper(id[:1])+id[1:])
	case 10:
		if !g.inNotResource {
			return g.variableResource(a, prefix)
		}
		return r
	case 11:
		return with(a.Region, a.Account, "*")
	}
	return pick(g, []string{"arn:aws:s3:::amzn-s3-demo-bucket/*", "arn:aws:sqs:*:" + acctA + ":*", "arn:aws:iam::*:role/*", "arn:aws:kms:*:*:key/*"})
}

// variableResource is a resource pattern with a policy variable in the id.
func (g *gen) variableResource(a policy.ARN, prefix string) string {
	with := func(id string) string {
		a.Resource = prefix + id
		return a.String()
	}
	switch {
	case a.Service == "s3":
		bucket, _, _ := strings.Cut(a.Resource, "/")
		return "arn:aws:s3:::" + bucket + "/" + pick(g, []string{"home/${aws:username}/*", "teams/${aws:PrincipalTag/team}/*", "home/${aws:username, 'nobody'}/*"})
	case prefix == "user/":
		return with(pick(g, []string{"${aws:username}", "division/${aws:username}", "*${aws:username}"}))
	}
	if prefix == "" {
		// A name without a type prefix, such as a queue name.
		return with(pick(g, []string{"${aws:username}*", "*"}))
	}
	return with(pick(g, []string{"${aws:PrincipalTag/team}*", "*", "${aws:PrincipalTag/team, 'Orders'}"}))
}

func (g *gen) awsPrincipal() string {
	p := g.p
	other := pick(g, principals)
	switch g.intn(9) {
	case 0, 1:
		return p.arn
	case 2:
		if p.role != "" {
			return p.role
		}
		return p.arn
	case 3:
		return "arn:aws:iam::" + p.account + ":root"
	case 4:
		return p.account
	case 5:
		return "arn:aws:iam::" + pick(g, []string{acctA, acctB}) + ":root"
	case 6:
		if other.role != "" && g.chance(0.5) {
			return other.role
		}
		return other.arn
	case 7:
		return "*"
	}
	return "arn:aws:iam::" + p.account + ":role/" + pick(g, roles)
}

// notPrincipalEntry names callers only: how AWS treats a NotPrincipal that
// names an account or a role but not the caller itself is pinned by
// reference cases (policy/testdata/reference).
func (g *gen) notPrincipalEntry() string {
	switch g.intn(5) {
	case 0, 1:
		return g.p.arn
	case 2:
		return "*"
	}
	return pick(g, principals).arn
}

func (g *gen) principalElement() any {
	switch g.intn(10) {
	case 0:
		return "*"
	case 1:
		svc := g.service
		if svc == "" || g.chance(0.3) {
			svc = pick(g, servicePrincipals)
		}
		return map[string]any{"Service": svc}
	case 2:
		return map[string]any{"AWS": g.list(g.awsPrincipal), "Service": pick(g, servicePrincipals)}
	}
	if g.service != "" && g.chance(0.5) {
		return map[string]any{"Service": g.service}
	}
	return map[string]any{"AWS": g.list(g.awsPrincipal)}
}
