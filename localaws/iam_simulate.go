package localaws

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// SimulatePrincipalPolicy and SimulateCustomPolicy are answered by the
// policy engine: the policies are compiled once and every action and
// resource is explained with policy.Policies.Explain, as a request to
// leash local would be decided.

// simulation is what a Simulate* request asks about: a set of policies,
// who is asking, and the request context it supplies.
type simulation struct {
	set policy.Set
	// sources says where each policy of set came from, by its name in set,
	// for MatchedStatements.
	sources map[string]statementSource
	// principal is the simulated caller; "" simulates a caller of the
	// resource's own account whom no policy names.
	principal       string
	resourceAccount string
	context         policy.Context
}

// statementSource is a policy as IAM's Statement names it.
type statementSource struct {
	id  string
	typ string // a PolicySourceType: user, role, aws-managed, user-managed, resource, none
}

// add places a document in the set under a name and records its source.
func (s *simulation) add(kind policy.Kind, name string, doc *policy.Document, source statementSource) {
	s.set.Add(kind, policy.Named{Name: name, Document: doc})
	s.source(name, source)
}

// source records where the policy named name in the set came from.
func (s *simulation) source(name string, source statementSource) {
	if s.sources == nil {
		s.sources = map[string]statementSource{}
	}
	s.sources[name] = source
}

// inputs parses a list of policy documents given to the simulation, such as
// PolicyInputList, naming them as IAM does: PolicyInputList.1...
func (s *simulation) inputs(c *call, param string, kind policy.Kind) error {
	docs, err := c.list(param)
	if err != nil {
		return err
	}
	if qerr := checkDocumentListLength(param, docs); qerr != nil {
		return qerr
	}
	for i, text := range docs {
		doc, err := policy.Parse([]byte(text), kind)
		if err != nil {
			return query.MalformedPolicyDocument(fmt.Sprintf("%s.%d: %v", param, i+1, err))
		}
		name := param + "." + strconv.Itoa(i+1)
		s.add(kind, name, doc, statementSource{id: name, typ: "none"})
	}
	return nil
}

// common reads the inputs both operations take: extra policies, a
// boundary, a resource policy, organization policies, the caller, the
// resource owner and the context entries.
func (s *simulation) common(c *call) error {
	if err := s.inputs(c, "PolicyInputList", policy.Identity); err != nil {
		return err
	}
	boundaries, err := c.list("PermissionsBoundaryPolicyInputList")
	if err != nil {
		return err
	}
	if len(boundaries) > 1 {
		return query.InvalidInput("PermissionsBoundaryPolicyInputList takes one permissions boundary; it has " + strconv.Itoa(len(boundaries)))
	}
	if len(boundaries) == 1 {
		// It replaces the principal's own boundary, as in IAM.
		s.set.Boundary = nil
		if err := s.inputs(c, "PermissionsBoundaryPolicyInputList", policy.Boundary); err != nil {
			return err
		}
	}
	if text, ok := c.q.String("ResourcePolicy"); ok {
		if qerr := checkDocumentLength("ResourcePolicy", text, maxDocumentLength); qerr != nil {
			return qerr
		}
		doc, err := policy.Parse([]byte(text), policy.Resource)
		if err != nil {
			return query.MalformedPolicyDocument("ResourcePolicy: " + err.Error())
		}
		s.add(policy.Resource, "ResourcePolicy", doc, statementSource{id: "ResourcePolicy", typ: "resource"})
	}
	if err := s.organizations(c); err != nil {
		return err
	}
	if caller := c.param("CallerArn"); caller != "" {
		if !strings.Contains(caller, ":user/") || !strings.HasPrefix(caller, "arn:") {
			return query.InvalidInput("CallerArn " + caller + " is not the ARN of an IAM user: the simulated caller can only be a user")
		}
		s.principal = caller
	}
	if s.set.ResourcePolicy != nil && !strings.Contains(s.principal, ":user/") {
		return query.InvalidInput("A ResourcePolicy needs a simulated caller for its Principal element: give CallerArn, the ARN of an IAM user")
	}
	if owner := c.param("ResourceOwner"); owner != "" {
		account, ok := accountOfARN(owner)
		if !ok {
			return query.InvalidInput("ResourceOwner " + owner + " is not an account ARN such as arn:aws:iam::123456789012:root")
		}
		s.resourceAccount = account
	}
	if err := s.contextEntries(c); err != nil {
		return err
	}
	if s.principal != "" {
		// The keys AWS derives from the caller (aws:username,
		// aws:PrincipalArn...), unless the entries gave them.
		s.context.AddPrincipalKeys(s.principal)
	}
	return nil
}

