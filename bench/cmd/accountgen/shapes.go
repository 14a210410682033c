package main

import (
	"net/url"
	"strings"
)

// The types below are the snapshot as `aws iam get-account-authorization-details`
// prints it: the API's field names, in the order the CLI prints them. A
// document field holds either the document itself (json.RawMessage, as the
// CLI prints it decoded) or its URL-encoded text (a string, as the API
// returns it).

// snapshot is the whole output.
type snapshot struct {
	UserDetailList  []userDetail    `json:"UserDetailList"`
	GroupDetailList []groupDetail   `json:"GroupDetailList"`
	RoleDetailList  []roleDetail    `json:"RoleDetailList"`
	Policies        []managedPolicy `json:"Policies"`
}

type userDetail struct {
	Path                    string           `json:"Path"`
	UserName                string           `json:"UserName"`
	UserID                  string           `json:"UserId"`
	Arn                     string           `json:"Arn"`
	CreateDate              string           `json:"CreateDate"`
	UserPolicyList          []inlinePolicy   `json:"UserPolicyList,omitempty"`
	GroupList               []string         `json:"GroupList"`
	AttachedManagedPolicies []attachedPolicy `json:"AttachedManagedPolicies"`
	PermissionsBoundary     *boundary        `json:"PermissionsBoundary,omitempty"`
	Tags                    []tag            `json:"Tags"`
}

type groupDetail struct {
	Path                    string           `json:"Path"`
	GroupName               string           `json:"GroupName"`
	GroupID                 string           `json:"GroupId"`
	Arn                     string           `json:"Arn"`
	CreateDate              string           `json:"CreateDate"`
	GroupPolicyList         []inlinePolicy   `json:"GroupPolicyList"`
	AttachedManagedPolicies []attachedPolicy `json:"AttachedManagedPolicies"`
}

type roleDetail struct {
	Path                     string           `json:"Path"`
	RoleName                 string           `json:"RoleName"`
	RoleID                   string           `json:"RoleId"`
	Arn                      string           `json:"Arn"`
	CreateDate               string           `json:"CreateDate"`
	AssumeRolePolicyDocument any              `json:"AssumeRolePolicyDocument"`
	InstanceProfileList      []struct{}       `json:"InstanceProfileList"`
	RolePolicyList           []inlinePolicy   `json:"RolePolicyList"`
	AttachedManagedPolicies  []attachedPolicy `json:"AttachedManagedPolicies"`
	PermissionsBoundary      *boundary        `json:"PermissionsBoundary,omitempty"`
	Tags                     []tag            `json:"Tags"`
	RoleLastUsed             roleLastUsed     `json:"RoleLastUsed"`
}

type managedPolicy struct {
	PolicyName                    string          `json:"PolicyName"`
	PolicyID                      string          `json:"PolicyId"`
	Arn                           string          `json:"Arn"`
	Path                          string          `json:"Path"`
	DefaultVersionID              string          `json:"DefaultVersionId"`
	AttachmentCount               int             `json:"AttachmentCount"`
	PermissionsBoundaryUsageCount int             `json:"PermissionsBoundaryUsageCount"`
	IsAttachable                  bool            `json:"IsAttachable"`
	Description                   string          `json:"Description,omitempty"`
	CreateDate                    string          `json:"CreateDate"`
	UpdateDate                    string          `json:"UpdateDate"`
	PolicyVersionList             []policyVersion `json:"PolicyVersionList"`
}

type policyVersion struct {
	Document         any    `json:"Document"`
	VersionID        string `json:"VersionId"`
	IsDefaultVersion bool   `json:"IsDefaultVersion"`
	CreateDate       string `json:"CreateDate"`
}

type inlinePolicy struct {
	PolicyName     string `json:"PolicyName"`
	PolicyDocument any    `json:"PolicyDocument"`
}

type attachedPolicy struct {
	PolicyName string `json:"PolicyName"`
	PolicyArn  string `json:"PolicyArn"`
}

type boundary struct {
	PermissionsBoundaryType string `json:"PermissionsBoundaryType"`
	PermissionsBoundaryArn  string `json:"PermissionsBoundaryArn"`
}

type tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// roleLastUsed is empty ({}) for a role never used, as the CLI prints it.
type roleLastUsed struct {
	LastUsedDate string `json:"LastUsedDate,omitempty"`
	Region       string `json:"Region,omitempty"`
}

// urlEncoded is a policy document as IAM returns it: RFC 3986
// percent-encoding, every byte but letters, digits and -._~ escaped.
// url.QueryEscape escapes exactly those bytes but writes a space as "+";
// IAM writes %20.
func urlEncoded(doc string) string {
	return strings.ReplaceAll(url.QueryEscape(doc), "+", "%20")
}
