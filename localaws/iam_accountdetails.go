package localaws

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// The entity types of the Filter parameter.
const (
	filterUser        = "User"
	filterRole        = "Role"
	filterGroup       = "Group"
	filterLocalPolicy = "LocalManagedPolicy"
	filterAWSPolicy   = "AWSManagedPolicy"
)

var accountDetailsFilters = []string{filterUser, filterRole, filterGroup, filterLocalPolicy, filterAWSPolicy}

type inlinePolicyShape struct {
	PolicyName     string `xml:"PolicyName"`
	PolicyDocument string `xml:"PolicyDocument"`
}

// userDetailShape is IAM's UserDetail.
type userDetailShape struct {
	Path                    string                        `xml:"Path"`
	UserName                string                        `xml:"UserName"`
	UserID                  string                        `xml:"UserId"`
	Arn                     string                        `xml:"Arn"`
	CreateDate              query.Timestamp               `xml:"CreateDate"`
	UserPolicyList          []inlinePolicyShape           `xml:"UserPolicyList>member"`
	GroupList               []string                      `xml:"GroupList>member"`
	AttachedManagedPolicies []attachedPolicyShape         `xml:"AttachedManagedPolicies>member"`
	PermissionsBoundary     *boundaryShape                `xml:"PermissionsBoundary,omitempty"`
	Tags                    query.OptionalList[query.Tag] `xml:"Tags"`
}

// groupDetailShape is IAM's GroupDetail.
type groupDetailShape struct {
	Path                    string                `xml:"Path"`
	GroupName               string                `xml:"GroupName"`
	GroupID                 string                `xml:"GroupId"`
	Arn                     string                `xml:"Arn"`
	CreateDate              query.Timestamp       `xml:"CreateDate"`
	GroupPolicyList         []inlinePolicyShape   `xml:"GroupPolicyList>member"`
	AttachedManagedPolicies []attachedPolicyShape `xml:"AttachedManagedPolicies>member"`
}

// roleDetailShape is IAM's RoleDetail, with the instance profiles that
// hold the role. leash local does not track RoleLastUsed, so it is left out.
type roleDetailShape struct {
	Path                     string                        `xml:"Path"`
	RoleName                 string                        `xml:"RoleName"`
	RoleID                   string                        `xml:"RoleId"`
	Arn                      string                        `xml:"Arn"`
	CreateDate               query.Timestamp               `xml:"CreateDate"`
	AssumeRolePolicyDocument string                        `xml:"AssumeRolePolicyDocument"`
	InstanceProfileList      []instanceProfileShape        `xml:"InstanceProfileList>member"`
	RolePolicyList           []inlinePolicyShape           `xml:"RolePolicyList>member"`
	AttachedManagedPolicies  []attachedPolicyShape         `xml:"AttachedManagedPolicies>member"`
	PermissionsBoundary      *boundaryShape                `xml:"PermissionsBoundary,omitempty"`
	Tags                     query.OptionalList[query.Tag] `xml:"Tags"`
}

// managedPolicyDetailShape is IAM's ManagedPolicyDetail: the policy with
// every version's document.
type managedPolicyDetailShape struct {
	PolicyName                    string               `xml:"PolicyName"`
	PolicyID                      string               `xml:"PolicyId"`
	Arn                           string               `xml:"Arn"`
	Path                          string               `xml:"Path"`
	DefaultVersionID              string               `xml:"DefaultVersionId"`
	AttachmentCount               int                  `xml:"AttachmentCount"`
	PermissionsBoundaryUsageCount int                  `xml:"PermissionsBoundaryUsageCount"`
	IsAttachable                  bool                 `xml:"IsAttachable"`
	Description                   string               `xml:"Description,omitempty"`
	CreateDate                    query.Timestamp      `xml:"CreateDate"`
	UpdateDate                    query.Timestamp      `xml:"UpdateDate"`
	PolicyVersionList             []policyVersionShape `xml:"PolicyVersionList>member"`
}

type accountDetailsResult struct {
	UserDetailList  []userDetailShape          `xml:"UserDetailList>member"`
	GroupDetailList []groupDetailShape         `xml:"GroupDetailList>member"`
	RoleDetailList  []roleDetailShape          `xml:"RoleDetailList>member"`
	Policies        []managedPolicyDetailShape `xml:"Policies>member"`
	IsTruncated     bool                       `xml:"IsTruncated"`
	Marker          string                     `xml:"Marker,omitempty"`
}

// accountItem is one entity of the snapshot; exactly one field is set.
type accountItem struct {
	user   *store.User
	group  *store.Group
	role   *store.Role
	policy *store.ManagedPolicy
}

