package analyze

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Validate checks a policy named name against AWS's catalog of actions,
// resource types and condition keys (nil cat means catalog.Default()): the
// names AWS does not know and the elements that can never match.
//
//   - LEASH-VAL-001 (high): an action of a service prefix the catalog does
//     not have.
//   - LEASH-VAL-002 (high): an action, or an action pattern, of a known
//     service that names no action.
//   - LEASH-VAL-003 (medium or high): a Resource or NotResource ARN that no
//     resource type of the statement's actions accepts. An action with no
//     resource types accepts only "*"; for a wildcard action, a type of any
//     one of the actions it matches will do.
//   - LEASH-VAL-004 (medium or high): a condition key the catalog does not
//     know, or one that bears on none of the statement's actions. Global
//     aws: keys bear on every action, and so do the service keys that role
//     credentials carry into every request (ec2:SourceInstanceARN,
//     lambda:SourceFunctionArn, glue:RoleAssumedBy...).
//   - LEASH-VAL-005 (medium or high): a Resource or NotResource that is not
//     "*" nor a well-formed ARN, arn:partition:service:region:account:resource
//     (wildcards and policy variables are allowed).
//   - LEASH-VAL-006 (low, or medium when the document uses policy
//     variables): Version is missing or "2008-10-17", in which policy
//     variables are literal text.
//   - LEASH-VAL-007 (medium or high): an action, named without wildcards,
//     that none of the statement's resources can name, so the statement
//     grants or denies it on nothing (an action that supports only "*" in
//     a statement of ARNs, or iam:GetInstanceProfile on role ARNs only).
//     ARN formats are matched as the catalog does, conservatively: a
//     placeholder such as ${BucketName} stands for any run of characters.
//
// Unknown actions are high wherever they are: in an Allow the workload is
// denied, in a Deny or NotAction the guard or exclusion is void, and the
// name is wrong either way. For the other rules the severity says which way
// the mistake fails: high when it fails open (a Deny that denies nothing, a
// NotResource that excludes nothing, a condition that restricts nothing),
// medium when it fails closed (an Allow that grants nothing, which the
// workload will notice).
//
// The catalog is a snapshot (catalog.DataVersion): an action or key AWS has
// added since is reported as unknown, and the messages say so.
// Keys of web identity providers (a host name before the colon, such as
// token.actions.githubusercontent.com:sub) are not checked: any OIDC
// provider can be trusted, and the catalog names only some of them.
func Validate(doc *policy.Document, name string, cat *catalog.Catalog) []Finding {
	if doc == nil {
		return nil
	}
	if cat == nil {
		cat = catalog.Default()
	}
	v := validator{cat: cat, name: name}
	v.version(doc)
	for i := range doc.Statements {
		v.statement(i, &doc.Statements[i], doc.Version)
	}
	return v.out
}

type validator struct {
	cat  *catalog.Catalog
	name string
	out  []Finding
}

func (v *validator) add(id string, sev Severity, path, msg, fix string) {
	v.out = append(v.out, Finding{ID: id, Severity: sev, Policy: v.name, Path: path, Message: msg, Fix: fix})
}

// failSeverity is high for a mistake that fails open and medium for one
// that fails closed.
func failSeverity(open bool) Severity {
	if open {
		return High
	}
	return Medium
}

func catalogNote() string {
	return fmt.Sprintf("AWS's catalog (%s %s)", catalog.DataSet, catalog.DataVersion)
}

func (v *validator) version(doc *policy.Document) {
	if doc.Version == policy.Version2012 {
		return
	}
	sev, vars := Low, usesPolicyVariables(doc)
	if vars {
		sev = Medium
	}
	msg := `the document has no Version, so AWS reads it in the 2008-10-17 language`
	if doc.Version != "" {
		msg = fmt.Sprintf("Version %q is the 2008-10-17 language", doc.Version)
	}
	if vars {
		msg += `: its policy variables, such as ${aws:username}, are literal text there and match only resources named with them`
	} else {
		msg += `, in which policy variables such as ${aws:username} are literal text`
	}
	v.add("LEASH-VAL-006", sev, "Version", msg, `add "Version": "2012-10-17" at the top of the document`)
}

