package localaws

import (
	"cmp"
	"crypto/sha256"
	"encoding/base32"
	"slices"
	"strings"
	"time"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// policyShape is IAM's Policy in results. ListPolicies leaves out the
// description and the tags, as IAM does.
type policyShape struct {
	PolicyName                    string                        `xml:"PolicyName"`
	PolicyID                      string                        `xml:"PolicyId"`
	Arn                           string                        `xml:"Arn"`
	Path                          string                        `xml:"Path"`
	DefaultVersionID              string                        `xml:"DefaultVersionId"`
	AttachmentCount               int                           `xml:"AttachmentCount"`
	PermissionsBoundaryUsageCount int                           `xml:"PermissionsBoundaryUsageCount"`
	IsAttachable                  bool                          `xml:"IsAttachable"`
	Description                   string                        `xml:"Description,omitempty"`
	CreateDate                    query.Timestamp               `xml:"CreateDate"`
	UpdateDate                    query.Timestamp               `xml:"UpdateDate"`
	Tags                          query.OptionalList[query.Tag] `xml:"Tags"`
}

func policyOf(p store.ManagedPolicy, full bool) policyShape {
	s := policyShape{
		PolicyName: p.Name, PolicyID: p.PolicyID, Arn: p.ARN, Path: p.Path, DefaultVersionID: p.DefaultVersionID,
		AttachmentCount: p.AttachmentCount, PermissionsBoundaryUsageCount: p.PermissionsBoundaryUsageCount,
		IsAttachable: true, CreateDate: query.Timestamp(p.CreateDate), UpdateDate: query.Timestamp(p.UpdateDate),
	}
	if full {
		s.Description = p.Description
		s.Tags = tagsOf(p.Tags)
	}
	return s
}

type policyResult struct {
	Policy policyShape `xml:"Policy"`
}

// policyVersionShape is IAM's PolicyVersion. Only GetPolicyVersion returns
// the document, URL-encoded.
type policyVersionShape struct {
	Document         string          `xml:"Document,omitempty"`
	VersionID        string          `xml:"VersionId"`
	IsDefaultVersion bool            `xml:"IsDefaultVersion"`
	CreateDate       query.Timestamp `xml:"CreateDate"`
}

func policyVersionOf(v store.PolicyVersion, withDocument bool) policyVersionShape {
	s := policyVersionShape{VersionID: v.VersionID, IsDefaultVersion: v.IsDefaultVersion, CreateDate: query.Timestamp(v.CreateDate)}
	if withDocument {
		s.Document = query.PolicyDocument(v.Document)
	}
	return s
}

type policyVersionResult struct {
	PolicyVersion policyVersionShape `xml:"PolicyVersion"`
}

// awsManagedCreateDate is when AWS created the managed policies leash local
// knows (AdministratorAccess and the IAM ones date from IAM's launch of
// managed policies).
var awsManagedCreateDate = time.Date(2015, 2, 6, 18, 39, 46, 0, time.UTC)

// knownAWSManaged refuses, with IAM's NoSuchEntity, an AWS managed policy
// ARN whose document leash local does not know.
func knownAWSManaged(arn string) error {
	if _, ok := awsManagedPolicies[arn]; !ok {
		return query.NoSuchEntity("Policy " + arn + " does not exist or is not attachable.")
	}
	return nil
}

// checkBoundary refuses, as IAM does, a permissions boundary that is no
// managed policy. The store refuses the account's own policies that do not
// exist; AWS managed policies are not in the store, so they are checked
// here. Refusing them keeps a boundary leash local cannot read from being
// set, which would deny the principal everything (see identitySet).
func checkBoundary(arn string) error {
	if arn == "" || !store.IsAWSManagedPolicy(arn) {
		return nil
	}
	return knownAWSManaged(arn)
}

// getPolicy returns a managed policy: the account's from the store, or an
// AWS managed one that leash local knows, with its attachments counted.
func getPolicy(tx *store.Tx, arn string) (store.ManagedPolicy, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.GetPolicy(arn)
	}
	if err := knownAWSManaged(arn); err != nil {
		return store.ManagedPolicy{}, err
	}
	attached, bounds, err := awsManagedUse(tx, arn)
	if err != nil {
		return store.ManagedPolicy{}, err
	}
	sum := sha256.Sum256([]byte(arn))
	return store.ManagedPolicy{
		Name: arn[strings.LastIndexByte(arn, '/')+1:], Path: "/", ARN: arn,
		// A stable ID in IAM's form (ANPA and 17 characters); AWS's own IDs
		// are not known here.
		PolicyID:         "ANPA" + base32.StdEncoding.EncodeToString(sum[:])[:17],
		DefaultVersionID: "v1", AttachmentCount: attached, PermissionsBoundaryUsageCount: bounds,
		CreateDate: awsManagedCreateDate, UpdateDate: awsManagedCreateDate,
	}, nil
}

