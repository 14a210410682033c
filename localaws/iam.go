package localaws

import (
	"strconv"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// iamOperations are the IAM actions leash local serves.
func iamOperations() map[string]operation {
	ops := map[string]operation{}
	iamUserOperations(ops)
	iamGroupOperations(ops)
	iamAccessKeyOperations(ops)
	iamLoginProfileOperations(ops)
	iamRoleOperations(ops)
	iamPolicyOperations(ops)
	iamAttachmentOperations(ops)
	iamOIDCOperations(ops)
	iamSimulateOperations(ops)
	iamAccountDetailsOperations(ops)
	iamAccountSummaryOperations(ops)
	iamInstanceProfileOperations(ops)
	iamUserReadOperations(ops)
	return ops
}

// The accessors below read parameters as the query package does, and turn
// its *query.Error into an error only when there is one: a nil *query.Error
// stored in an error is not a nil error.

// list is a list parameter (Name.member.N), nil when absent.
func (c *call) list(name string) ([]string, error) {
	l, qerr := c.q.List(name)
	if qerr != nil {
		return nil, qerr
	}
	return l, nil
}

// requiredPair reads two required parameters, such as a user's name and
// a policy's ARN.
func (c *call) requiredPair(first, second string) (string, string, error) {
	a, err := c.required(first)
	if err != nil {
		return "", "", err
	}
	b, err := c.required(second)
	if err != nil {
		return "", "", err
	}
	return a, b, nil
}

// requiredList is a list parameter that must be sent with one member at
// least.
func (c *call) requiredList(name string) ([]string, error) {
	l, err := c.list(name)
	switch {
	case err != nil:
		return nil, err
	case l == nil:
		return nil, c.q.Invalid(name, "Member must not be null")
	case len(l) == 0:
		return nil, c.q.Invalid(name, "Member must have length greater than or equal to 1")
	}
	return l, nil
}

// pathPrefix is a List operation's PathPrefix, "" when absent. IAM's model
// gives it a length of 1 to 512 and a pattern that differs by operation
// (kind); a value that breaks either is IAM's ValidationError, before
// anything is listed.
func (c *call) pathPrefix(kind store.PathPrefixKind) (string, error) {
	prefix, sent := c.q.String("PathPrefix")
	if sent && prefix == "" {
		return "", c.q.Invalid("PathPrefix", "Member must have length greater than or equal to 1")
	}
	if err := store.CheckPathPrefix(prefix, kind); err != nil {
		return "", err
	}
	return prefix, nil
}

// tags is a Tags parameter, nil when absent.
func (c *call) tags(name string) ([]query.Tag, error) {
	t, qerr := c.q.Tags(name)
	if qerr != nil {
		return nil, qerr
	}
	return t, nil
}

// flag is a boolean parameter, false when absent.
func (c *call) flag(name string) (bool, error) {
	b, _, qerr := c.q.Bool(name)
	if qerr != nil {
		return false, qerr
	}
	return b, nil
}

// document is a required policy document parameter that parses as a
// policy of the given kind. A document that does not is
// MalformedPolicyDocument, with the engine's message: the JSON path of the
// problem and what is wrong there.
func (c *call) document(name string, kind policy.Kind) (string, error) {
	doc, err := c.required(name)
	if err != nil {
		return "", err
	}
	if qerr := checkDocumentLength(name, doc, maxDocumentLength); qerr != nil {
		return "", qerr
	}
	if err := checkDocument(doc, kind); err != nil {
		return "", err
	}
	return doc, nil
}

// checkDocument parses a policy document given to an operation.
func checkDocument(doc string, kind policy.Kind) error {
	if _, err := policy.Parse([]byte(doc), kind); err != nil {
		return query.MalformedPolicyDocument(err.Error())
	}
	return nil
}

// pageOf reads Marker and MaxItems.
func pageOf(c *call) (store.Page, error) {
	max, _, qerr := c.q.Int("MaxItems", 1, 1000)
	if qerr != nil {
		return store.Page{}, qerr
	}
	return store.Page{Marker: c.param("Marker"), MaxItems: max}, nil
}

// defaultMaxItems is IAM's page size when MaxItems is not sent.
const defaultMaxItems = 100

// paged returns the page of items that Marker and MaxItems select, for the
// lists IAM pages but the store returns whole (a user's inline policies, a
// policy's versions). Its marker is the index of the next item; "" on the
// last page.
func paged[T any](c *call, items []T) ([]T, string, error) {
	page, err := pageOf(c)
	if err != nil {
		return nil, "", err
	}
	start := 0
	if page.Marker != "" {
		start, err = strconv.Atoi(page.Marker)
		if err != nil || start < 1 || start > len(items) {
			return nil, "", query.InvalidInput("Invalid Marker.")
		}
	}
	limit := page.MaxItems
	if limit == 0 {
		limit = defaultMaxItems
	}
	end := min(start+limit, len(items))
	marker := ""
	if end < len(items) {
		marker = strconv.Itoa(end)
	}
	return items[start:end], marker, nil
}

// tagsOf is a result's Tags.
func tagsOf(ts store.Tags) query.OptionalList[query.Tag] {
	out := make(query.OptionalList[query.Tag], len(ts))
	for i, t := range ts {
		out[i] = query.Tag{Key: t.Key, Value: t.Value}
	}
	return out
}

func storeTags(ts []query.Tag) store.Tags {
	out := make(store.Tags, len(ts))
	for i, t := range ts {
		out[i] = store.Tag{Key: t.Key, Value: t.Value}
	}
	return out
}

// listNamesResult is the result of ListUserPolicies and ListRolePolicies.
type listNamesResult struct {
	PolicyNames []string `xml:"PolicyNames>member"`
	IsTruncated bool     `xml:"IsTruncated"`
	Marker      string   `xml:"Marker,omitempty"`
}

// listInlinePolicies pages the names of a user's or role's inline policies.
func listInlinePolicies(c *call, perms store.Permissions) (any, error) {
	names := make([]string, len(perms.InlinePolicies))
	for i, ip := range perms.InlinePolicies {
		names[i] = ip.Name
	}
	page, marker, err := paged(c, names)
	if err != nil {
		return nil, err
	}
	return listNamesResult{PolicyNames: append([]string{}, page...), IsTruncated: marker != "", Marker: marker}, nil
}

// boundaryShape is IAM's AttachedPermissionsBoundary.
type boundaryShape struct {
	PermissionsBoundaryType string `xml:"PermissionsBoundaryType"`
	PermissionsBoundaryArn  string `xml:"PermissionsBoundaryArn"`
}

func boundaryOf(arn string) *boundaryShape {
	if arn == "" {
		return nil
	}
	return &boundaryShape{PermissionsBoundaryType: "PermissionsBoundaryPolicy", PermissionsBoundaryArn: arn}
}
