package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// roleShape is IAM's Role in results. The trust policy is URL-encoded, as
// IAM returns it. RoleLastUsed is left out: leash local does not track it.
type roleShape struct {
	Path                     string                        `xml:"Path"`
	RoleName                 string                        `xml:"RoleName"`
	RoleID                   string                        `xml:"RoleId"`
	Arn                      string                        `xml:"Arn"`
	CreateDate               query.Timestamp               `xml:"CreateDate"`
	AssumeRolePolicyDocument string                        `xml:"AssumeRolePolicyDocument"`
	Description              string                        `xml:"Description,omitempty"`
	MaxSessionDuration       int                           `xml:"MaxSessionDuration"`
	PermissionsBoundary      *boundaryShape                `xml:"PermissionsBoundary,omitempty"`
	Tags                     query.OptionalList[query.Tag] `xml:"Tags"`
}

// roleOf is a role as results show it; ListRoles leaves out the tags and
// the boundary, as IAM does.
func roleOf(r store.Role, full bool) roleShape {
	s := roleShape{
		Path: r.Path, RoleName: r.Name, RoleID: r.RoleID, Arn: r.ARN, CreateDate: query.Timestamp(r.CreateDate),
		AssumeRolePolicyDocument: query.PolicyDocument(r.AssumeRolePolicyDocument),
		Description:              r.Description, MaxSessionDuration: r.MaxSessionDuration,
	}
	if full {
		s.PermissionsBoundary = boundaryOf(r.PermissionsBoundary)
		s.Tags = tagsOf(r.Tags)
	}
	return s
}

type roleResult struct {
	Role roleShape `xml:"Role"`
}

// maxSessionDuration reads MaxSessionDuration, 0 when absent.
func maxSessionDuration(c *call) (int, error) {
	d, _, qerr := c.q.Int("MaxSessionDuration", store.MinMaxSessionDuration, store.MaxMaxSessionDuration)
	if qerr != nil {
		return 0, qerr
	}
	return d, nil
}

// description reads a Description parameter, nil when absent.
func description(c *call) *string {
	d, ok := c.q.String("Description")
	if !ok {
		return nil
	}
	return &d
}

func iamRoleOperations(ops map[string]operation) {
	ops["CreateRole"] = operation{
		prepare: prepareTrustPolicy("AssumeRolePolicyDocument"),
		target: func(c *call) (target, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return target{}, err
			}
			s := subject{arn: c.arn("role/" + pathName(c.param("Path"), name))}
			return s.target(c, []keysFunc{requestTags, requestedBoundary})
		},
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			trust, err := c.trustPolicy("AssumeRolePolicyDocument")
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			duration, err := maxSessionDuration(c)
			if err != nil {
				return nil, err
			}
			r := store.Role{
				Name: name, Path: c.param("Path"), AssumeRolePolicyDocument: trust,
				Description: c.param("Description"), MaxSessionDuration: duration, Tags: storeTags(tags),
			}
			r.PermissionsBoundary = c.param("PermissionsBoundary")
			r, err = c.tx.CreateRole(r)
			if err != nil {
				return nil, err
			}
			return roleResult{roleOf(r, true)}, nil
		},
	}
	ops["GetRole"] = operation{
		readOnly: true,
		target:   onRole(),
		run: func(c *call) (any, error) {
			r, err := c.requiredRole()
			if err != nil {
				return nil, err
			}
			return roleResult{roleOf(r, true)}, nil
		},
	}
	ops["ListRoles"] = operation{
		readOnly: true,
		target:   func(c *call) (target, error) { return target{resource: c.arn("role/")}, nil },
		run: func(c *call) (any, error) {
			page, err := pageOf(c)
			if err != nil {
				return nil, err
			}
			prefix, err := c.pathPrefix(store.AnyPathPrefix)
			if err != nil {
				return nil, err
			}
			l, err := c.tx.ListRoles(prefix, page)
			if err != nil {
				return nil, err
			}
			out := struct {
				Roles       []roleShape `xml:"Roles>member"`
				IsTruncated bool        `xml:"IsTruncated"`
				Marker      string      `xml:"Marker,omitempty"`
			}{Roles: []roleShape{}, IsTruncated: l.Marker != "", Marker: l.Marker}
			for _, r := range l.Items {
				out.Roles = append(out.Roles, roleOf(r, false))
			}
			return out, nil
		},
	}
	ops["DeleteRole"] = operation{
		target: onRole(),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteRole(name)
		},
	}
	ops["UpdateAssumeRolePolicy"] = operation{
		prepare: prepareTrustPolicy("PolicyDocument"),
		target:  onRole(),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			trust, err := c.trustPolicy("PolicyDocument")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.UpdateAssumeRolePolicy(name, trust)
			return nil, err
		},
	}
	ops["UpdateRole"] = operation{
		target: onRole(),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			duration, err := maxSessionDuration(c)
			if err != nil {
				return nil, err
			}
			if _, err := c.tx.UpdateRole(name, store.RoleUpdate{Description: description(c), MaxSessionDuration: duration}); err != nil {
				return nil, err
			}
			// UpdateRole's output is an empty structure, not nothing: the
			// SDK wants its result element.
			return struct{}{}, nil
		},
	}
	ops["UpdateRoleDescription"] = operation{
		target: onRole(),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			d := description(c)
			if d == nil {
				return nil, c.q.Invalid("Description", "Member must not be null")
			}
			r, err := c.tx.UpdateRole(name, store.RoleUpdate{Description: d})
			if err != nil {
				return nil, err
			}
			return roleResult{roleOf(r, true)}, nil
		},
	}
	tagOperations(ops, roleTags)
	inlinePolicyOperations(ops, roleKind)
	iamRolePolicyOperations(ops)
}

// requiredRole is the role named by the required RoleName.
func (c *call) requiredRole() (store.Role, error) {
	name, err := c.required("RoleName")
	if err != nil {
		return store.Role{}, err
	}
	return c.tx.GetRole(name)
}

// iamRolePolicyOperations adds GetRolePolicy, whose result names the role.
func iamRolePolicyOperations(ops map[string]operation) {
	ops["GetRolePolicy"] = operation{
		readOnly: true,
		target:   onRole(),
		run: func(c *call) (any, error) {
			r, err := c.requiredRole()
			if err != nil {
				return nil, err
			}
			policyName, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetRolePolicy(r.Name, policyName)
			if err != nil {
				return nil, err
			}
			return struct {
				RoleName       string `xml:"RoleName"`
				PolicyName     string `xml:"PolicyName"`
				PolicyDocument string `xml:"PolicyDocument"`
			}{r.Name, p.Name, query.PolicyDocument(p.Document)}, nil
		},
	}
}
