// Package simulate answers "would AWS allow this?" for requests read from
// JSON or built from flags: the stable request contract of `leash simulate`,
// its loading with errors that name the file and path, and its outputs.
package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/jsonscan"
	"leash.dev/leash/policy"
)

// Case is one request with the policies that bear on it. Its JSON form is a
// stable contract: scripts depend on these field names.
type Case struct {
	Principal           string                     `json:"principal,omitempty"`
	Action              string                     `json:"action"`
	Resource            string                     `json:"resource,omitempty"`
	ResourceAccount     string                     `json:"resourceAccount,omitempty"`
	Context             map[string]json.RawMessage `json:"context,omitempty"`
	IdentityPolicies    []NamedDocument            `json:"identityPolicies,omitempty"`
	ResourcePolicy      json.RawMessage            `json:"resourcePolicy,omitempty"`
	PermissionsBoundary json.RawMessage            `json:"permissionsBoundary,omitempty"`
	SCPs                [][]NamedDocument          `json:"scps,omitempty"`
	RCPs                [][]NamedDocument          `json:"rcps,omitempty"`
	SessionPolicy       json.RawMessage            `json:"sessionPolicy,omitempty"`

	// Names for the single policies, such as the files they came from.
	ResourcePolicyName, BoundaryName, SessionPolicyName string `json:"-"`

	// path locates the case in its source ("[2]", "line 3") for errors;
	// locate, when set, finds it on the first error.
	path   string
	locate func() string
	// bad says why the JSON read is not a request object.
	bad string
}

// NamedDocument is a policy with a name.
type NamedDocument struct {
	Name     string          `json:"name"`
	Document json.RawMessage `json:"document"`
}

// ReadCases reads one JSON object, a JSON array of objects, or JSON Lines,
// all at once: the first request that is not a request object is an error.
// source names the input in errors. Batches of any size go through Reader.
func ReadCases(data []byte, source string) ([]Case, error) {
	r, err := NewReader(bytes.NewReader(data), source)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for {
		c, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		cases = append(cases, *c)
	}
	for i := range cases {
		c := &cases[i]
		if c.where(); c.bad != "" {
			return nil, &inputerr.Error{Source: source, Field: c.path, Msg: c.bad}
		}
	}
	return cases, nil
}

// where is the case's place in its source, for errors.
func (c *Case) where() string {
	if c.locate != nil {
		c.path, c.locate = c.locate(), nil
	}
	return c.path
}

// Compiled is a case ready to evaluate.
type Compiled struct {
	Request  policy.Request
	Policies *policy.Policies
}

// Compile parses every policy of the case and builds its request. Errors
// name the source and the JSON path of the problem.
func (c *Case) Compile(source, path string) (*Compiled, error) {
	return c.compile(source, func() string { return path }, nil)
}

// compile is Compile with the path found only when an error needs it, and
// documents taken from cache when not nil.
func (c *Case) compile(source string, where func() string, cache *docCache) (*Compiled, error) {
	req, set, err := c.resolve(source, where, cache, nil)
	if err != nil {
		return nil, err
	}
	return compileSet(req, set, source, where)
}

// compileSet compiles the parsed policies of a case; errors name the case.
func compileSet(req policy.Request, set policy.Set, source string, where func() string) (*Compiled, error) {
	compiled, err := policy.Compile(set)
	if err != nil {
		return nil, &inputerr.Error{Source: source, Field: where(), Msg: err.Error()}
	}
	return &Compiled{Request: req, Policies: compiled}, nil
}

