// Package catalog is AWS's action catalog: every service's actions with their
// access levels, resource types with their ARN formats, and condition keys,
// from the service authorization reference as carried by the data set named
// in DataSet and DataVersion.
//
// The data is embedded in the binary (catalog.bin, written by `go generate`;
// see generate.go) and decoded once, on first use. A Catalog is immutable and
// safe for concurrent use; the slices in the values it returns are shared
// and must not be modified.
package catalog

import (
	"slices"
	"sort"
	"strings"
)

// AccessLevel is the access level AWS gives an action.
type AccessLevel string

// The access levels of the service authorization reference. The data set
// marks permissions-management and tagging actions as also Write; the catalog
// gives them their specific level.
const (
	List                  AccessLevel = "List"
	Read                  AccessLevel = "Read"
	Write                 AccessLevel = "Write"
	PermissionsManagement AccessLevel = "Permissions management"
	Tagging               AccessLevel = "Tagging"
)

// accessLevels are the access levels by their code in catalog.bin.
var accessLevels = [...]AccessLevel{List, Read, Write, PermissionsManagement, Tagging}

// Action is one action of a service.
type Action struct {
	// Service is the service prefix, such as "ec2".
	Service string
	// Name is the action's name with AWS's casing, such as "DescribeInstances".
	Name   string
	Access AccessLevel
	// Resources are the resource types the action can name in a policy's
	// Resource element; none means the action supports only "*".
	Resources []ResourceRef
	// ConditionKeys are the keys the action supports whatever the resource;
	// see Catalog.ActionConditionKeys for all of them.
	ConditionKeys []string
}

// String returns the action as a policy names it: "svc:Name".
func (a Action) String() string { return a.Service + ":" + a.Name }

// Compare orders actions as Expand returns them: by service prefix, then by
// name ignoring case.
func Compare(a, b Action) int {
	if c := strings.Compare(a.Service, b.Service); c != 0 {
		return c
	}
	return compareFold(a.Name, b.Name)
}

// ResourceRef is a resource type an action acts on.
type ResourceRef struct {
	// Type is the resource type's name within the action's service.
	Type string
	// Required is true when the action always acts on this type; false when
	// only some requests do.
	Required bool
	// ConditionKeys are the keys the action supports for this resource type.
	ConditionKeys []string
}

// ResourceType is a kind of resource of a service.
type ResourceType struct {
	Service, Name string
	// ARN is the ARN format, with placeholders such as ${Partition},
	// ${Region}, ${Account} and ${InstanceId}.
	ARN           string
	ConditionKeys []string
}

// ConditionKey is a condition key and its type (String, ARN, Bool, Date,
// IPAddress, Numeric, ArrayOfString, ...). A templated key such as
// aws:ResourceTag/${TagKey} stands for each of its instances.
type ConditionKey struct {
	Name, Type string
	// Global is true for the aws: keys AWS documents for every service.
	Global bool
}

// Service is a service's prefix and name and how much of it the catalog has.
type Service struct {
	// Prefix is the service prefix of its actions, such as "ec2".
	Prefix string
	// Name is the service's name, such as "Amazon EC2".
	Name                                  string
	Actions, ResourceTypes, ConditionKeys int
}

// Catalog is the decoded data set.
type Catalog struct {
	services []service // sorted by prefix
	byPrefix map[string]*service
	all      []Action // every action, in services' order
	globals  []ConditionKey
	// keys are the condition keys by lower-cased name; templated keys are in
	// templates, under the lower-cased text up to their first colon ("" for
	// keys with a placeholder before it).
	keys      map[string]ConditionKey
	templates map[string][]template
}

type service struct {
	info    Service
	actions []Action       // sorted by lower-cased name
	rtypes  []ResourceType // sorted by lower-cased name
	keys    []ConditionKey // sorted by lower-cased name
}

