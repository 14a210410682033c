package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// Instance profiles, as the IAM API reference has them
// (https://docs.aws.amazon.com/IAM/latest/APIReference/API_InstanceProfile.html,
// API_AddRoleToInstanceProfile.html and the pages of the other actions).
// leash local has no EC2: a profile is kept, listed and deleted as IAM does,
// and Terraform and other tools that read a role's profiles before deleting
// it find them, but no instance ever receives the role's credentials.

// profileRoleShape is a role inside an InstanceProfile, with the fields IAM
// shows there: the trust policy URL-encoded, and no description, maximum
// session duration, boundary or tags.
type profileRoleShape struct {
	Path                     string          `xml:"Path"`
	RoleName                 string          `xml:"RoleName"`
	RoleID                   string          `xml:"RoleId"`
	Arn                      string          `xml:"Arn"`
	CreateDate               query.Timestamp `xml:"CreateDate"`
	AssumeRolePolicyDocument string          `xml:"AssumeRolePolicyDocument"`
}

// instanceProfileShape is IAM's InstanceProfile.
type instanceProfileShape struct {
	Path                string                        `xml:"Path"`
	InstanceProfileName string                        `xml:"InstanceProfileName"`
	InstanceProfileID   string                        `xml:"InstanceProfileId"`
	Arn                 string                        `xml:"Arn"`
	CreateDate          query.Timestamp               `xml:"CreateDate"`
	Roles               []profileRoleShape            `xml:"Roles>member"`
	Tags                query.OptionalList[query.Tag] `xml:"Tags"`
}

// instanceProfileOf is a profile as results show it, with its role read
// from the store; the list operations leave out the tags, as IAM does.
func instanceProfileOf(tx *store.Tx, p store.InstanceProfile, full bool) (instanceProfileShape, error) {
	s := instanceProfileShape{
		Path: p.Path, InstanceProfileName: p.Name, InstanceProfileID: p.InstanceProfileID, Arn: p.ARN,
		CreateDate: query.Timestamp(p.CreateDate), Roles: []profileRoleShape{},
	}
	for _, name := range p.RoleNames {
		r, err := tx.GetRole(name)
		if err != nil {
			return instanceProfileShape{}, err
		}
		s.Roles = append(s.Roles, profileRoleShape{
			Path: r.Path, RoleName: r.Name, RoleID: r.RoleID, Arn: r.ARN, CreateDate: query.Timestamp(r.CreateDate),
			AssumeRolePolicyDocument: query.PolicyDocument(r.AssumeRolePolicyDocument),
		})
	}
	if full {
		s.Tags = tagsOf(p.Tags)
	}
	return s, nil
}