// usesPolicyVariables reports whether a resource or condition value of the
// document holds ${...}.
func usesPolicyVariables(doc *policy.Document) bool {
	for _, st := range doc.Statements {
		for _, list := range [][]string{st.Resource, st.NotResource} {
			for _, r := range list {
				if strings.Contains(r, "${") {
					return true
				}
			}
		}
		for _, c := range st.Conditions {
			for _, x := range c.Values {
				if strings.Contains(x, "${") {
					return true
				}
			}
		}
	}
	return false
}

// stmtScope is what the catalog knows of one statement's Action list.
type stmtScope struct {
	// every is set when an element is "*" or "*:*", and for NotAction:
	// every action of every service.
	every bool
	// actions are the catalog actions the elements match.
	actions []catalog.Action
	// literal maps the index of each Action element written without
	// wildcards and known to the catalog to its action.
	literal map[int]catalog.Action
}

// isEveryAction reports whether an action element is every action of every
// service: "*", "*:*" and the like.
func isEveryAction(a string) bool {
	svc, verb, _ := strings.Cut(a, ":")
	return onlyStars(a) || (onlyStars(svc) && onlyStars(verb))
}

// expandAction returns the catalog actions an element matches.
func expandAction(cat *catalog.Catalog, a string) []catalog.Action {
	if !strings.ContainsAny(a, "*?") {
		if x, ok := cat.Action(a); ok {
			return []catalog.Action{x}
		}
		return nil
	}
	return cat.Expand(a)
}

func scopeOf(cat *catalog.Catalog, st *policy.Statement) stmtScope {
	var s stmtScope
	if len(st.NotAction) > 0 {
		s.every = true
		return s
	}
	for j, a := range st.Action {
		if isEveryAction(a) {
			s.every = true
			continue
		}
		xs := expandAction(cat, a)
		if !strings.ContainsAny(a, "*?") && len(xs) == 1 {
			if s.literal == nil {
				s.literal = map[int]catalog.Action{}
			}
			s.literal[j] = xs[0]
		}
		s.actions = append(s.actions, xs...)
	}
	return s
}

func (v *validator) statement(i int, st *policy.Statement, version string) {
	path := fmt.Sprintf("Statement[%d]", i)
	v.actions(path, st)
	badARN := v.arns(path, st)
	sc := scopeOf(v.cat, st)
	v.resources(path, st, &sc, badARN)
	v.conditions(path, st, &sc, version)
}

// actions reports unknown services and actions (VAL-001, VAL-002).
func (v *validator) actions(path string, st *policy.Statement) {
	list, field := st.Action, "Action"
	if len(st.NotAction) > 0 {
		list, field = st.NotAction, "NotAction"
	}
	for j, a := range list {
		if isEveryAction(a) || len(expandAction(v.cat, a)) > 0 {
			continue
		}
		p := elementPath(path+"."+field, list, j)
		effect := "grants nothing"
		switch {
		case field == "NotAction" && st.Effect == policy.Allow:
			effect = "excludes nothing from the grant"
		case field == "NotAction":
			effect = "exempts nothing from the Deny"
		case st.Effect == policy.Deny:
			effect = "denies nothing"
		}
		fix := "use an action of the service authorization reference (leash expand 'SERVICE:*' lists a service's actions)"
		if s := v.cat.Suggest(a); len(s) > 0 {
			fix = "did you mean " + strings.Join(s, " or ") + "?"
		}
		svc, _, _ := strings.Cut(a, ":")
		if !v.serviceKnown(svc) {
			v.add("LEASH-VAL-001", High, p,
				fmt.Sprintf("%q: %q is not a service prefix in %s, so the element %s", a, svc, catalogNote(), effect), fix)
			continue
		}
		what := "is not an action of service " + svc
		if strings.ContainsAny(a, "*?") {
			what = "matches no action"
		}
		v.add("LEASH-VAL-002", High, p,
			fmt.Sprintf("%q %s in %s, so the element %s", a, what, catalogNote(), effect), fix)
	}
}

// serviceKnown reports whether a service prefix, or prefix pattern, names a
// service of the catalog.
func (v *validator) serviceKnown(svc string) bool {
	if !strings.ContainsAny(svc, "*?") {
		_, ok := v.cat.Service(svc)
		return ok
	}
	for _, s := range v.cat.Services() {
		if policy.MatchAction(svc+":x", s.Prefix+":x") {
			return true
		}
	}
	return false
}