// awsManagedUse counts the users, groups and roles an AWS managed policy is
// attached to and bounds; the store does not count them. It reads every
// user, group and role: fine for a local endpoint's few.
func awsManagedUse(tx *store.Tx, arn string) (attached, bounds int, err error) {
	count := func(p store.Permissions) {
		if slices.Contains(p.AttachedPolicies, arn) {
			attached++
		}
		if p.PermissionsBoundary == arn {
			bounds++
		}
	}
	for page := (store.Page{MaxItems: 1000}); ; {
		l, err := tx.ListUsers("", page)
		if err != nil {
			return 0, 0, err
		}
		for _, u := range l.Items {
			count(u.Permissions)
		}
		if page.Marker = l.Marker; page.Marker == "" {
			break
		}
	}
	groups, err := allPages(func(p store.Page) (store.Listing[store.Group], error) { return tx.ListGroups("", p) })
	if err != nil {
		return 0, 0, err
	}
	for _, g := range groups {
		count(g.Permissions)
	}
	for page := (store.Page{MaxItems: 1000}); ; {
		l, err := tx.ListRoles("", page)
		if err != nil {
			return 0, 0, err
		}
		for _, r := range l.Items {
			count(r.Permissions)
		}
		if page.Marker = l.Marker; page.Marker == "" {
			break
		}
	}
	return attached, bounds, nil
}

// policyVersions returns a managed policy's versions, newest first.
func policyVersions(tx *store.Tx, arn string) ([]store.PolicyVersion, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.ListPolicyVersions(arn)
	}
	p, err := getPolicy(tx, arn)
	if err != nil {
		return nil, err
	}
	return []store.PolicyVersion{{VersionID: "v1", Document: awsManagedPolicies[arn], IsDefaultVersion: true, CreateDate: p.CreateDate}}, nil
}

// getPolicyVersion returns one version of a managed policy.
func getPolicyVersion(tx *store.Tx, arn, id string) (store.PolicyVersion, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.GetPolicyVersion(arn, id)
	}
	versions, err := policyVersions(tx, arn)
	if err != nil {
		return store.PolicyVersion{}, err
	}
	for _, v := range versions {
		if v.VersionID == id {
			return v, nil
		}
	}
	return store.PolicyVersion{}, query.NoSuchEntity("Policy " + arn + " version " + id + " does not exist or is not attachable.")
}

// listedPolicies are the policies ListPolicies selects, by name.
func listedPolicies(c *call) ([]store.ManagedPolicy, error) {
	scope := c.param("Scope")
	if scope == "" {
		scope = "All"
	}
	if scope != "All" && scope != "AWS" && scope != "Local" {
		return nil, c.q.Invalid("Scope", "Member must satisfy enum value set: [All, AWS, Local]")
	}
	onlyAttached, err := c.flag("OnlyAttached")
	if err != nil {
		return nil, err
	}
	return managedPolicies(c.tx, scope, c.param("PathPrefix"), onlyAttached)
}

