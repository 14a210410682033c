// Package account is an AWS account's principals and policies, as
// iam:GetAccountAuthorizationDetails describes them, and the questions asked
// of the whole account: who can perform an action, and who can reach that
// through other principals (an escalation graph). Every decision is the
// policy engine's; the package reads nothing but the bytes it is given.
package whocan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// howToProduce is the fix for a file that is not a snapshot.
const howToProduce = "give the output of `aws iam get-account-authorization-details > account.json` (or leave out --account to read the live account)"

// Snapshot is an account's users, groups, roles and managed policies, with
// their documents parsed.
type Snapshot struct {
	// Source names where the snapshot came from (a file, "-", or the
	// endpoint), for messages.
	Source   string
	Users    []User
	Groups   map[string]*Group // by name
	Roles    []Role
	Policies map[string]*ManagedPolicy // by ARN

	pending []pendingPolicy
}

// Inline is an inline policy: its name and document.
type Inline struct {
	Name     string
	Document *policy.Document
}

// User is an IAM user as the snapshot lists it.
type User struct {
	Name, ARN string
	Inline    []Inline
	Attached  []string // managed policy ARNs
	Groups    []string // group names
	Boundary  string   // managed policy ARN, "" for none
}

// Group is an IAM group.
type Group struct {
	Name, ARN string
	Inline    []Inline
	Attached  []string
}

// Role is an IAM role.
type Role struct {
	Name, ARN string
	Trust     *policy.Document
	Inline    []Inline
	Attached  []string
	Boundary  string
}

// ManagedPolicy is a managed policy's default version.
type ManagedPolicy struct {
	Name, ARN string
	// Document is nil for a policy no user, group or role uses.
	Document *policy.Document
}

// AWSManaged reports whether the policy is one of AWS's (arn:aws:iam::aws:
// policy/...), which no one in the account can change.
func (m *ManagedPolicy) AWSManaged() bool { return isAWSManaged(m.ARN) }

func isAWSManaged(arn string) bool {
	parts := strings.SplitN(arn, ":", 6)
	return len(parts) == 6 && parts[4] == "aws"
}

// page is one page of the API's response, in either document encoding.
type page struct {
	UserDetailList  *[]userDetail
	GroupDetailList *[]groupDetail
	RoleDetailList  *[]roleDetail
	Policies        *[]policyDetail
}

type inlineDetail struct {
	PolicyName string
	// PolicyDocument stays raw until policy.Parse reads it (an object, or
	// a string holding the URL-encoded document).
	PolicyDocument json.RawMessage
}

type attachedDetail struct {
	PolicyName, PolicyArn string
}

type boundaryDetail struct {
	PermissionsBoundaryArn string
}

type userDetail struct {
	UserName, Arn           string
	UserPolicyList          []inlineDetail
	AttachedManagedPolicies []attachedDetail
	GroupList               []string
	PermissionsBoundary     *boundaryDetail
}

type groupDetail struct {
	GroupName, Arn          string
	GroupPolicyList         []inlineDetail
	AttachedManagedPolicies []attachedDetail
}

type roleDetail struct {
	RoleName, Arn            string
	AssumeRolePolicyDocument json.RawMessage
	RolePolicyList           []inlineDetail
	AttachedManagedPolicies  []attachedDetail
	PermissionsBoundary      *boundaryDetail
}

// policyDetail is a managed policy's element as the file holds it. A large
// account's policies are most of its snapshot and most go unused, so each
// is read only as far as its ARN until a principal is found to use it
// (parsePolicies).
type policyDetail struct {
	raw []byte
}

// UnmarshalJSON keeps the element (copied: the decoder reuses its input).
func (d *policyDetail) UnmarshalJSON(b []byte) error {
	d.raw = bytes.Clone(b)
	return nil
}

// policyFields are the fields of a policy element leash reads.
type policyFields struct {
	name, arn, defaultVersion string
	versions                  []byte // the raw PolicyVersionList
}