// instanceProfilesOf shows a page of profiles, for the list operations.
func instanceProfilesOf(tx *store.Tx, ps []store.InstanceProfile) ([]instanceProfileShape, error) {
	out := []instanceProfileShape{}
	for _, p := range ps {
		s, err := instanceProfileOf(tx, p, false)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

type instanceProfileResult struct {
	InstanceProfile instanceProfileShape `xml:"InstanceProfile"`
}

type instanceProfilesResult struct {
	InstanceProfiles []instanceProfileShape `xml:"InstanceProfiles>member"`
	IsTruncated      bool                   `xml:"IsTruncated"`
	Marker           string                 `xml:"Marker,omitempty"`
}

const instanceProfileParam = "InstanceProfileName"

// instanceProfileSubject is the profile of that name, or a profile by that
// name at the root path when there is none.
func (c *call) instanceProfileSubject(name string) subject {
	p, err := c.tx.GetInstanceProfile(name)
	if err != nil {
		return subject{arn: c.arn("instance-profile/" + name)}
	}
	return subject{arn: p.ARN, tags: p.Tags}
}

// onInstanceProfile authorizes against the profile named by the required
// InstanceProfileName.
func onInstanceProfile(extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		name, err := c.required(instanceProfileParam)
		if err != nil {
			return target{}, err
		}
		return c.instanceProfileSubject(name).target(c, extra)
	}
}

var instanceProfileTags = taggedKind{noun: "InstanceProfile", param: instanceProfileParam, on: onInstanceProfile,
	store: store.TaggedInstanceProfile,
	tags: func(tx *store.Tx, name string) (store.Tags, error) {
		p, err := tx.GetInstanceProfile(name)
		return p.Tags, err
	}}

func iamInstanceProfileOperations(ops map[string]operation) {
	ops["CreateInstanceProfile"] = operation{
		target: func(c *call) (target, error) {
			name, err := c.required(instanceProfileParam)
			if err != nil {
				return target{}, err
			}
			s := subject{arn: c.arn("instance-profile/" + pathName(c.param("Path"), name))}
			return s.target(c, []keysFunc{requestTags})
		},
		run: func(c *call) (any, error) {
			name, err := c.required(instanceProfileParam)
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.CreateInstanceProfile(store.InstanceProfile{Name: name, Path: c.param("Path"), Tags: storeTags(tags)})
			if err != nil {
				return nil, err
			}
			s, err := instanceProfileOf(c.tx, p, true)
			return instanceProfileResult{s}, err
		},
	}
	ops["GetInstanceProfile"] = operation{
		readOnly: true,
		target:   onInstanceProfile(),
		run: func(c *call) (any, error) {
			name, err := c.required(instanceProfileParam)
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetInstanceProfile(name)
			if err != nil {
				return nil, err
			}
			s, err := instanceProfileOf(c.tx, p, true)
			return instanceProfileResult{s}, err
		},
	}
	ops["ListInstanceProfiles"] = operation{
		readOnly: true,
		target:   func(c *call) (target, error) { return target{resource: c.arn("instance-profile/")}, nil },
		run: func(c *call) (any, error) {
			page, err := pageOf(c)
			if err != nil {
				return nil, err
			}
			prefix, err := c.pathPrefix(store.AnyPathPrefix)
			if err != nil {
				return nil, err
			}
			l, err := c.tx.ListInstanceProfiles(prefix, page)
			if err != nil {
				return nil, err
			}
			shown, err := instanceProfilesOf(c.tx, l.Items)
			return instanceProfilesResult{InstanceProfiles: shown, IsTruncated: l.Marker != "", Marker: l.Marker}, err
		},
	}
	ops["ListInstanceProfilesForRole"] = operation{
		readOnly: true,
		target:   onRole(),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			all, err := c.tx.ListInstanceProfilesForRole(name)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, all)
			if err != nil {
				return nil, err
			}
			shown, err := instanceProfilesOf(c.tx, page)
			return instanceProfilesResult{InstanceProfiles: shown, IsTruncated: marker != "", Marker: marker}, err
		},
	}
	ops["DeleteInstanceProfile"] = operation{
		target: onInstanceProfile(),
		run: func(c *call) (any, error) {
			name, err := c.required(instanceProfileParam)
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteInstanceProfile(name)
		},
	}
	ops["AddRoleToInstanceProfile"] = operation{
		target: onInstanceProfile(),
		run: func(c *call) (any, error) {
			profile, role, err := c.requiredPair(instanceProfileParam, "RoleName")
			if err != nil {
				return nil, err
			}
			// "The caller of this operation must be granted the PassRole
			// permission on the IAM role" (API_AddRoleToInstanceProfile).
			if c.accessKeyID != "" {
				t, err := c.roleSubject(role).target(c, []keysFunc{passedToInstances})
				if err != nil {
					return nil, err
				}
				if err := c.srv.authorizeAction(c, "iam:PassRole", t); err != nil {
					return nil, err
				}
			}
			_, err = c.tx.AddRoleToInstanceProfile(profile, role)
			return nil, err
		},
	}
	ops["RemoveRoleFromInstanceProfile"] = operation{
		target: onInstanceProfile(),
		run: func(c *call) (any, error) {
			profile, role, err := c.requiredPair(instanceProfileParam, "RoleName")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.RemoveRoleFromInstanceProfile(profile, role)
			return nil, err
		},
	}
	tagOperations(ops, instanceProfileTags)
}

// passedToInstances are iam:PassRole's condition keys when a role is put in
// an instance profile: the role goes to EC2 (iam:PassedToService), for any
// instance of the caller's account in any region. The IAM API reference
// (API_AddRoleToInstanceProfile.html) says a policy must name that
// iam:AssociatedResourceArn as arn:aws:ec2:*:ACCOUNT:instance/*, so that is
// the value the request carries.
func passedToInstances(c *call, _ subject) (map[string][]string, error) {
	return map[string][]string{
		"iam:PassedToService":       {"ec2.amazonaws.com"},
		"iam:AssociatedResourceArn": {"arn:aws:ec2:*:" + c.tx.Account().ID + ":instance/*"},
	}, nil
}
