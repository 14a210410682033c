package cloudtrail

import (
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/policy/catalog"
)

// paramPlaceholders maps CloudTrail requestParameters fields to the
// placeholder of the catalog's ARN formats their value fills.
var paramPlaceholders = map[string]string{
	"bucketName":          "BucketName",
	"key":                 "ObjectName",
	"instanceId":          "InstanceId",
	"volumeId":            "VolumeId",
	"groupId":             "SecurityGroupId",
	"subnetId":            "SubnetId",
	"vpcId":               "VpcId",
	"imageId":             "ImageId",
	"snapshotId":          "SnapshotId",
	"networkInterfaceId":  "NetworkInterfaceId",
	"roleName":            "RoleNameWithPath",
	"userName":            "UserNameWithPath",
	"groupName":           "GroupNameWithPath",
	"instanceProfileName": "InstanceProfileNameWithPath",
	"policyName":          "PolicyNameWithPath",
	"tableName":           "TableName",
	"functionName":        "FunctionName",
}

// ec2IDPlaceholders maps the prefix of an EC2 resource ID to its
// placeholder, for lists that mix types (CreateTags' resourcesSet).
var ec2IDPlaceholders = map[string]string{
	"i-":      "InstanceId",
	"vol-":    "VolumeId",
	"sg-":     "SecurityGroupId",
	"subnet-": "SubnetId",
	"vpc-":    "VpcId",
	"ami-":    "ImageId",
	"snap-":   "SnapshotId",
	"eni-":    "NetworkInterfaceId",
}

// literal escapes the characters a policy's Resource element reads as
// wildcards or variables, so that an observed name grants that name only:
// an S3 key "report-*.csv" must not become a pattern. ${*}, ${?} and ${$}
// are IAM's spellings of the literal characters.
var literal = strings.NewReplacer("$", "${$}", "*", "${*}", "?", "${?}")

// eventValues are what an event tells about the resources it named.
type eventValues struct {
	// placeholders are values for the ARN formats' placeholders.
	placeholders map[string][]string
	// arns are whole ARNs the event names: CloudTrail's resources[],
	// leash local's resource, request parameters that hold an ARN.
	arns []string
	// unplaced are resource IDs the event names that no placeholder takes,
	// which a policy built from the rest would leave out.
	unplaced []string
}