// organizations reads SimulateCustomPolicy's SCPs, one list per level of
// the organization from the root down.
func (s *simulation) organizations(c *call) error {
	levels, qerr := c.q.Members("OrderedOrganizationPolicyInputList")
	if qerr != nil {
		return qerr
	}
	for li, level := range levels {
		docs, qerr := level.List("ServiceControlPolicyInputList")
		if qerr != nil {
			return qerr
		}
		if qerr := checkDocumentListLength(fmt.Sprintf("OrderedOrganizationPolicyInputList.%d.member.ServiceControlPolicyInputList", li+1), docs); qerr != nil {
			return qerr
		}
		var named []policy.Named
		for i, text := range docs {
			name := fmt.Sprintf("OrderedOrganizationPolicyInputList.%d.ServiceControlPolicyInputList.%d", li+1, i+1)
			doc, err := policy.Parse([]byte(text), policy.SCP)
			if err != nil {
				return query.MalformedPolicyDocument(name + ": " + err.Error())
			}
			named = append(named, policy.Named{Name: name, Document: doc})
			s.source(name, statementSource{id: name, typ: "none"})
		}
		s.set.SCPs = append(s.set.SCPs, named)
	}
	return nil
}

// contextKeyTypes are IAM's ContextKeyType values.
var contextKeyTypes = []string{"string", "stringList", "numeric", "numericList", "boolean", "booleanList", "ip", "ipList", "binary", "binaryList", "date", "dateList"}

// contextEntries reads ContextEntries into the simulation's context.
func (s *simulation) contextEntries(c *call) error {
	entries, qerr := c.q.Members("ContextEntries")
	if qerr != nil {
		return qerr
	}
	for _, e := range entries {
		name, qerr := e.Required("ContextKeyName")
		if qerr != nil {
			return qerr
		}
		values, qerr := e.List("ContextKeyValues")
		if qerr != nil {
			return qerr
		}
		typ, _ := e.String("ContextKeyType")
		if typ != "" && !slices.Contains(contextKeyTypes, typ) {
			return e.Invalid("ContextKeyType", "Member must satisfy enum value set: ["+strings.Join(contextKeyTypes, ", ")+"]")
		}
		list := strings.HasSuffix(typ, "List") || (typ == "" && len(values) != 1)
		if !list && len(values) != 1 {
			return query.InvalidInput(fmt.Sprintf("Context key %s is of type %s and takes one value; it has %d. Use %sList for several.", name, typ, len(values), typ))
		}
		for _, v := range values {
			if err := checkContextValue(strings.TrimSuffix(typ, "List"), v); err != nil {
				return query.InvalidInput(fmt.Sprintf("Context key %s: %v", name, err))
			}
		}
		if list {
			s.context.SetList(name, values)
		} else {
			s.context.Set(name, values[0])
		}
	}
	return nil
}

// checkContextValue checks a value against its ContextKeyType.
func checkContextValue(typ, v string) error {
	switch typ {
	case "numeric":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
	case "boolean":
		if v != "true" && v != "false" {
			return fmt.Errorf("%q is not true or false", v)
		}
	case "ip":
		if net.ParseIP(v) == nil {
			if _, _, err := net.ParseCIDR(v); err != nil {
				return fmt.Errorf("%q is not an IP address or CIDR block", v)
			}
		}
	}
	return nil
}

// accountOfARN is the account of an ARN such as arn:aws:iam::ACCOUNT:root.
func accountOfARN(arn string) (string, bool) {
	a, ok := policy.ParseARN(arn)
	return a.Account, ok && a.Account != ""
}