// managedPolicies are the managed policies of a scope (All, AWS: those
// leash local knows, Local: the account's) under a path prefix, by name.
func managedPolicies(tx *store.Tx, scope, prefix string, onlyAttached bool) ([]store.ManagedPolicy, error) {
	var out []store.ManagedPolicy
	// AWS managed policies are at the path /, which starts with "" and "/".
	if scope != "Local" && strings.HasPrefix("/", prefix) {
		for arn := range awsManagedPolicies {
			p, err := getPolicy(tx, arn)
			if err != nil {
				return nil, err
			}
			if !onlyAttached || p.AttachmentCount > 0 {
				out = append(out, p)
			}
		}
	}
	if scope != "AWS" {
		filter := store.PolicyFilter{PathPrefix: prefix, OnlyAttached: onlyAttached}
		for page := (store.Page{MaxItems: 1000}); ; {
			l, err := tx.ListPolicies(filter, page)
			if err != nil {
				return nil, err
			}
			out = append(out, l.Items...)
			if page.Marker = l.Marker; page.Marker == "" {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b store.ManagedPolicy) int {
		return cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return out, nil
}

func iamPolicyOperations(ops map[string]operation) {
	ops["CreatePolicy"] = operation{
		target: func(c *call) (target, error) {
			name, err := c.required("PolicyName")
			if err != nil {
				return target{}, err
			}
			s := subject{arn: c.arn("policy/" + pathName(c.param("Path"), name))}
			return s.target(c, []keysFunc{requestTags})
		},
		run: func(c *call) (any, error) {
			name, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			doc, err := c.document("PolicyDocument", policy.Identity)
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			p := store.ManagedPolicy{Name: name, Path: c.param("Path"), Description: c.param("Description"), Tags: storeTags(tags)}
			p, err = c.tx.CreatePolicy(p, doc)
			if err != nil {
				return nil, err
			}
			return policyResult{policyOf(p, true)}, nil
		},
	}
	ops["GetPolicy"] = operation{
		readOnly: true,
		target:   onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			p, err := getPolicy(c.tx, arn)
			if err != nil {
				return nil, err
			}
			return policyResult{policyOf(p, true)}, nil
		},
	}
	ops["ListPolicies"] = operation{
		readOnly: true,
		// ListPolicies has no resource-level permissions; IAM names the
		// resource as below in its denials, so only Resource "*" grants it.
		target: func(c *call) (target, error) {
			prefix := c.param("PathPrefix")
			if prefix == "" {
				prefix = "/"
			}
			return target{resource: "policy path " + prefix}, nil
		},
		run: func(c *call) (any, error) {
			all, err := listedPolicies(c)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, all)
			if err != nil {
				return nil, err
			}
			out := struct {
				Policies    []policyShape `xml:"Policies>member"`
				IsTruncated bool          `xml:"IsTruncated"`
				Marker      string        `xml:"Marker,omitempty"`
			}{Policies: []policyShape{}, IsTruncated: marker != "", Marker: marker}
			for _, p := range page {
				out.Policies = append(out.Policies, policyOf(p, false))
			}
			return out, nil
		},
	}
	ops["DeletePolicy"] = operation{
		target: onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeletePolicy(arn)
		},
	}
	tagOperations(ops, policyTags)
	iamPolicyVersionOperations(ops)
}

// iamPolicyVersionOperations are the operations on managed policies'
// versions.
func iamPolicyVersionOperations(ops map[string]operation) {
	ops["GetPolicyVersion"] = operation{
		readOnly: true,
		target:   onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			id, err := c.required("VersionId")
			if err != nil {
				return nil, err
			}
			v, err := getPolicyVersion(c.tx, arn, id)
			if err != nil {
				return nil, err
			}
			return policyVersionResult{policyVersionOf(v, true)}, nil
		},
	}
	ops["ListPolicyVersions"] = operation{
		readOnly: true,
		target:   onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			versions, err := policyVersions(c.tx, arn)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, versions)
			if err != nil {
				return nil, err
			}
			out := struct {
				Versions    []policyVersionShape `xml:"Versions>member"`
				IsTruncated bool                 `xml:"IsTruncated"`
				Marker      string               `xml:"Marker,omitempty"`
			}{Versions: []policyVersionShape{}, IsTruncated: marker != "", Marker: marker}
			for _, v := range page {
				out.Versions = append(out.Versions, policyVersionOf(v, false))
			}
			return out, nil
		},
	}
	ops["CreatePolicyVersion"] = operation{
		target: onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			doc, err := c.document("PolicyDocument", policy.Identity)
			if err != nil {
				return nil, err
			}
			setDefault, err := c.flag("SetAsDefault")
			if err != nil {
				return nil, err
			}
			v, err := c.tx.CreatePolicyVersion(arn, doc, setDefault)
			if err != nil {
				return nil, err
			}
			return policyVersionResult{policyVersionOf(v, false)}, nil
		},
	}
	ops["SetDefaultPolicyVersion"] = operation{
		target: onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			id, err := c.required("VersionId")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.SetDefaultPolicyVersion(arn, id)
			return nil, err
		},
	}
	ops["DeletePolicyVersion"] = operation{
		target: onARN("PolicyArn"),
		run: func(c *call) (any, error) {
			arn, err := c.required("PolicyArn")
			if err != nil {
				return nil, err
			}
			id, err := c.required("VersionId")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeletePolicyVersion(arn, id)
		},
	}
}