// valuesOf reads an event's resources, request parameters and identity.
func valuesOf(e *audit.Event, params map[string]any) eventValues {
	v := eventValues{placeholders: map[string][]string{}}
	add := func(ph, val string) {
		if !slices.Contains(v.placeholders[ph], val) {
			v.placeholders[ph] = append(v.placeholders[ph], val)
		}
	}
	for _, r := range e.Resources {
		if r.ARN != "" {
			v.arns = append(v.arns, r.ARN)
		}
	}
	if arn := e.AuthorizedResource(); arn != "" && arn != "*" {
		v.arns = append(v.arns, arn)
	}
	var field func(k string, val any)
	field = func(k string, val any) {
		switch val := val.(type) {
		case string:
			switch {
			case val == "":
			case strings.HasPrefix(val, "arn:"):
				v.arns = append(v.arns, val)
			case k == "resourceId":
				placed := false
				for prefix, ph := range ec2IDPlaceholders {
					if strings.HasPrefix(val, prefix) {
						add(ph, val)
						placed = true
					}
				}
				if !placed {
					v.unplaced = append(v.unplaced, val)
				}
			case paramPlaceholders[k] != "":
				add(paramPlaceholders[k], val)
			}
		case map[string]any:
			// EC2's lists: "instancesSet": {"items": [{"instanceId": ...}]}.
			if items, ok := val["items"].([]any); ok && strings.HasSuffix(k, "Set") {
				for _, it := range items {
					if m, ok := it.(map[string]any); ok {
						for ik, iv := range m {
							field(ik, iv)
						}
					}
				}
			}
		}
	}
	for k, val := range params {
		field(k, val)
	}
	slices.Sort(v.unplaced)
	v.placeholders["Partition"] = []string{partition(e)}
	if e.AWSRegion != "" {
		v.placeholders["Region"] = []string{e.AWSRegion}
	}
	if acct := cmp(e.RecipientAccount, e.UserIdentity.AccountID); acct != "" {
		v.placeholders["Account"] = []string{acct}
	}
	// IAM's user actions act on the caller when they name no user
	// (GetUser, ListAccessKeys, CreateAccessKey without UserName).
	if _, named := v.placeholders["UserNameWithPath"]; !named && e.UserIdentity.Type == "IAMUser" {
		if _, name, ok := strings.Cut(e.UserIdentity.ARN, ":user/"); ok && strings.HasPrefix(e.EventSource, "iam.") {
			add("UserNameWithPath", name)
		}
	}
	return v
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// partition is the caller's partition (aws, aws-cn, aws-us-gov), "aws"
// when the identity has no ARN.
func partition(e *audit.Event) string {
	if p, ok := strings.CutPrefix(e.UserIdentity.ARN, "arn:"); ok {
		if part, _, ok := strings.Cut(p, ":"); ok && part != "" {
			return part
		}
	}
	return "aws"
}

// fill fills an ARN format with the values, one ARN for each combination of
// the values of its placeholders; false when one has no value.
func fill(format string, vals map[string][]string) ([]string, bool) {
	out := []string{""}
	for rest := format; rest != ""; {
		open := strings.Index(rest, "${")
		if open < 0 {
			for i := range out {
				out[i] += rest
			}
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, false
		}
		lit, name := rest[:open], rest[open+2:open+end]
		rest = rest[open+end+1:]
		values := vals[name]
		if len(values) == 0 {
			return nil, false
		}
		next := make([]string, 0, len(out)*len(values))
		for _, o := range out {
			for _, val := range values {
				next = append(next, o+lit+literal.Replace(val))
			}
		}
		out = next
	}
	return out, true
}

// resourcesOf returns the resources a policy must name for the action to
// allow the event's call, or nil and why they cannot be told. An action
// without resource types takes "*". Otherwise the ARNs are the event's own
// that are of one of the action's types, and the action's ARN formats
// filled from the event; every type the action requires, and at least one
// type, must be named, or a policy of those ARNs would not allow the call.
func resourcesOf(cat *catalog.Catalog, a catalog.Action, v eventValues) ([]string, string) {
	if len(a.Resources) == 0 {
		return []string{"*"}, ""
	}
	var arns []string
	covered := map[string]bool{}
	for _, ref := range a.Resources {
		rt, ok := cat.ResourceType(a.Service, ref.Type)
		if !ok {
			continue
		}
		for _, arn := range v.arns {
			if cat.ARNMatchesType(rt, arn) {
				arns = append(arns, literal.Replace(arn))
				covered[ref.Type] = true
			}
		}
		for format := range strings.SplitSeq(rt.ARN, ", ") {
			if filled, ok := fill(format, v.placeholders); ok {
				arns = append(arns, filled...)
				covered[ref.Type] = true
			}
		}
	}
	var missing []string
	for _, ref := range a.Resources {
		if ref.Required && !covered[ref.Type] {
			missing = append(missing, ref.Type)
		}
	}
	switch {
	case len(v.unplaced) > 0:
		return nil, fmt.Sprintf("the call names resources %s whose type leash cannot tell", strings.Join(v.unplaced, ", "))
	case len(missing) > 0:
		return nil, fmt.Sprintf("the event does not name its %s", strings.Join(missing, ", "))
	case len(arns) == 0:
		var types []string
		for _, ref := range a.Resources {
			types = append(types, ref.Type)
		}
		return nil, fmt.Sprintf("the event names none of its resource types (%s)", strings.Join(types, ", "))
	}
	slices.Sort(arns)
	return slices.Compact(arns), ""
}