// resolve checks the request's fields, builds its context and parses its
// policies: everything up to compiling them. When asm is not nil, it gathers
// the documents compiled by the cache instead, and the Set is empty.
func (c *Case) resolve(source string, where func() string, cache *docCache, asm *assembly) (policy.Request, policy.Set, error) {
	var none policy.Request
	at := func(p string) string {
		path := where()
		switch {
		case path == "":
			return p
		case strings.HasPrefix(path, "line "):
			return path + ": " + p
		}
		return path + "." + p
	}
	fail := func(p string, err error) error {
		return &inputerr.Error{Source: source, Field: at(p), Msg: err.Error()}
	}
	if c.bad != "" {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: where(), Msg: c.bad}
	}
	if c.Action == "" {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: at("action"), Msg: `missing; give the action to check, such as "s3:GetObject"`}
	}
	if svc, name, ok := strings.Cut(c.Action, ":"); !ok || svc == "" || name == "" || strings.ContainsAny(c.Action, "*?") {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: at("action"), Msg: fmt.Sprintf(`must be one action as "service:Action" without wildcards, such as "s3:GetObject"; got %q`, c.Action)}
	}
	if c.Resource != "" && c.Resource != "*" && !validARN(c.Resource) {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: at("resource"), Msg: fmt.Sprintf(`must be "*" or an ARN such as "arn:aws:s3:::bucket/key"; got %q`, c.Resource)}
	}
	if c.Principal != "" && strings.HasPrefix(c.Principal, "arn:") && !validARN(c.Principal) {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: at("principal"), Msg: fmt.Sprintf(`must be an ARN such as "arn:aws:iam::111122223333:user/alice", a service principal or a web identity provider; got %q`, c.Principal)}
	}
	if c.ResourceAccount != "" && !policy.IsAccountID(c.ResourceAccount) {
		return none, policy.Set{}, &inputerr.Error{Source: source, Field: at("resourceAccount"), Msg: fmt.Sprintf("must be a 12-digit account ID; got %q", c.ResourceAccount)}
	}
	req := policy.Request{Principal: c.Principal, Action: c.Action, Resource: c.Resource, ResourceAccount: c.ResourceAccount}
	seen := map[string]string{}
	for k, raw := range c.Context {
		if other, dup := seen[strings.ToLower(k)]; dup {
			return none, policy.Set{}, fail("context."+k, fmt.Errorf("repeats key %q: key names are case-insensitive; give the key once, with an array for several values", other))
		}
		seen[strings.ToLower(k)] = k
		if err := setContext(&req.Context, k, raw); err != nil {
			return none, policy.Set{}, fail("context."+k, err)
		}
	}
	// AWS puts the caller's own keys in every request context.
	req.Context.AddPrincipalKeys(c.Principal)
	var set policy.Set
	var err error
	asm.reserve(c)
	for i, n := range c.IdentityPolicies {
		e := cache.get(n.Document, policy.Identity, c.Action)
		if e.err != nil {
			return none, policy.Set{}, fail(fmt.Sprintf("identityPolicies[%d].document", i), e.err)
		}
		name := n.Name
		if name == "" {
			name = fmt.Sprintf("identity-%d", i+1)
		}
		if asm == nil {
			set.Identity = append(set.Identity, policy.Named{Name: name, Document: e.doc})
		}
		asm.identity(e, name)
	}
	var e *docEntry
	name := nameOr(c.ResourcePolicyName, "resource-policy")
	if set.ResourcePolicy, e, err = cache.optional(c.ResourcePolicy, name, policy.ResourcePolicyKind(c.Action, c.Resource), c.Action); err != nil {
		return none, policy.Set{}, fail("resourcePolicy", err)
	}
	asm.single(policy.Resource, e, name)
	name = nameOr(c.BoundaryName, "permissions-boundary")
	if set.Boundary, e, err = cache.optional(c.PermissionsBoundary, name, policy.Boundary, c.Action); err != nil {
		return none, policy.Set{}, fail("permissionsBoundary", err)
	}
	asm.single(policy.Boundary, e, name)
	name = nameOr(c.SessionPolicyName, "session-policy")
	if set.Session, e, err = cache.optional(c.SessionPolicy, name, policy.Session, c.Action); err != nil {
		return none, policy.Set{}, fail("sessionPolicy", err)
	}
	asm.single(policy.Session, e, name)
	if set.SCPs, err = cache.levels(c.SCPs, "scps", policy.SCP, c.Action, fail, asm); err != nil {
		return none, policy.Set{}, err
	}
	if set.RCPs, err = cache.levels(c.RCPs, "rcps", policy.RCP, c.Action, fail, asm); err != nil {
		return none, policy.Set{}, err
	}
	return req, set, nil
}