func (s *Snapshot) policyFields(d *policyDetail, path string) (policyFields, error) {
	var f policyFields
	bad := ""
	ok := eachField(d.raw, func(key string, raw []byte) {
		var to *string
		switch key {
		case "PolicyName":
			to = &f.name
		case "Arn":
			to = &f.arn
		case "DefaultVersionId":
			to = &f.defaultVersion
		case "PolicyVersionList":
			f.versions = raw
			return
		default:
			return
		}
		var isString bool
		if *to, isString = jsonString(raw); !isString && bad == "" {
			bad = key
		}
	})
	if !ok {
		return f, &inputerr.Error{Source: s.Source, Field: path, Msg: "is not a JSON object; " + howToProduce}
	}
	if bad != "" {
		return f, &inputerr.Error{Source: s.Source, Field: path + "." + bad, Msg: "must be a string; " + howToProduce}
	}
	return f, nil
}

// defaultDocument is the raw document of the policy's default version.
func (s *Snapshot) defaultDocument(f policyFields, path string) ([]byte, error) {
	path += ".PolicyVersionList"
	var versions [][]byte
	if len(f.versions) > 0 && string(f.versions) != "null" {
		var ok bool
		if versions, ok = arrayElements(f.versions); !ok {
			return nil, &inputerr.Error{Source: s.Source, Field: path, Msg: "must be a list of policy versions; " + howToProduce}
		}
	}
	var doc []byte
	for i, v := range versions {
		var id string
		var isDefault bool
		var document []byte
		ok := eachField(v, func(key string, raw []byte) {
			switch key {
			case "VersionId":
				id, _ = jsonString(raw)
			case "IsDefaultVersion":
				isDefault = string(raw) == "true"
			case "Document":
				document = raw
			}
		})
		if !ok {
			return nil, &inputerr.Error{Source: s.Source, Field: fmt.Sprintf("%s[%d]", path, i), Msg: "is not a JSON object; " + howToProduce}
		}
		if isDefault || (doc == nil && id == f.defaultVersion) {
			doc = document
		}
	}
	return doc, nil
}

// jsonString decodes a JSON string; ok is false for any other value.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	err := json.Unmarshal(raw, &v)
	return v, err == nil
}

// Parse reads the output of `aws iam get-account-authorization-details`: one
// page object, several page objects one after another, or a JSON array of
// page objects. Documents may be JSON objects (as the AWS CLI prints them)
// or URL-encoded strings (as the API returns them). Anything else is an
// *inputerr.Error naming source and saying how to produce a snapshot.
func Parse(data []byte, source string) (*Snapshot, error) {
	pages, err := decodePages(data, source)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Source: source, Groups: map[string]*Group{}, Policies: map[string]*ManagedPolicy{}}
	for pi, p := range pages {
		if err := s.add(p, pagePath(pi, len(pages))); err != nil {
			return nil, err
		}
	}
	if err := s.parsePolicies(); err != nil {
		return nil, err
	}
	return s, nil
}

// pendingPolicy is a managed policy read from a page, its document not yet
// parsed.
type pendingPolicy struct {
	detail *policyDetail
	path   string
}

// parsePolicies parses the default version of every managed policy a user,
// group or role uses (attached or as its boundary), on every core, and
// reports the first bad one in file order. A policy nothing uses bears on
// no answer: it is listed with no document, unparsed, which in a large
// account saves most of the work.
func (s *Snapshot) parsePolicies() error {
	used := map[string]bool{}
	for _, u := range s.Users {
		used[u.Boundary] = true
		for _, a := range u.Attached {
			used[a] = true
		}
	}
	for _, g := range s.Groups {
		for _, a := range g.Attached {
			used[a] = true
		}
	}
	for _, r := range s.Roles {
		used[r.Boundary] = true
		for _, a := range r.Attached {
			used[a] = true
		}
	}
	list := s.pending
	s.pending = nil
	docs := make([]*policy.Document, len(list))
	fields := make([]policyFields, len(list))
	err := parallel(len(list), func(i int) error {
		var err error
		if fields[i], err = s.policyFields(list[i].detail, list[i].path); err != nil || !used[fields[i].arn] {
			return err
		}
		doc, err := s.defaultDocument(fields[i], list[i].path)
		if err != nil {
			return err
		}
		if doc == nil {
			return &inputerr.Error{Source: s.Source, Field: list[i].path, Msg: fmt.Sprintf("managed policy %s has no default version in PolicyVersionList; produce the file with `aws iam get-account-authorization-details` without a --filter", fields[i].arn)}
		}
		docs[i], err = s.document(doc, policy.Identity, list[i].path+".PolicyVersionList")
		return err
	})
	if err != nil {
		return err
	}
	for i := range list {
		s.Policies[fields[i].arn] = &ManagedPolicy{Name: fields[i].name, ARN: fields[i].arn, Document: docs[i]}
	}
	return nil
}