// template is a condition key with placeholders: its literal parts,
// lower-cased, each placeholder between two parts standing for one or more
// characters.
type template struct {
	key   ConditionKey
	parts []string
	lits  int // total length of the parts, to prefer the most specific
}

// Services returns every service, sorted by prefix.
func (c *Catalog) Services() []Service {
	out := make([]Service, len(c.services))
	for i := range c.services {
		out[i] = c.services[i].info
	}
	return out
}

// Service returns the service with the prefix, case-insensitively.
func (c *Catalog) Service(prefix string) (Service, bool) {
	s := c.service(prefix)
	if s == nil {
		return Service{}, false
	}
	return s.info, true
}

func (c *Catalog) service(prefix string) *service {
	if s, ok := c.byPrefix[prefix]; ok {
		return s
	}
	var buf [64]byte
	if len(prefix) > len(buf) {
		return nil // longer than any prefix
	}
	b := buf[:len(prefix)]
	for i := range len(prefix) {
		b[i] = lower(prefix[i])
	}
	return c.byPrefix[string(b)]
}

// Action returns the action named "svc:Action", case-insensitively.
func (c *Catalog) Action(name string) (Action, bool) {
	prefix, action, ok := strings.Cut(name, ":")
	if !ok {
		return Action{}, false
	}
	s := c.service(prefix)
	if s == nil {
		return Action{}, false
	}
	i, found := sort.Find(len(s.actions), func(i int) int { return compareFold(action, s.actions[i].Name) })
	if !found {
		return Action{}, false
	}
	return s.actions[i], true
}

// ResourceType returns the service's resource type with the name, both
// case-insensitively.
func (c *Catalog) ResourceType(service, name string) (ResourceType, bool) {
	s := c.service(service)
	if s == nil {
		return ResourceType{}, false
	}
	i, found := sort.Find(len(s.rtypes), func(i int) int { return compareFold(name, s.rtypes[i].Name) })
	if !found {
		return ResourceType{}, false
	}
	return s.rtypes[i], true
}

// ResourceTypes returns the service's resource types, sorted by name.
func (c *Catalog) ResourceTypes(service string) []ResourceType {
	s := c.service(service)
	if s == nil {
		return nil
	}
	return slices.Clone(s.rtypes)
}

// ServiceConditionKeys returns the condition keys the service's own table
// lists (including aws: tag keys it supports), sorted by name.
func (c *Catalog) ServiceConditionKeys(service string) []ConditionKey {
	s := c.service(service)
	if s == nil {
		return nil
	}
	return slices.Clone(s.keys)
}

// GlobalConditionKeys returns AWS's global condition keys, sorted by name.
func (c *Catalog) GlobalConditionKeys() []ConditionKey {
	return slices.Clone(c.globals)
}

// ConditionKey returns the condition key with the name, case-insensitively:
// a global aws: key or a service's key. A name that instantiates a templated
// key, such as aws:ResourceTag/team for aws:ResourceTag/${TagKey} or
// s3:ExistingObjectTag/env for s3:ExistingObjectTag/<key>, returns the
// templated key; each placeholder stands for one or more characters.
func (c *Catalog) ConditionKey(name string) (ConditionKey, bool) {
	lname := strings.ToLower(name)
	if k, ok := c.keys[lname]; ok {
		return k, true
	}
	var best *template
	try := func(ts []template) {
		for i := range ts {
			t := &ts[i]
			if (best == nil || t.lits > best.lits) && t.match(lname) {
				best = t
			}
		}
	}
	if colon := strings.IndexByte(lname, ':'); colon >= 0 {
		try(c.templates[lname[:colon+1]])
	}
	try(c.templates[""])
	if best == nil {
		return ConditionKey{}, false
	}
	return best.key, true
}