// principalPolicies adds the policies of the user, group or role named by
// PolicySourceArn, read as the authorizer reads a caller's, and makes it
// the simulated caller.
func (s *simulation) principalPolicies(c *call, arn string) error {
	parsed, ok := policy.ParseARN(arn)
	account, resource := parsed.Account, parsed.Resource
	if !ok || account == "" || !strings.HasPrefix(arn, "arn:aws:iam::") {
		return query.InvalidInput("PolicySourceArn " + arn + " is not the ARN of an IAM user, group or role.")
	}
	kind, _, _ := strings.Cut(resource, "/")
	name := resource[strings.LastIndexByte(resource, '/')+1:]
	var (
		found  string
		inline string
		gather func() error
	)
	switch kind {
	case "user":
		u, err := c.tx.GetUser(name)
		if err != nil {
			return err
		}
		found, inline = u.ARN, "user"
		gather = func() error { return userIdentitySet(c.tx, u, &s.set) }
	case "role":
		r, err := c.tx.GetRole(name)
		if err != nil {
			return err
		}
		found, inline = r.ARN, "role"
		gather = func() error { return identitySet(c.tx, r.Permissions, &s.set) }
	case "group":
		g, err := c.tx.GetGroup(name)
		if err != nil {
			return err
		}
		found, inline = g.ARN, "group"
		gather = func() error { return identitySet(c.tx, groupPermissions(g, nil), &s.set) }
	default:
		return query.InvalidInput("PolicySourceArn " + arn + " is not the ARN of an IAM user, group or role.")
	}
	if account != c.tx.Account().ID || found != arn {
		return query.NoSuchEntity("The " + kind + " with ARN " + arn + " cannot be found.")
	}
	if err := gather(); err != nil {
		return err
	}
	// identitySet names inline policies by name (a group's GROUP/POLICY)
	// and managed ones by ARN.
	for _, n := range s.set.Identity {
		s.source(n.Name, managedOrInline(n.Name, inline))
	}
	if s.set.Boundary != nil {
		s.source(s.set.Boundary.Name, managedOrInline(s.set.Boundary.Name, inline))
	}
	s.principal = arn
	return nil
}

// managedOrInline is the source of a principal's policy named name: a
// managed policy by ARN, an inline policy of a group by GROUP/POLICY (see
// groupPermissions), or an inline policy of the user or role.
func managedOrInline(name, inline string) statementSource {
	if !strings.HasPrefix(name, "arn:") {
		if _, policyName, ok := strings.Cut(name, "/"); ok {
			return statementSource{id: policyName, typ: "group"}
		}
		return statementSource{id: name, typ: inline}
	}
	_, _, policyName, _ := store.PolicyARNParts(name)
	if store.IsAWSManagedPolicy(name) {
		return statementSource{id: policyName, typ: "aws-managed"}
	}
	return statementSource{id: policyName, typ: "user-managed"}
}

// Result shapes.
type (
	evaluationResult struct {
		EvalActionName                    string                    `xml:"EvalActionName"`
		EvalResourceName                  string                    `xml:"EvalResourceName"`
		EvalDecision                      string                    `xml:"EvalDecision"`
		MatchedStatements                 []statementShape          `xml:"MatchedStatements>member"`
		MissingContextValues              []string                  `xml:"MissingContextValues>member"`
		OrganizationsDecisionDetail       *organizationsDetailShape `xml:"OrganizationsDecisionDetail,omitempty"`
		PermissionsBoundaryDecisionDetail *boundaryDetailShape      `xml:"PermissionsBoundaryDecisionDetail,omitempty"`
	}
	statementShape struct {
		SourcePolicyID   string `xml:"SourcePolicyId"`
		SourcePolicyType string `xml:"SourcePolicyType"`
	}
	organizationsDetailShape struct {
		AllowedByOrganizations bool `xml:"AllowedByOrganizations"`
	}
	boundaryDetailShape struct {
		AllowedByPermissionsBoundary bool `xml:"AllowedByPermissionsBoundary"`
	}
)

// evalDecisions are IAM's spellings of the engine's decisions.
var evalDecisions = map[policy.Decision]string{
	policy.Allowed:      "allowed",
	policy.ExplicitDeny: "explicitDeny",
	policy.ImplicitDeny: "implicitDeny",
}