func pagePath(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("[%d].", i)
}

func decodePages(data []byte, source string) ([]page, error) {
	notSnapshot := func(why string) error {
		return &inputerr.Error{Source: source, Msg: why + "; " + howToProduce}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, notSnapshot("is empty, not an account authorization details document")
	}
	var pages []page
	var err error
	if trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &pages)
	} else if one, ok := decodeSplit(trimmed); ok {
		// One page, the common case: its lists' elements decoded on every
		// core, in place, without the Decoder's copy of the whole input.
		pages = []page{one}
	} else {
		// Several pages one after another (or an error, reported as the
		// Decoder finds it).
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for {
			var p page
			if err = dec.Decode(&p); err != nil {
				break
			}
			pages = append(pages, p)
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, notSnapshot("is not JSON (" + err.Error() + ")")
		}
		return nil, &inputerr.Error{Source: source, Msg: "does not have the API's shape (" + err.Error() + "); " + howToProduce}
	}
	if len(pages) == 0 {
		return nil, notSnapshot("holds no page of account authorization details")
	}
	for i, p := range pages {
		if p.UserDetailList == nil && p.GroupDetailList == nil && p.RoleDetailList == nil && p.Policies == nil {
			return nil, notSnapshot(pagePath(i, len(pages)) + whatItIs(trimmed, i, len(pages)))
		}
	}
	return pages, nil
}

// whatItIs says what a page without any of the API's keys is instead, for
// the message; it runs only on the error path.
func whatItIs(data []byte, i, n int) string {
	var keys map[string]json.RawMessage
	if n > 1 || data[0] == '[' {
		var list []map[string]json.RawMessage
		if json.Unmarshal(data, &list) == nil && i < len(list) {
			keys = list[i]
		}
	} else {
		_ = json.Unmarshal(data, &keys)
	}
	switch {
	case hasAny(keys, "Statement", "Version"):
		return "is a policy document, not an account's authorization details"
	case hasAny(keys, "apiVersion", "kind"):
		return "is a Kubernetes manifest, not an account's authorization details"
	}
	return "has none of the keys UserDetailList, GroupDetailList, RoleDetailList and Policies"
}

func hasAny(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// add adds a page's users, groups and roles, their documents parsed on
// every core; the first bad document in file order (groups, users, roles)
// is the error.
func (s *Snapshot) add(p page, at string) error {
	if p.Policies != nil {
		for i := range *p.Policies {
			s.pending = append(s.pending, pendingPolicy{detail: &(*p.Policies)[i], path: fmt.Sprintf("%sPolicies[%d]", at, i)})
		}
	}
	var groupList []groupDetail
	var userList []userDetail
	var roleList []roleDetail
	if p.GroupDetailList != nil {
		groupList = *p.GroupDetailList
	}
	if p.UserDetailList != nil {
		userList = *p.UserDetailList
	}
	if p.RoleDetailList != nil {
		roleList = *p.RoleDetailList
	}
	groups := make([]Group, len(groupList))
	users := make([]User, len(userList))
	roles := make([]Role, len(roleList))
	err := parallel(len(groups)+len(users)+len(roles), func(i int) error {
		if i < len(groups) {
			return s.group(&groupList[i], &groups[i], fmt.Sprintf("%sGroupDetailList[%d]", at, i))
		}
		if i -= len(groups); i < len(users) {
			return s.user(&userList[i], &users[i], fmt.Sprintf("%sUserDetailList[%d]", at, i))
		}
		i -= len(users)
		return s.role(&roleList[i], &roles[i], fmt.Sprintf("%sRoleDetailList[%d]", at, i))
	})
	if err != nil {
		return err
	}
	for i := range groups {
		s.Groups[groups[i].Name] = &groups[i]
	}
	s.Users = append(s.Users, users...)
	s.Roles = append(s.Roles, roles...)
	return nil
}

func (s *Snapshot) group(d *groupDetail, g *Group, path string) error {
	*g = Group{Name: d.GroupName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies)}
	var err error
	g.Inline, err = s.inline(d.GroupPolicyList, path+".GroupPolicyList")
	return err
}