// partitions are AWS's partitions, the second part of an ARN.
var partitions = []string{"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "aws-eusc"}

// Partitions lists AWS's partitions, for messages that name them.
func Partitions() []string { return slices.Clone(partitions) }

// KnownPartition says whether p is one of AWS's partitions.
func KnownPartition(p string) bool { return slices.Contains(partitions, p) }

var (
	arnNamePart  = regexp.MustCompile(`^[a-z0-9-]+$`)
	arnAccount   = regexp.MustCompile(`^([0-9]{12}|aws)?$`)
	arnRegion    = regexp.MustCompile(`^[a-zA-Z0-9-]*$`)
	arnNoLiteral = regexp.MustCompile(`[*?]|\$\{`)
)

// arnProblem says what is wrong with a Resource element, or "".
func arnProblem(r string) string {
	if r == "*" {
		return ""
	}
	if strings.ContainsAny(r, " \t\r\n") {
		return "has whitespace"
	}
	parts, n := policy.SplitARN(r)
	if parts[0] != "arn" {
		return `does not start with "arn:"`
	}
	if n < 6 {
		return fmt.Sprintf("has %d colon-separated parts outside policy variables, not six", n)
	}
	free := func(s string) bool { return arnNoLiteral.MatchString(s) }
	switch p := parts[1]; {
	case p == "":
		return "has an empty partition"
	case !free(p) && !containsFold(partitions, p):
		return fmt.Sprintf("has partition %q, not one of %s", p, strings.Join(partitions, ", "))
	}
	switch s := parts[2]; {
	case s == "":
		return "has an empty service"
	case !free(s) && !arnNamePart.MatchString(s):
		return fmt.Sprintf("has service %q; a service is lower-case letters, digits and -", s)
	}
	if r := parts[3]; !free(r) && !arnRegion.MatchString(r) {
		return fmt.Sprintf("has region %q; a region is letters, digits and -, such as eu-north-1", r)
	}
	if a := parts[4]; !free(a) && !arnAccount.MatchString(a) {
		return fmt.Sprintf("has account %q; an account is a 12-digit ID (or aws for AWS managed policies)", a)
	}
	if parts[5] == "" {
		return "has an empty resource part"
	}
	return ""
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// arns reports malformed ARNs (VAL-005) and returns the elements reported.
func (v *validator) arns(path string, st *policy.Statement) map[string]bool {
	var bad map[string]bool
	for _, field := range resourceFields(st) {
		for j, r := range field.list {
			problem := arnProblem(r)
			if problem == "" {
				continue
			}
			if bad == nil {
				bad = map[string]bool{}
			}
			bad[r] = true
			open := field.not == (st.Effect == policy.Allow)
			v.add("LEASH-VAL-005", failSeverity(open), elementPath(path+"."+field.name, field.list, j),
				fmt.Sprintf("%s %q %s: it matches no resource, so the element %s", field.name, r, problem, field.effect(st.Effect)),
				`write "*" or a full ARN, arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE, such as arn:aws:s3:::my-bucket/* or arn:aws:iam::123456789012:role/my-role`)
		}
	}
	return bad
}

type resourceField struct {
	name string
	list []string
	not  bool
}

func resourceFields(st *policy.Statement) []resourceField {
	var out []resourceField
	if len(st.Resource) > 0 {
		out = append(out, resourceField{"Resource", st.Resource, false})
	}
	if len(st.NotResource) > 0 {
		out = append(out, resourceField{"NotResource", st.NotResource, true})
	}
	return out
}

// effect says what an element that matches nothing does to the statement.
func (f resourceField) effect(e policy.Effect) string {
	switch {
	case f.not && e == policy.Allow:
		return "excludes nothing from the grant"
	case f.not:
		return "exempts nothing from the Deny"
	case e == policy.Allow:
		return "grants nothing"
	}
	return "denies nothing"
}

// typeKey identifies a resource type across services.
type typeKey struct{ service, name string }

// resourceTypes is the resource types a set of actions accepts.
type resourceTypes struct {
	cat   *catalog.Catalog
	every bool
	types []catalog.ResourceType
	seen  map[typeKey]bool
}

func newResourceTypes(cat *catalog.Catalog, sc *stmtScope) *resourceTypes {
	t := &resourceTypes{cat: cat, every: sc.every, seen: map[typeKey]bool{}}
	if !sc.every {
		for _, a := range sc.actions {
			t.addAction(a)
		}
	}
	return t
}

func (t *resourceTypes) addAction(a catalog.Action) {
	for _, r := range a.Resources {
		k := typeKey{a.Service, strings.ToLower(r.Type)}
		if t.seen[k] {
			continue
		}
		t.seen[k] = true
		if rt, ok := t.cat.ResourceType(a.Service, r.Type); ok {
			t.types = append(t.types, rt)
		}
	}
}

// accepts reports whether some type accepts the ARN.
func (t *resourceTypes) accepts(arn string) bool {
	if !t.every {
		return anyTypeAccepts(t.cat, t.types, arn)
	}
	// Every action: the types of the ARN's own service first, then all.
	parts, _ := policy.SplitARN(arn)
	if svc := parts[2]; !arnNoLiteral.MatchString(svc) && anyTypeAccepts(t.cat, t.cat.ResourceTypes(svc), arn) {
		return true
	}
	for _, s := range t.cat.Services() {
		if anyTypeAccepts(t.cat, t.cat.ResourceTypes(s.Prefix), arn) {
			return true
		}
	}
	return false
}

func anyTypeAccepts(cat *catalog.Catalog, types []catalog.ResourceType, arn string) bool {
	for _, rt := range types {
		if cat.ARNMatchesType(rt, arn) {
			return true
		}
	}
	return false
}

// typeAccepts reports whether a resource type of the action accepts the
// ARN.
func typeAccepts(cat *catalog.Catalog, a catalog.Action, arn string) bool {
	for _, r := range a.Resources {
		if rt, ok := cat.ResourceType(a.Service, r.Type); ok && cat.ARNMatchesType(rt, arn) {
			return true
		}
	}
	return false
}

// resources reports ARNs no action of the statement accepts (VAL-003) and
// literal actions no resource of the statement names (VAL-007).
func (v *validator) resources(path string, st *policy.Statement, sc *stmtScope, badARN map[string]bool) {
	if len(st.NotAction) > 0 || (!sc.every && len(sc.actions) == 0) {
		return
	}
	types := newResourceTypes(v.cat, sc)
	anyStar, anyAccepted := false, false
	for _, field := range resourceFields(st) {
		for j, r := range field.list {
			if r == "*" {
				anyStar = true
				continue
			}
			if badARN[r] {
				continue
			}
			if types.accepts(r) {
				anyAccepted = true
				continue
			}
			open := field.not == (st.Effect == policy.Allow)
			v.add("LEASH-VAL-003", failSeverity(open), elementPath(path+"."+field.name, field.list, j),
				fmt.Sprintf("%s %q is of no resource type that %s accepts, so the element %s",
					field.name, r, describeActions(st, sc), field.effect(st.Effect)),
				v.resourceFix(sc, types))
		}
	}
	if len(st.Resource) == 0 || anyStar || !anyAccepted || sc.every {
		return
	}
	for j := range st.Action {
		x, ok := sc.literal[j]
		if !ok {
			continue
		}
		named := false
		for _, r := range st.Resource {
			if !badARN[r] && typeAccepts(v.cat, x, r) {
				named = true
				break
			}
		}
		if named {
			continue
		}
		what := "grants it on nothing"
		if st.Effect == policy.Deny {
			what = "denies it on nothing"
		}
		var msg, fix string
		if len(x.Resources) == 0 {
			msg = fmt.Sprintf("%s supports no resource-level permissions (only Resource \"*\"), and the statement names only %s: it %s",
				x, ListAtMost(st.Resource, 5), what)
			fix = fmt.Sprintf(`move %s to a statement with "Resource": "*"`, x)
		} else {
			msg = fmt.Sprintf("%s acts on %s, and none of the statement's resources (%s) is one: it %s",
				x, typeNames(x), ListAtMost(st.Resource, 5), what)
			fix = fmt.Sprintf("add an ARN %s takes (%s), or move it to a statement that names one", x, typeFormats(v.cat, x, 3))
		}
		v.add("LEASH-VAL-007", failSeverity(st.Effect == policy.Deny), elementPath(path+".Action", st.Action, j), msg, fix)
	}
}

// describeActions names a statement's actions for messages.
func describeActions(st *policy.Statement, sc *stmtScope) string {
	if sc.every {
		return "any action"
	}
	if len(st.Action) == 1 {
		return st.Action[0]
	}
	return "any of " + ListAtMost(st.Action, 10)
}

func (v *validator) resourceFix(sc *stmtScope, types *resourceTypes) string {
	if !sc.every && len(types.types) == 0 {
		return `the actions support no resource-level permissions: use "Resource": "*"`
	}
	var formats []string
	for i, rt := range types.types {
		if i == 3 {
			formats = append(formats, "...")
			break
		}
		formats = append(formats, fmt.Sprintf("%s %s", rt.Name, rt.ARN))
	}
	if len(formats) == 0 {
		return "write an ARN of a resource type the actions take, as the service authorization reference gives it"
	}
	return "write an ARN of a resource type the actions take: " + strings.Join(formats, "; ")
}

func typeNames(a catalog.Action) string {
	names := make([]string, len(a.Resources))
	for i, r := range a.Resources {
		names[i] = r.Type
	}
	return strings.Join(names, ", ")
}

func typeFormats(cat *catalog.Catalog, a catalog.Action, max int) string {
	var out []string
	for _, r := range a.Resources {
		if len(out) == max {
			out = append(out, "...")
			break
		}
		if rt, ok := cat.ResourceType(a.Service, r.Type); ok {
			out = append(out, rt.ARN)
		}
	}
	return strings.Join(out, ", ")
}

// providerKey reports whether a condition key is a web identity provider's
// claim, such as token.actions.githubusercontent.com:sub.
func providerKey(key string) bool {
	prefix, _, ok := strings.Cut(key, ":")
	return ok && strings.ContainsAny(prefix, "./")
}

// conditions reports condition keys that bear on none of the statement's
// actions (VAL-004).
func (v *validator) conditions(path string, st *policy.Statement, sc *stmtScope, version string) {
	if len(st.Conditions) == 0 || (!sc.every && len(sc.actions) == 0) {
		return
	}
	for _, c := range st.Conditions {
		if providerKey(c.Key) {
			continue
		}
		if credentialKeys[strings.ToLower(c.Key)] {
			continue
		}
		k, known := v.cat.ConditionKey(c.Key)
		if known && k.Global {
			continue
		}
		alt := tagKeyForm(c.Key)
		if !known && alt != "" {
			_, known = v.cat.ConditionKey(alt)
		}
		p := path + ".Condition." + c.Operator + "." + c.Key
		holds, decided := conditionHoldsWithoutKey(c, version)
		var msg string
		if known {
			if sc.every || v.someActionSupports(sc.actions, c.Key) || (alt != "" && v.someActionSupports(sc.actions, alt)) {
				continue
			}
			msg = fmt.Sprintf("condition key %s applies to none of the statement's actions (%s), so requests never carry it", c.Key, ListAtMost(st.Action, 10))
		} else {
			msg = fmt.Sprintf("condition key %s is not in %s, so requests never carry it", c.Key, catalogNote())
		}
		open := (st.Effect == policy.Allow) == holds
		switch {
		case decided && holds && st.Effect == policy.Allow:
			msg += fmt.Sprintf(": %s on a missing key always holds, so the condition restricts nothing", c.Operator)
		case decided && holds:
			msg += fmt.Sprintf(": %s on a missing key always holds, so the Deny applies to every request", c.Operator)
		case decided:
			msg += fmt.Sprintf(": %s on a missing key never holds, so the statement never applies", c.Operator)
		}
		if !decided {
			open = true
		}
		v.add("LEASH-VAL-004", failSeverity(open), p, msg, v.conditionFix(c.Key, known, sc))
	}
}

// credentialKeys are service keys AWS adds to every request signed with a
// service's role credentials (an instance profile's, a Lambda function's, a
// Glue job's), whatever the action: like the global keys, they bear on
// every action.
var credentialKeys = map[string]bool{
	"ec2:sourceinstancearn":         true,
	"ec2:roledelivery":              true,
	"lambda:sourcefunctionarn":      true,
	"glue:roleassumedby":            true,
	"glue:credentialissuingservice": true,
	"ssm:sourceinstancearn":         true,
}

// tagKeyForm returns a tag key such as secretsmanager:ResourceTag/team in
// the form some services' tables write its template,
// secretsmanager:ResourceTag/tag-key, or "" for a key without a "/".
func tagKeyForm(key string) string {
	colon := strings.IndexByte(key, ':')
	slash := strings.IndexByte(key[colon+1:], '/')
	if colon < 0 || slash < 0 {
		return ""
	}
	return key[:colon+1+slash+1] + "tag-key"
}

// someActionSupports reports whether a condition key bears on one of the
// actions, trying the actions of the key's own service first.
func (v *validator) someActionSupports(actions []catalog.Action, key string) bool {
	prefix, _, _ := strings.Cut(key, ":")
	for pass := range 2 {
		for _, a := range actions {
			if strings.EqualFold(a.Service, prefix) == (pass == 0) && v.cat.SupportsConditionKey(a, key) {
				return true
			}
		}
	}
	return false
}

// conditionHoldsWithoutKey asks the engine whether the condition holds for
// a request that lacks its key. decided is false when the condition does
// not compile.
func conditionHoldsWithoutKey(c policy.Condition, version string) (holds, decided bool) {
	if version == "" {
		version = policy.Version2008
	}
	probe := &policy.Document{Version: version, Statements: []policy.Statement{{
		Effect: policy.Allow, Action: []string{"*"}, Resource: []string{"*"}, Conditions: []policy.Condition{c},
	}}}
	p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "probe", Document: probe}}})
	if err != nil {
		return false, false
	}
	return p.Decide(&policy.Request{Action: "leash:Probe", Resource: "*"}) == policy.Allowed, true
}