// iamAccountDetailsOperations adds GetAccountAuthorizationDetails: the
// account's users, groups, roles and managed policies with every document,
// URL-encoded as IAM returns them, the snapshot that account-wide
// questions (who can do this?) are asked of. Paging counts items across
// the four lists, in that order, as IAM does: a page of MaxItems may end
// among the users and the next start there.
func iamAccountDetailsOperations(ops map[string]operation) {
	ops["GetAccountAuthorizationDetails"] = operation{
		readOnly: true,
		// The action has no resource types: only Resource "*" grants it.
		target: func(*call) (target, error) { return target{resource: "*"}, nil },
		run: func(c *call) (any, error) {
			filter, err := accountDetailsFilter(c)
			if err != nil {
				return nil, err
			}
			items, err := accountItems(c.tx, filter)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, items)
			if err != nil {
				return nil, err
			}
			out := accountDetailsResult{
				UserDetailList: []userDetailShape{}, GroupDetailList: []groupDetailShape{},
				RoleDetailList: []roleDetailShape{}, Policies: []managedPolicyDetailShape{},
				IsTruncated: marker != "", Marker: marker,
			}
			for _, it := range page {
				switch {
				case it.user != nil:
					d, err := userDetailOf(c.tx, *it.user)
					if err != nil {
						return nil, err
					}
					out.UserDetailList = append(out.UserDetailList, d)
				case it.group != nil:
					out.GroupDetailList = append(out.GroupDetailList, groupDetailOf(*it.group))
				case it.role != nil:
					d, err := roleDetailOf(c.tx, *it.role)
					if err != nil {
						return nil, err
					}
					out.RoleDetailList = append(out.RoleDetailList, d)
				default:
					d, err := managedPolicyDetailOf(c.tx, *it.policy)
					if err != nil {
						return nil, err
					}
					out.Policies = append(out.Policies, d)
				}
			}
			return out, nil
		},
	}
}

// accountDetailsFilter is the set of entity types Filter.member.N asks
// for; no filter asks for all of them.
func accountDetailsFilter(c *call) (map[string]bool, error) {
	l, err := c.list("Filter")
	if err != nil {
		return nil, err
	}
	if len(l) == 0 {
		l = accountDetailsFilters
	}
	out := map[string]bool{}
	for _, f := range l {
		if !slices.Contains(accountDetailsFilters, f) {
			return nil, query.ValidationError("1 validation error detected: Value '[" + strings.Join(l, ", ") +
				"]' at 'filter' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [" +
				strings.Join(accountDetailsFilters, ", ") + "]]")
		}
		out[f] = true
	}
	return out, nil
}

