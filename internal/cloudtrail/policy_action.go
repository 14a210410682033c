package cloudtrail

import (
	"net/url"
	"regexp"
	"strings"

	"leash.dev/leash/localaws/audit"
)

// servicePrefixes are the event sources whose name is not the IAM service
// prefix of their actions. CloudWatch is the one a controller meets: its
// endpoint, and so CloudTrail's eventSource, is monitoring.amazonaws.com,
// while its actions are cloudwatch:*.
var servicePrefixes = map[string]string{"monitoring": "cloudwatch"}

// s3Actions maps S3 operations, as CloudTrail names them, to the IAM action
// they need where the two names differ. The source is the S3 User Guide's
// "Required permissions for Amazon S3 API operations"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html),
// which maps each API operation to its policy action; CloudTrail's event
// name is the operation's name. Operations not listed here need the action
// of their own name (GetObject needs s3:GetObject); the copies, which need
// a permission on each of two objects, are s3CopyPermissions.
var s3Actions = map[string]string{
	"ListObjects":                                 "ListBucket",
	"ListObjectsV2":                               "ListBucket",
	"HeadBucket":                                  "ListBucket",
	"ListObjectVersions":                          "ListBucketVersions",
	"ListBuckets":                                 "ListAllMyBuckets",
	"HeadObject":                                  "GetObject",
	"ListParts":                                   "ListMultipartUploadParts",
	"ListMultipartUploads":                        "ListBucketMultipartUploads",
	"CreateMultipartUpload":                       "PutObject",
	"UploadPart":                                  "PutObject",
	"CompleteMultipartUpload":                     "PutObject",
	"DeleteObjects":                               "DeleteObject",
	"GetBucketEncryption":                         "GetEncryptionConfiguration",
	"PutBucketEncryption":                         "PutEncryptionConfiguration",
	"DeleteBucketEncryption":                      "PutEncryptionConfiguration",
	"GetBucketLifecycle":                          "GetLifecycleConfiguration",
	"GetBucketLifecycleConfiguration":             "GetLifecycleConfiguration",
	"PutBucketLifecycle":                          "PutLifecycleConfiguration",
	"PutBucketLifecycleConfiguration":             "PutLifecycleConfiguration",
	"DeleteBucketLifecycle":                       "PutLifecycleConfiguration",
	"GetBucketReplication":                        "GetReplicationConfiguration",
	"PutBucketReplication":                        "PutReplicationConfiguration",
	"DeleteBucketReplication":                     "PutReplicationConfiguration",
	"DeleteBucketCors":                            "PutBucketCORS",
	"GetBucketNotificationConfiguration":          "GetBucketNotification",
	"PutBucketNotificationConfiguration":          "PutBucketNotification",
	"DeleteBucketTagging":                         "PutBucketTagging",
	"GetObjectLockConfiguration":                  "GetBucketObjectLockConfiguration",
	"PutObjectLockConfiguration":                  "PutBucketObjectLockConfiguration",
	"GetPublicAccessBlock":                        "GetBucketPublicAccessBlock",
	"PutPublicAccessBlock":                        "PutBucketPublicAccessBlock",
	"DeletePublicAccessBlock":                     "PutBucketPublicAccessBlock",
	"DeleteBucketPublicAccessBlock":               "PutBucketPublicAccessBlock",
	"DeleteBucketOwnershipControls":               "PutBucketOwnershipControls",
	"GetBucketAccelerateConfiguration":            "GetAccelerateConfiguration",
	"PutBucketAccelerateConfiguration":            "PutAccelerateConfiguration",
	"GetBucketAnalyticsConfiguration":             "GetAnalyticsConfiguration",
	"PutBucketAnalyticsConfiguration":             "PutAnalyticsConfiguration",
	"DeleteBucketAnalyticsConfiguration":          "PutAnalyticsConfiguration",
	"GetBucketInventoryConfiguration":             "GetInventoryConfiguration",
	"PutBucketInventoryConfiguration":             "PutInventoryConfiguration",
	"DeleteBucketInventoryConfiguration":          "PutInventoryConfiguration",
	"GetBucketMetricsConfiguration":               "GetMetricsConfiguration",
	"PutBucketMetricsConfiguration":               "PutMetricsConfiguration",
	"DeleteBucketMetricsConfiguration":            "PutMetricsConfiguration",
	"ListBucketAnalyticsConfigurations":           "GetAnalyticsConfiguration",
	"ListBucketInventoryConfigurations":           "GetInventoryConfiguration",
	"ListBucketMetricsConfigurations":             "GetMetricsConfiguration",
	"GetBucketIntelligentTieringConfiguration":    "GetIntelligentTieringConfiguration",
	"PutBucketIntelligentTieringConfiguration":    "PutIntelligentTieringConfiguration",
	"DeleteBucketIntelligentTieringConfiguration": "PutIntelligentTieringConfiguration",
}