// match reports whether the lower-cased name instantiates the template.
func (t *template) match(name string) bool {
	if !strings.HasPrefix(name, t.parts[0]) {
		return false
	}
	rest := name[len(t.parts[0]):]
	last := len(t.parts) - 1
	for i := 1; i < last; i++ {
		// Leftmost placement of each middle part leaves the most room for
		// those after it; each placeholder needs at least one character.
		j := strings.Index(rest[min(1, len(rest)):], t.parts[i])
		if j < 0 || len(rest) == 0 {
			return false
		}
		rest = rest[1+j+len(t.parts[i]):]
	}
	end := t.parts[last]
	return len(rest) > len(end) && strings.HasSuffix(rest, end)
}

// newTemplate splits a key with placeholders, ${...} or <...> (as in
// s3:ExistingObjectTag/<key>), into its parts, or returns false for a key
// without one.
func newTemplate(k ConditionKey) (template, bool) {
	name := strings.ToLower(k.Name)
	if !strings.Contains(name, "${") && !strings.Contains(name, "<") {
		return template{}, false
	}
	t := template{key: k}
	for {
		open, closer := strings.Index(name, "${"), byte('}')
		if lt := strings.IndexByte(name, '<'); lt >= 0 && (open < 0 || lt < open) {
			open, closer = lt, '>'
		}
		if open < 0 {
			break
		}
		end := strings.IndexByte(name[open:], closer)
		if end < 0 {
			break
		}
		t.parts = append(t.parts, name[:open])
		name = name[open+end+1:]
	}
	t.parts = append(t.parts, name)
	for _, p := range t.parts {
		t.lits += len(p)
	}
	return t, len(t.parts) > 1
}

// ActionConditionKeys returns every condition key the action supports: its
// own, those it supports for each of its resource types, and those of the
// resource types themselves, without repeats, sorted by name. It holds the
// global keys only where the data set lists them (the aws: tag keys);
// SupportsConditionKey counts every global key.
func (c *Catalog) ActionConditionKeys(a Action) []string {
	out := slices.Clone(a.ConditionKeys)
	for _, r := range a.Resources {
		out = append(out, r.ConditionKeys...)
		if rt, ok := c.ResourceType(a.Service, r.Type); ok {
			out = append(out, rt.ConditionKeys...)
		}
	}
	slices.SortFunc(out, compareFold)
	return slices.CompactFunc(out, strings.EqualFold)
}

// SupportsConditionKey reports whether a condition on the key can bear on the
// action: the key is global, or is one of ActionConditionKeys (a templated
// key counting for each of its instances).
func (c *Catalog) SupportsConditionKey(a Action, key string) bool {
	if k, ok := c.ConditionKey(key); ok && k.Global {
		return true
	}
	lkey := strings.ToLower(key)
	has := func(keys []string) bool {
		for _, k := range keys {
			if strings.EqualFold(k, key) {
				return true
			}
			if t, ok := newTemplate(ConditionKey{Name: k}); ok && t.match(lkey) {
				return true
			}
		}
		return false
	}
	if has(a.ConditionKeys) {
		return true
	}
	for _, r := range a.Resources {
		if has(r.ConditionKeys) {
			return true
		}
		if rt, ok := c.ResourceType(a.Service, r.Type); ok && has(rt.ConditionKeys) {
			return true
		}
	}
	return false
}

// Expand returns the actions an IAM action pattern matches, sorted by service
// prefix and then by name. The pattern matches "svc:Action" case-insensitively,
// * standing for any run of characters and ? for any one: "*" is every
// action, "ec2:Describe*" every ec2 action whose name starts with Describe,
// "*:Get*" every service's Get actions.
func (c *Catalog) Expand(pattern string) []Action {
	if pattern == "*" {
		return slices.Clone(c.all)
	}
	prefix, action, ok := strings.Cut(pattern, ":")
	if !ok || strings.IndexByte(action, ':') >= 0 {
		// No colon, or several: match the whole "svc:Action" string.
		var out []Action
		var buf []byte
		for _, a := range c.all {
			buf = append(append(append(buf[:0], a.Service...), ':'), a.Name...)
			if globFold(pattern, buf) {
				out = append(out, a)
			}
		}
		return out
	}
	// Count, then fill an array of the right size: growing one by appending
	// costs more than matching twice.
	var one *service
	if !hasWildcard(prefix) {
		if one = c.service(prefix); one == nil {
			return nil
		}
	}
	each := func(f func(s *service)) {
		if one != nil {
			f(one)
			return
		}
		for i := range c.services {
			if s := &c.services[i]; globFold(prefix, s.info.Prefix) {
				f(s)
			}
		}
	}
	n := 0
	each(func(s *service) { n += countMatches(s.actions, action) })
	if n == 0 {
		return nil
	}
	out := make([]Action, 0, n)
	each(func(s *service) { out = appendMatches(out, s.actions, action) })
	return out
}

