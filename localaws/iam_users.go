package localaws

import (
	"leash.dev/leash/localaws/query"
	"leash.dev/leash/localaws/store"
	"leash.dev/leash/policy"
)

// userShape is IAM's User in results.
type userShape struct {
	Path                string                        `xml:"Path"`
	UserName            string                        `xml:"UserName"`
	UserID              string                        `xml:"UserId"`
	Arn                 string                        `xml:"Arn"`
	CreateDate          query.Timestamp               `xml:"CreateDate"`
	PermissionsBoundary *boundaryShape                `xml:"PermissionsBoundary,omitempty"`
	Tags                query.OptionalList[query.Tag] `xml:"Tags"`
}

type boundaryShape struct {
	PermissionsBoundaryType string `xml:"PermissionsBoundaryType"`
	PermissionsBoundaryArn  string `xml:"PermissionsBoundaryArn"`
}

func userOf(u store.User, withTags bool) userShape {
	s := userShape{Path: u.Path, UserName: u.Name, UserID: u.UserID, Arn: u.ARN, CreateDate: query.Timestamp(u.CreateDate)}
	if u.PermissionsBoundary != "" {
		s.PermissionsBoundary = &boundaryShape{PermissionsBoundaryType: "PermissionsBoundaryPolicy", PermissionsBoundaryArn: u.PermissionsBoundary}
	}
	if withTags {
		s.Tags = tagsOf(u.Tags)
	}
	return s
}

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

// userTarget authorizes against the user named by UserName, or the caller
// itself when the parameter is absent (as IAM does for GetUser and
// ListAccessKeys).
func userTarget(c *call) (target, error) {
	name := c.param("UserName")
	if name == "" {
		return target{resource: c.caller.ARN}, nil
	}
	return target{resource: c.userARN(name)}, nil
}

// userARN is the ARN of an existing user (with its path), or of a user by
// that name at the root path when there is none.
func (c *call) userARN(name string) string {
	if u, err := c.tx.GetUser(name); err == nil {
		return u.ARN
	}
	return c.arn("user/" + name)
}

// userName is the UserName parameter, or the calling user's own name.
func (c *call) userNameParam() (string, error) {
	if name := c.param("UserName"); name != "" {
		return name, nil
	}
	if c.userName == "" {
		return "", query.ValidationError("UserName is required when the caller is not an IAM user")
	}
	return c.userName, nil
}

// tagKeys are the request-tag condition keys of an action that tags.
func tagKeys(tags []query.Tag, extra map[string][]string) map[string][]string {
	keys := extra
	if keys == nil {
		keys = map[string][]string{}
	}
	if len(tags) == 0 {
		return keys
	}
	names := make([]string, len(tags))
	for i, t := range tags {
		keys["aws:RequestTag/"+t.Key] = []string{t.Value}
		names[i] = t.Key
	}
	keys["aws:TagKeys"] = names
	return keys
}

func iamUserOperations(ops map[string]operation) {
	ops["CreateUser"] = operation{
		target: func(c *call) (target, error) {
			tags, err := c.q.Tags("Tags")
			if err != nil {
				return target{}, err
			}
			var extra map[string][]string
			if b := c.param("PermissionsBoundary"); b != "" {
				extra = map[string][]string{"iam:PermissionsBoundary": {b}}
			}
			return target{resource: c.arn("user/" + pathName(c.param("Path"), c.param("UserName"))), keys: tagKeys(tags, extra)}, nil
		},
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			tags, qerr := c.q.Tags("Tags")
			if qerr != nil {
				return nil, qerr
			}
			u := store.User{Name: name, Path: c.param("Path"), Tags: storeTags(tags)}
			u.PermissionsBoundary = c.param("PermissionsBoundary")
			u, err = c.tx.CreateUser(u)
			if err != nil {
				return nil, err
			}
			return struct {
				User userShape `xml:"User"`
			}{userOf(u, true)}, nil
		},
	}
	ops["GetUser"] = operation{
		readOnly: true,
		target:   userTarget,
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			u, err := c.tx.GetUser(name)
			if err != nil {
				return nil, err
			}
			return struct {
				User userShape `xml:"User"`
			}{userOf(u, true)}, nil
		},
	}
	ops["ListUsers"] = operation{
		readOnly: true,
		target:   func(c *call) (target, error) { return target{resource: c.arn("user/")}, nil },
		run: func(c *call) (any, error) {
			page, err := pageOf(c)
			if err != nil {
				return nil, err
			}
			l, err := c.tx.ListUsers(c.param("PathPrefix"), page)
			if err != nil {
				return nil, err
			}
			out := struct {
				Users       []userShape `xml:"Users>member"`
				IsTruncated bool        `xml:"IsTruncated"`
				Marker      string      `xml:"Marker,omitempty"`
			}{Users: []userShape{}, IsTruncated: l.Marker != "", Marker: l.Marker}
			for _, u := range l.Items {
				out.Users = append(out.Users, userOf(u, false))
			}
			return out, nil
		},
	}
	ops["DeleteUser"] = operation{
		target: userTarget,
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteUser(name)
		},
	}
	ops["PutUserPolicy"] = operation{
		target: userTarget,
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			policyName, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			doc, err := c.required("PolicyDocument")
			if err != nil {
				return nil, err
			}
			if _, err := policy.Parse([]byte(doc), policy.Identity); err != nil {
				return nil, query.MalformedPolicyDocument(err.Error())
			}
			_, err = c.tx.PutUserPolicy(name, policyName, doc)
			return nil, err
		},
	}
	ops["GetUserPolicy"] = operation{
		readOnly: true,
		target:   userTarget,
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			policyName, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetUserPolicy(name, policyName)
			if err != nil {
				return nil, err
			}
			return struct {
				UserName       string `xml:"UserName"`
				PolicyName     string `xml:"PolicyName"`
				PolicyDocument string `xml:"PolicyDocument"`
			}{name, p.Name, query.PolicyDocument(p.Document)}, nil
		},
	}
}

// pageOf reads Marker and MaxItems.
func pageOf(c *call) (store.Page, error) {
	max, _, qerr := c.q.Int("MaxItems", 1, 1000)
	if qerr != nil {
		return store.Page{}, qerr
	}
	return store.Page{Marker: c.param("Marker"), MaxItems: max}, nil
}