// accountItems lists the entities the filter selects: users, then groups,
// roles and managed policies, each by name.
func accountItems(tx *store.Tx, filter map[string]bool) ([]accountItem, error) {
	var items []accountItem
	if filter[filterUser] {
		users, err := allPages(func(p store.Page) (store.Listing[store.User], error) { return tx.ListUsers("", p) })
		if err != nil {
			return nil, err
		}
		for i := range users {
			items = append(items, accountItem{user: &users[i]})
		}
	}
	if filter[filterGroup] {
		groups, err := allPages(func(p store.Page) (store.Listing[store.Group], error) { return tx.ListGroups("", p) })
		if err != nil {
			return nil, err
		}
		for i := range groups {
			items = append(items, accountItem{group: &groups[i]})
		}
	}
	if filter[filterRole] {
		roles, err := allPages(func(p store.Page) (store.Listing[store.Role], error) { return tx.ListRoles("", p) })
		if err != nil {
			return nil, err
		}
		for i := range roles {
			items = append(items, accountItem{role: &roles[i]})
		}
	}
	var policies []store.ManagedPolicy
	if filter[filterLocalPolicy] {
		local, err := managedPolicies(tx, "Local", "", false)
		if err != nil {
			return nil, err
		}
		policies = append(policies, local...)
	}
	if filter[filterAWSPolicy] {
		inUse, err := awsPoliciesInUse(tx)
		if err != nil {
			return nil, err
		}
		policies = append(policies, inUse...)
	}
	slices.SortStableFunc(policies, func(a, b store.ManagedPolicy) int {
		return cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	for i := range policies {
		items = append(items, accountItem{policy: &policies[i]})
	}
	return items, nil
}

// awsPoliciesInUse are the AWS managed policies attached to a user, group
// or role or bounding a user or role: IAM lists the AWS managed policies an
// account uses, not the thousand it could, and a policy used only as a
// boundary is kept so that every boundary a principal names can be read
// from the snapshot. They are found from the principals, so the cost grows
// with the policies in use and not with the whole AWS managed set.
func awsPoliciesInUse(tx *store.Tx) ([]store.ManagedPolicy, error) {
	use, err := awsManagedUse(tx)
	if err != nil {
		return nil, err
	}
	var out []store.ManagedPolicy
	for _, arn := range slices.Sorted(maps.Keys(use)) {
		p, err := awsManagedPolicy(arn)
		if err != nil {
			return nil, err
		}
		out = append(out, awsManagedOf(p, use[arn]))
	}
	return out, nil
}

// allPages reads every page of a store listing.
func allPages[T any](list func(store.Page) (store.Listing[T], error)) ([]T, error) {
	var out []T
	for page := (store.Page{MaxItems: 1000}); ; {
		l, err := list(page)
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if page.Marker = l.Marker; page.Marker == "" {
			return out, nil
		}
	}
}

func inlineDetailsOf(l []store.InlinePolicy) []inlinePolicyShape {
	out := []inlinePolicyShape{}
	for _, ip := range l {
		out = append(out, inlinePolicyShape{PolicyName: ip.Name, PolicyDocument: query.PolicyDocument(ip.Document)})
	}
	return out
}

func attachedDetailsOf(arns []string) []attachedPolicyShape {
	out := []attachedPolicyShape{}
	for _, arn := range arns {
		_, _, name, _ := store.PolicyARNParts(arn)
		out = append(out, attachedPolicyShape{PolicyName: name, PolicyArn: arn})
	}
	return out
}

// userDetailOf is a user's detail, with the names of the groups it is in.
func userDetailOf(tx *store.Tx, u store.User) (userDetailShape, error) {
	groups, err := tx.UserGroups(u.Name)
	if err != nil {
		return userDetailShape{}, err
	}
	names := []string{}
	for _, g := range groups {
		names = append(names, g.Name)
	}
	return userDetailShape{
		Path: u.Path, UserName: u.Name, UserID: u.UserID, Arn: u.ARN, CreateDate: query.Timestamp(u.CreateDate),
		UserPolicyList: inlineDetailsOf(u.InlinePolicies), GroupList: names,
		AttachedManagedPolicies: attachedDetailsOf(u.AttachedPolicies),
		PermissionsBoundary:     boundaryOf(u.PermissionsBoundary), Tags: tagsOf(u.Tags),
	}, nil
}

func groupDetailOf(g store.Group) groupDetailShape {
	return groupDetailShape{
		Path: g.Path, GroupName: g.Name, GroupID: g.GroupID, Arn: g.ARN, CreateDate: query.Timestamp(g.CreateDate),
		GroupPolicyList:         inlineDetailsOf(g.InlinePolicies),
		AttachedManagedPolicies: attachedDetailsOf(g.AttachedPolicies),
	}
}

func roleDetailOf(tx *store.Tx, r store.Role) (roleDetailShape, error) {
	profiles, err := tx.ListInstanceProfilesForRole(r.Name)
	if err != nil {
		return roleDetailShape{}, err
	}
	shown, err := instanceProfilesOf(tx, profiles)
	if err != nil {
		return roleDetailShape{}, err
	}
	return roleDetailShape{
		Path: r.Path, RoleName: r.Name, RoleID: r.RoleID, Arn: r.ARN, CreateDate: query.Timestamp(r.CreateDate),
		AssumeRolePolicyDocument: query.PolicyDocument(r.AssumeRolePolicyDocument),
		InstanceProfileList:      shown, RolePolicyList: inlineDetailsOf(r.InlinePolicies),
		AttachedManagedPolicies: attachedDetailsOf(r.AttachedPolicies),
		PermissionsBoundary:     boundaryOf(r.PermissionsBoundary), Tags: tagsOf(r.Tags),
	}, nil
}

func managedPolicyDetailOf(tx *store.Tx, p store.ManagedPolicy) (managedPolicyDetailShape, error) {
	versions, err := policyVersions(tx, p.ARN)
	if err != nil {
		return managedPolicyDetailShape{}, err
	}
	s := managedPolicyDetailShape{
		PolicyName: p.Name, PolicyID: p.PolicyID, Arn: p.ARN, Path: p.Path, DefaultVersionID: p.DefaultVersionID,
		AttachmentCount: p.AttachmentCount, PermissionsBoundaryUsageCount: p.PermissionsBoundaryUsageCount,
		IsAttachable: true, Description: p.Description,
		CreateDate: query.Timestamp(p.CreateDate), UpdateDate: query.Timestamp(p.UpdateDate),
		PolicyVersionList: []policyVersionShape{},
	}
	for _, v := range versions {
		s.PolicyVersionList = append(s.PolicyVersionList, policyVersionOf(v, true))
	}
	return s, nil
}