// candidates returns the run of the actions, sorted by lower-cased name,
// whose names start as the pattern does before its first wildcard, and
// whether every one of them matches the pattern.
func candidates(actions []Action, pattern string) (run []Action, all bool) {
	if pattern == "*" {
		return actions, true
	}
	w := strings.IndexAny(pattern, "*?")
	if w < 0 {
		if i, found := sort.Find(len(actions), func(i int) int { return compareFold(pattern, actions[i].Name) }); found {
			return actions[i : i+1], true
		}
		return nil, true
	}
	lit := pattern[:w]
	lo := sort.Search(len(actions), func(i int) bool { return compareFold(actions[i].Name, lit) >= 0 })
	hi := lo + sort.Search(len(actions)-lo, func(i int) bool { return !hasPrefixFold(actions[lo+i].Name, lit) })
	return actions[lo:hi], w == len(pattern)-1 && pattern[w] == '*'
}

// countMatches counts the actions, sorted by lower-cased name, whose names
// match the pattern.
func countMatches(actions []Action, pattern string) int {
	run, all := candidates(actions, pattern)
	if all {
		return len(run)
	}
	n := 0
	for i := range run {
		if globFold(pattern, run[i].Name) {
			n++
		}
	}
	return n
}

// appendMatches appends the actions, sorted by lower-cased name, whose names
// match the pattern.
func appendMatches(out, actions []Action, pattern string) []Action {
	run, all := candidates(actions, pattern)
	if all {
		return append(out, run...)
	}
	for i := range run {
		if globFold(pattern, run[i].Name) {
			out = append(out, run[i])
		}
	}
	return out
}

// ARNMatchesType reports whether a resource ARN or ARN pattern from a policy
// could name a resource of the type. Both are split into their six parts at
// their first five colons and compared part by part, as leash's engine
// (package policy) matches ARNs: a wildcard never spans the colons between
// partition, service, region, account and resource. In the type's ARN format
// each placeholder ${...} stands for any run of characters; in arn, * stands
// for any run (crossing / and the resource part's colons), ? for any one
// character, and a policy variable such as ${aws:username} for any run
// ("${*}", "${?}" and "${$}" are those characters). Letters match whatever
// their case. The answer is conservative: false only when no ARN could
// match both. An arn other than "*" without six parts matches nothing, as in
// the engine.
func (c *Catalog) ARNMatchesType(rt ResourceType, arn string) bool {
	if arn == "*" {
		return true
	}
	// A few types (API Gateway's) carry several formats separated by ", ".
	for format := range strings.SplitSeq(rt.ARN, ", ") {
		if matchesFormat(format, arn) {
			return true
		}
	}
	return false
}

// matchesFormat is ARNMatchesType for one ARN format.
func matchesFormat(format, arn string) bool {
	want, ok := splitARN(format)
	if !ok {
		// Not a six-part format: compare the whole strings.
		return intersect(tokens(format, false), tokens(arn, true))
	}
	got, ok := splitARN(arn)
	if !ok {
		return false
	}
	for i := range got {
		if !intersect(tokens(want[i], false), tokens(got[i], true)) {
			return false
		}
	}
	return true
}
