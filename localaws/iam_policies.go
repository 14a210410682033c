package localaws

import (
	"slices"
	"strings"

	"leash.dev/leash/localaws/internal/awsmanaged"
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

// getPolicy returns a managed policy: the account's from the store, or an
// AWS managed one with this account's use of it counted.
func getPolicy(tx *store.Tx, arn string) (store.ManagedPolicy, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.GetPolicy(arn)
	}
	p, err := awsManagedPolicy(arn)
	if err != nil {
		return store.ManagedPolicy{}, err
	}
	use, err := awsManagedUse(tx)
	if err != nil {
		return store.ManagedPolicy{}, err
	}
	return awsManagedOf(p, use[arn]), nil
}

// policyVersions returns a managed policy's versions, newest first.
func policyVersions(tx *store.Tx, arn string) ([]store.PolicyVersion, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.ListPolicyVersions(arn)
	}
	return awsManagedVersions(arn)
}

// getPolicyVersion returns one version of a managed policy.
func getPolicyVersion(tx *store.Tx, arn, id string) (store.PolicyVersion, error) {
	if !store.IsAWSManagedPolicy(arn) {
		return tx.GetPolicyVersion(arn, id)
	}
	p, err := awsManagedPolicy(arn)
	if err != nil {
		return store.PolicyVersion{}, err
	}
	if id != p.DefaultVersionID() {
		return store.PolicyVersion{}, query.NoSuchEntity("Policy " + arn + " version " + id + " does not exist or is not attachable.")
	}
	return store.PolicyVersion{VersionID: id, Document: p.Document(), IsDefaultVersion: true, CreateDate: p.VersionCreated}, nil
}

// listedPolicies are the policies ListPolicies selects, by name. Scope
// (All, AWS, Local; default All), OnlyAttached and PathPrefix are as IAM's
// ListPolicies reference has them. PolicyUsageFilter keeps the policies
// used that way in this account: PermissionsPolicy those attached to a
// principal, PermissionsBoundary those set as a principal's boundary.
func listedPolicies(c *call) ([]store.ManagedPolicy, error) {
	scope := c.param("Scope")
	if scope == "" {
		scope = "All"
	}
	if scope != "All" && scope != "AWS" && scope != "Local" {
		return nil, c.q.Invalid("Scope", "Member must satisfy enum value set: [All, AWS, Local]")
	}
	usage := c.param("PolicyUsageFilter")
	if usage != "" && usage != "PermissionsPolicy" && usage != "PermissionsBoundary" {
		return nil, c.q.Invalid("PolicyUsageFilter", "Member must satisfy enum value set: [PermissionsPolicy, PermissionsBoundary]")
	}
	onlyAttached, err := c.flag("OnlyAttached")
	if err != nil {
		return nil, err
	}
	prefix, err := c.pathPrefix(store.PolicyPathPrefix)
	if err != nil {
		return nil, err
	}
	all, err := managedPolicies(c.tx, scope, prefix, onlyAttached)
	if err != nil || usage == "" {
		return all, err
	}
	return slices.DeleteFunc(all, func(p store.ManagedPolicy) bool {
		if usage == "PermissionsPolicy" {
			return p.AttachmentCount == 0
		}
		return p.PermissionsBoundaryUsageCount == 0
	}), nil
}

// managedPolicies are the managed policies of a scope (All, AWS: AWS's
// published set, Local: the account's) under a path prefix, by name.
func managedPolicies(tx *store.Tx, scope, prefix string, onlyAttached bool) ([]store.ManagedPolicy, error) {
	var out []store.ManagedPolicy
	if scope != "Local" {
		use, err := awsManagedUse(tx)
		if err != nil {
			return nil, err
		}
		out = make([]store.ManagedPolicy, 0, awsmanaged.Len())
		for p := range awsmanaged.All() {
			u := use[p.ARN()]
			if strings.HasPrefix(p.Path, prefix) && (!onlyAttached || u.attached > 0) {
				out = append(out, awsManagedOf(p, u))
			}
		}
	}
	if scope != "AWS" {
		local, err := allPages(func(page store.Page) (store.Listing[store.ManagedPolicy], error) {
			return tx.ListPolicies(store.PolicyFilter{PathPrefix: prefix, OnlyAttached: onlyAttached}, page)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, local...)
		// Both parts come sorted; the stable sort interleaves them.
		slices.SortStableFunc(out, func(a, b store.ManagedPolicy) int { return awsmanaged.CompareNames(a.Name, b.Name) })
	}
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