func (s *Snapshot) user(d *userDetail, u *User, path string) error {
	if d.Arn == "" {
		return &inputerr.Error{Source: s.Source, Field: path + ".Arn", Msg: "missing; each user needs its ARN; " + howToProduce}
	}
	*u = User{Name: d.UserName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies), Groups: d.GroupList, Boundary: boundaryARN(d.PermissionsBoundary)}
	var err error
	u.Inline, err = s.inline(d.UserPolicyList, path+".UserPolicyList")
	return err
}

func (s *Snapshot) role(d *roleDetail, r *Role, path string) error {
	if d.Arn == "" {
		return &inputerr.Error{Source: s.Source, Field: path + ".Arn", Msg: "missing; each role needs its ARN; " + howToProduce}
	}
	*r = Role{Name: d.RoleName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies), Boundary: boundaryARN(d.PermissionsBoundary)}
	var err error
	if len(d.AssumeRolePolicyDocument) > 0 && string(d.AssumeRolePolicyDocument) != "null" {
		if r.Trust, err = s.document(d.AssumeRolePolicyDocument, policy.Trust, path+".AssumeRolePolicyDocument"); err != nil {
			return err
		}
	}
	r.Inline, err = s.inline(d.RolePolicyList, path+".RolePolicyList")
	return err
}

func (s *Snapshot) inline(list []inlineDetail, path string) ([]Inline, error) {
	out := make([]Inline, 0, len(list))
	for i, d := range list {
		doc, err := s.document(d.PolicyDocument, policy.Identity, fmt.Sprintf("%s[%d].PolicyDocument", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, Inline{Name: d.PolicyName, Document: doc})
	}
	return out, nil
}

// document parses a policy document given as a JSON object or as a JSON
// string holding the URL-encoded document.
func (s *Snapshot) document(raw json.RawMessage, kind policy.Kind, path string) (*policy.Document, error) {
	data := []byte(raw)
	if len(data) > 0 && data[0] == '"' {
		var enc string
		if err := json.Unmarshal(data, &enc); err != nil {
			return nil, &inputerr.Error{Source: s.Source, Field: path, Msg: err.Error()}
		}
		return s.encoded(enc, kind, path)
	}
	doc, err := policy.Parse(data, kind)
	return s.parsed(doc, err, path)
}

// encoded parses a document as IAM returns it: URL-encoded JSON.
func (s *Snapshot) encoded(enc string, kind policy.Kind, path string) (*policy.Document, error) {
	dec, err := url.PathUnescape(enc)
	if err != nil {
		return nil, &inputerr.Error{Source: s.Source, Field: path, Msg: "a string document must be URL-encoded JSON, as IAM returns it: " + err.Error()}
	}
	doc, err := policy.Parse([]byte(dec), kind)
	return s.parsed(doc, err, path)
}

func (s *Snapshot) parsed(doc *policy.Document, err error, path string) (*policy.Document, error) {
	if err != nil {
		var pe *policy.ParseError
		if errors.As(err, &pe) {
			return nil, &inputerr.Error{Source: s.Source, Field: path + "." + pe.Path, Msg: pe.Msg}
		}
		return nil, &inputerr.Error{Source: s.Source, Field: path, Msg: err.Error()}
	}
	return doc, nil
}

func attachedARNs(list []attachedDetail) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.PolicyArn
	}
	return out
}

func boundaryARN(b *boundaryDetail) string {
	if b == nil {
		return ""
	}
	return b.PermissionsBoundaryArn
}
