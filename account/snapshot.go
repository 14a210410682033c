// Package account is an AWS account's principals and policies, as
// iam:GetAccountAuthorizationDetails describes them, and the questions asked
// of the whole account: who can perform an action, and who can reach that
// through other principals (an escalation graph). Every decision is the
// policy engine's; the package reads nothing but the bytes it is given.
package account

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
	Document  *policy.Document
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
	PolicyName     string
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

type policyDetail struct {
	PolicyName, Arn   string
	DefaultVersionId  string //nolint:revive // the API's field name
	PolicyVersionList []struct {
		Document         json.RawMessage
		VersionId        string //nolint:revive // the API's field name
		IsDefaultVersion bool
	}
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
	return s, nil
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
	var raws []json.RawMessage
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, notSnapshot("is not JSON (" + err.Error() + ")")
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, notSnapshot("is not JSON (" + err.Error() + ")")
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 {
		return nil, notSnapshot("holds no page of account authorization details")
	}
	pages := make([]page, len(raws))
	for i, raw := range raws {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			return nil, notSnapshot(fmt.Sprintf("%sis not an object with UserDetailList, GroupDetailList, RoleDetailList and Policies", pagePath(i, len(raws))))
		}
		if !hasAny(keys, "UserDetailList", "GroupDetailList", "RoleDetailList", "Policies") {
			what := "has none of the keys UserDetailList, GroupDetailList, RoleDetailList and Policies"
			switch {
			case hasAny(keys, "Statement", "Version"):
				what = "is a policy document, not an account's authorization details"
			case hasAny(keys, "apiVersion", "kind"):
				what = "is a Kubernetes manifest, not an account's authorization details"
			}
			return nil, notSnapshot(pagePath(i, len(raws)) + what)
		}
		if err := json.Unmarshal(raw, &pages[i]); err != nil {
			return nil, &inputerr.Error{Source: source, Field: strings.TrimSuffix(pagePath(i, len(raws)), "."), Msg: "does not have the API's shape (" + err.Error() + "); " + howToProduce}
		}
	}
	return pages, nil
}

func hasAny(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func (s *Snapshot) add(p page, at string) error {
	if p.Policies != nil {
		for i, d := range *p.Policies {
			path := fmt.Sprintf("%sPolicies[%d]", at, i)
			var doc json.RawMessage
			for _, v := range d.PolicyVersionList {
				if v.IsDefaultVersion || (doc == nil && v.VersionId == d.DefaultVersionId) {
					doc = v.Document
				}
			}
			if doc == nil {
				return &inputerr.Error{Source: s.Source, Field: path, Msg: fmt.Sprintf("managed policy %s has no default version in PolicyVersionList; produce the file with `aws iam get-account-authorization-details` without a --filter", d.Arn)}
			}
			parsed, err := s.document(doc, policy.Identity, path+".PolicyVersionList")
			if err != nil {
				return err
			}
			s.Policies[d.Arn] = &ManagedPolicy{Name: d.PolicyName, ARN: d.Arn, Document: parsed}
		}
	}
	if p.GroupDetailList != nil {
		for i, d := range *p.GroupDetailList {
			path := fmt.Sprintf("%sGroupDetailList[%d]", at, i)
			g := &Group{Name: d.GroupName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies)}
			var err error
			if g.Inline, err = s.inline(d.GroupPolicyList, path+".GroupPolicyList"); err != nil {
				return err
			}
			s.Groups[g.Name] = g
		}
	}
	if p.UserDetailList != nil {
		for i, d := range *p.UserDetailList {
			path := fmt.Sprintf("%sUserDetailList[%d]", at, i)
			if d.Arn == "" {
				return &inputerr.Error{Source: s.Source, Field: path + ".Arn", Msg: "missing; each user needs its ARN; " + howToProduce}
			}
			u := User{Name: d.UserName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies), Groups: d.GroupList, Boundary: boundaryARN(d.PermissionsBoundary)}
			var err error
			if u.Inline, err = s.inline(d.UserPolicyList, path+".UserPolicyList"); err != nil {
				return err
			}
			s.Users = append(s.Users, u)
		}
	}
	if p.RoleDetailList != nil {
		for i, d := range *p.RoleDetailList {
			path := fmt.Sprintf("%sRoleDetailList[%d]", at, i)
			if d.Arn == "" {
				return &inputerr.Error{Source: s.Source, Field: path + ".Arn", Msg: "missing; each role needs its ARN; " + howToProduce}
			}
			r := Role{Name: d.RoleName, ARN: d.Arn, Attached: attachedARNs(d.AttachedManagedPolicies), Boundary: boundaryARN(d.PermissionsBoundary)}
			var err error
			if len(d.AssumeRolePolicyDocument) > 0 && string(d.AssumeRolePolicyDocument) != "null" {
				if r.Trust, err = s.document(d.AssumeRolePolicyDocument, policy.Trust, path+".AssumeRolePolicyDocument"); err != nil {
					return err
				}
			}
			if r.Inline, err = s.inline(d.RolePolicyList, path+".RolePolicyList"); err != nil {
				return err
			}
			s.Roles = append(s.Roles, r)
		}
	}
	return nil
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
		dec, err := url.PathUnescape(enc)
		if err != nil {
			return nil, &inputerr.Error{Source: s.Source, Field: path, Msg: "a string document must be URL-encoded JSON, as IAM returns it: " + err.Error()}
		}
		data = []byte(dec)
	}
	doc, err := policy.Parse(data, kind)
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