// conditionFix says what to do about a condition key: for one the catalog
// does not know, the closest keys by name; for one that bears on none of
// the statement's actions, the keys they do support.
func (v *validator) conditionFix(key string, known bool, sc *stmtScope) string {
	var pool []string
	seen := map[string]bool{}
	addKey := func(k string, global bool) {
		if l := strings.ToLower(k); !seen[l] && (!global || !known) {
			seen[l] = true
			pool = append(pool, k)
		}
	}
	if !known {
		prefix, _, _ := strings.Cut(key, ":")
		for _, k := range v.cat.ServiceConditionKeys(prefix) {
			addKey(k.Name, false)
		}
		for _, k := range v.cat.GlobalConditionKeys() {
			addKey(k.Name, false)
		}
	}
	if !sc.every {
		for i, a := range sc.actions {
			if i == 200 {
				break
			}
			for _, k := range v.cat.ActionConditionKeys(a) {
				addKey(k, strings.HasPrefix(strings.ToLower(k), "aws:"))
			}
		}
	}
	if !known {
		if best := closest(key, pool, 3); len(best) > 0 {
			return "did you mean " + strings.Join(best, " or ") + "?"
		}
		return "use a condition key of the service authorization reference, or remove the condition"
	}
	if len(pool) == 0 {
		return "remove the condition, or move it to a statement of the actions it is for; these actions support only AWS's global aws: keys"
	}
	more := ""
	if len(pool) > 5 {
		more = fmt.Sprintf(" and %d more", len(pool)-5)
	}
	return fmt.Sprintf("remove the condition, or move it to a statement of the actions it is for; these actions support %s%s besides the global aws: keys",
		strings.Join(pool[:min(5, len(pool))], ", "), more)
}

// closest returns up to n names from pool nearest to s by edit distance,
// ignoring case, within a third of s's length.
func closest(s string, pool []string, n int) []string {
	limit := max(2, len(s)/3)
	type scored struct {
		name string
		d    int
	}
	var best []scored
	ls := strings.ToLower(s)
	for _, p := range pool {
		d := editDistance(ls, strings.ToLower(p))
		if d > limit {
			continue
		}
		i := len(best)
		for i > 0 && best[i-1].d > d {
			i--
		}
		best = append(best, scored{})
		copy(best[i+1:], best[i:])
		best[i] = scored{p, d}
		if len(best) > n {
			best = best[:n]
		}
	}
	out := make([]string, len(best))
	for i, b := range best {
		out[i] = b.name
	}
	return out
}

// editDistance is the Levenshtein distance between two strings, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