// run explains every action on every resource (ResourceArns, "*" when
// absent) and pages the results.
func (s *simulation) run(c *call) (any, error) {
	actions, err := c.requiredList("ActionNames")
	if err != nil {
		return nil, err
	}
	resources, err := c.list("ResourceArns")
	if err != nil {
		return nil, err
	}
	if len(resources) == 0 {
		resources = []string{"*"}
	}
	compiled, err := policy.Compile(s.set)
	if err != nil {
		return nil, query.MalformedPolicyDocument(err.Error())
	}
	var results []evaluationResult
	for _, action := range actions {
		for _, resource := range resources {
			req := policy.Request{Principal: s.principal, Action: action, Resource: resource, ResourceAccount: s.resourceAccount, Context: s.context}
			results = append(results, s.result(action, resource, compiled.Explain(&req)))
		}
	}
	page, marker, err := paged(c, results)
	if err != nil {
		return nil, err
	}
	return struct {
		EvaluationResults []evaluationResult `xml:"EvaluationResults>member"`
		IsTruncated       bool               `xml:"IsTruncated"`
		Marker            string             `xml:"Marker,omitempty"`
	}{append([]evaluationResult{}, page...), marker != "", marker}, nil
}

// result words one explanation as IAM's EvaluationResult.
func (s *simulation) result(action, resource string, res policy.Result) evaluationResult {
	out := evaluationResult{
		EvalActionName: action, EvalResourceName: resource, EvalDecision: evalDecisions[res.Decision],
		MatchedStatements: []statementShape{}, MissingContextValues: []string{},
	}
	for _, st := range res.Statements {
		src, ok := s.sources[st.Policy]
		if !ok {
			src = statementSource{id: st.Policy, typ: "none"}
		}
		out.MatchedStatements = append(out.MatchedStatements, statementShape{SourcePolicyID: src.id, SourcePolicyType: src.typ})
	}
	boundaryAllows, organizationsAllow := true, true
	for _, r := range res.Reasons {
		switch r.Code {
		case policy.ReasonBoundaryNoAllow:
			boundaryAllows = false
		case policy.ReasonSCPNoAllow:
			organizationsAllow = false
		case policy.ReasonExplicitDeny:
			switch r.Statement.PolicyType {
			case policy.Boundary.String():
				boundaryAllows = false
			case policy.SCP.String():
				organizationsAllow = false
			}
		}
		if r.Condition != nil && r.Condition.KeyMissing && !slices.Contains(out.MissingContextValues, r.Condition.Key) {
			out.MissingContextValues = append(out.MissingContextValues, r.Condition.Key)
		}
	}
	if s.set.Boundary != nil {
		out.PermissionsBoundaryDecisionDetail = &boundaryDetailShape{boundaryAllows}
	}
	if len(s.set.SCPs) > 0 {
		out.OrganizationsDecisionDetail = &organizationsDetailShape{organizationsAllow}
	}
	return out
}

func iamSimulateOperations(ops map[string]operation) {
	ops["SimulatePrincipalPolicy"] = operation{
		readOnly: true,
		target:   onARN("PolicySourceArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicySourceArn")
			if err != nil {
				return nil, err
			}
			if excluded, qerr := c.q.Members("PolicyExclusionList"); qerr != nil || len(excluded) > 0 {
				return nil, query.InvalidInput("PolicyExclusionList is not supported by leash local: simulate without it, or with PolicyInputList alone (SimulateCustomPolicy)")
			}
			var s simulation
			if err := s.principalPolicies(c, arn); err != nil {
				return nil, err
			}
			if err := s.common(c); err != nil {
				return nil, err
			}
			return s.run(c)
		},
	}
	ops["SimulateCustomPolicy"] = operation{
		readOnly: true,
		// SimulateCustomPolicy has no resource-level permissions.
		target: onAnyResource,
		run: func(c *call) (any, error) {
			if _, err := c.requiredList("PolicyInputList"); err != nil {
				return nil, err
			}
			var s simulation
			if err := s.common(c); err != nil {
				return nil, err
			}
			return s.run(c)
		},
	}
}