// levels parses the levels of SCPs or RCPs, or gathers them in asm when
// it is not nil.
func (cache *docCache) levels(in [][]NamedDocument, field string, kind policy.Kind, action string, fail func(string, error) error, asm *assembly) ([][]policy.Named, error) {
	var out [][]policy.Named
	if asm == nil {
		out = make([][]policy.Named, 0, len(in))
	}
	for li, level := range in {
		var docs []policy.Named
		var compiled []*policy.Compiled
		if asm == nil {
			docs = make([]policy.Named, 0, len(level))
		} else {
			compiled = make([]*policy.Compiled, 0, len(level))
		}
		for i, n := range level {
			e := cache.get(n.Document, kind, action)
			if e.err != nil {
				return nil, fail(fmt.Sprintf("%s[%d][%d].document", field, li, i), e.err)
			}
			name := n.Name
			if name == "" {
				name = fmt.Sprintf("%s-%d-%d", field, li, i+1)
			}
			if asm == nil {
				docs = append(docs, policy.Named{Name: name, Document: e.doc})
			} else {
				compiled = append(compiled, asm.use(e, name, li))
			}
		}
		if asm == nil {
			out = append(out, docs)
		}
		asm.level(kind, compiled)
	}
	return out, nil
}

// optional parses a single document that may be absent (then it returns
// nils), for a request for action.
func (cache *docCache) optional(raw json.RawMessage, name string, kind policy.Kind, action string) (*policy.Named, *docEntry, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	e := cache.get(raw, kind, action)
	if e.err != nil {
		return nil, nil, e.err
	}
	return &policy.Named{Name: name, Document: e.doc}, e, nil
}

// parseDoc parses raw as kind: whole when action is "", else for
// compiling for action alone (policy.ParseFor).
func parseDoc(raw string, kind policy.Kind, action string) (*policy.Document, error) {
	if len(raw) == 0 || raw == "null" {
		return nil, fmt.Errorf("missing; give a policy document object")
	}
	if action != "" {
		return policy.ParseFor(raw, kind, action)
	}
	return policy.ParseString(raw, kind)
}

func nameOr(name, def string) string {
	if name != "" {
		return name
	}
	return def
}

// setContext accepts a string, number or boolean (a single value) or an
// array of them (a multivalued key).
func setContext(ctx *policy.Context, key string, raw json.RawMessage) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("context key name is empty")
	}
	if s, ok := plainScalar(raw); ok {
		ctx.Set(key, s)
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	scalar := func(e any) (string, bool) {
		switch x := e.(type) {
		case string:
			return x, true
		case json.Number:
			return x.String(), true
		case bool:
			if x {
				return "true", true
			}
			return "false", true
		}
		return "", false
	}
	if arr, ok := v.([]any); ok {
		values := make([]string, 0, len(arr))
		for i, e := range arr {
			s, ok := scalar(e)
			if !ok {
				return fmt.Errorf("value [%d] must be a string, number or boolean", i)
			}
			values = append(values, s)
		}
		ctx.SetList(key, values)
		return nil
	}
	s, ok := scalar(v)
	if !ok {
		return fmt.Errorf(`must be a string, number, boolean or an array of them, such as "10.0.0.1" or ["a", "b"]`)
	}
	ctx.Set(key, s)
	return nil
}

// plainScalar reads the common context value without a decoder: true,
// false, or a string, decoded as encoding/json decodes it (jsonscan leaves
// the strings it would change). Anything else goes to setContext's decoder.
func plainScalar(raw json.RawMessage) (string, bool) {
	switch string(raw) {
	case "true", "false":
		return string(raw), true
	}
	s := jsonscan.New(string(raw))
	v, ok := s.Str()
	if !ok || !s.End() {
		return "", false
	}
	return v, true
}

func validARN(s string) bool {
	return strings.HasPrefix(s, "arn:") && strings.Count(s, ":") >= 5
}