// s3VersionActions are the actions an S3 request needs instead when it
// names an object version (requestParameters.versionId), from the same
// page: reading or deleting a version is its own permission.
var s3VersionActions = map[string]string{
	"GetObject":           "GetObjectVersion",
	"DeleteObject":        "DeleteObjectVersion",
	"GetObjectAcl":        "GetObjectVersionAcl",
	"PutObjectAcl":        "PutObjectVersionAcl",
	"GetObjectTagging":    "GetObjectVersionTagging",
	"PutObjectTagging":    "PutObjectVersionTagging",
	"DeleteObjectTagging": "DeleteObjectVersionTagging",
}

// lambdaVersion is the API version Lambda appends to most of its event
// names in CloudTrail (GetFunction20150331v2, ListFunctions20150331).
var lambdaVersion = regexp.MustCompile(`[0-9]{8}(v[0-9]+)?$`)

// eventAction is the IAM action an event's call needed, as "svc:Name"
// before it is checked against the catalog: the call as Action names it,
// mapped where AWS documents another service prefix or action name.
func eventAction(e *audit.Event, params map[string]any) string {
	prefix, name, _ := strings.Cut(Action(e), ":")
	if p, ok := servicePrefixes[prefix]; ok {
		prefix = p
	}
	switch prefix {
	case "s3":
		if a, ok := s3Actions[name]; ok {
			name = a
		}
		if v, ok := params["versionId"].(string); ok && v != "" {
			if a, ok := s3VersionActions[name]; ok {
				name = a
			}
		}
	case "lambda":
		// Invoke is CloudTrail's name for the data event of InvokeFunction.
		name = lambdaVersion.ReplaceAllString(name, "")
		if name == "Invoke" {
			name = "InvokeFunction"
		}
	}
	return prefix + ":" + name
}

// permission is one IAM action a call needed, and what the event tells of
// the resources it needed it on.
type permission struct {
	action string
	values eventValues
}

// permissionsOf is the permissions an event's call needed: its action on
// the resources the event names, or for S3's copies, two.
func permissionsOf(e *audit.Event, params map[string]any) []permission {
	action := eventAction(e, params)
	if action == "s3:CopyObject" || action == "s3:UploadPartCopy" {
		return s3CopyPermissions(e, params)
	}
	perm := permission{action: action, values: valuesOf(e, params)}
	if action == "sts:AssumeRole" {
		return append([]permission{perm}, assumeRoleExtras(e, params, perm.values)...)
	}
	return []permission{perm}
}

// assumeRoleExtras are the permissions an AssumeRole needs on the role
// beside sts:AssumeRole: sts:TagSession when it passes session tags
// (IAM User Guide, "Passing session tags in AWS STS":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html),
// and sts:SetSourceIdentity when it sets a source identity or its caller's
// session carries one on to the new session (IAM User Guide, "Monitor and
// control actions taken with assumed roles":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html).
// Transitive tags a caller's session hands on need sts:TagSession too, but
// the record does not show them.
func assumeRoleExtras(e *audit.Event, params map[string]any, role eventValues) []permission {
	var extra []permission
	if tags, ok := params["tags"].([]any); ok && len(tags) > 0 {
		extra = append(extra, permission{action: "sts:TagSession", values: role})
	}
	inherited := ""
	if sc := e.UserIdentity.SessionContext; sc != nil {
		inherited = sc.SourceIdentity
	}
	if si, _ := params["sourceIdentity"].(string); si != "" || inherited != "" {
		extra = append(extra, permission{action: "sts:SetSourceIdentity", values: role})
	}
	return extra
}

// s3CopyPermissions are the permissions of CopyObject and UploadPartCopy,
// which the S3 page above documents as s3:PutObject on the destination and
// s3:GetObject on the source (s3:GetObjectVersion for a source version).
// Each is read from its own request parameters: the destination from
// bucketName and key, the source from x-amz-copy-source ("bucket/key",
// URL-encoded, with an optional "?versionId="); the record's resources list
// both objects and so cannot tell one from the other.
func s3CopyPermissions(e *audit.Event, params map[string]any) []permission {
	bare := *e
	bare.Resources, bare.AdditionalEventData = nil, nil
	dest := map[string]any{"bucketName": params["bucketName"], "key": params["key"]}
	source := map[string]any{}
	read := "s3:GetObject"
	if src, ok := params["x-amz-copy-source"].(string); ok {
		src, version, _ := strings.Cut(strings.TrimPrefix(src, "/"), "?versionId=")
		if unescaped, err := url.PathUnescape(src); err == nil {
			src = unescaped
		}
		if bucket, key, ok := strings.Cut(src, "/"); ok && bucket != "" && key != "" {
			source["bucketName"], source["key"] = bucket, key
		}
		if version != "" {
			read = "s3:GetObjectVersion"
		}
	}
	return []permission{
		{action: "s3:PutObject", values: valuesOf(&bare, dest)},
		{action: read, values: valuesOf(&bare, source)},
	}
}
