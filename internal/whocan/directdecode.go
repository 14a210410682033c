package whocan

import "strings"

// The users, groups and roles of a snapshot are read here field by field
// off the file's bytes, with the scanner of split.go: no decoder copies the
// input or builds a value by reflection, and documents stay slices of the
// file until policy.Parse reads them. Anything but the API's shape (a field
// of another JSON type) reports ok=false, and the snapshot is decoded again
// the slow way, whose errors say what is wrong and where.

func decodeUser(data []byte) (d userDetail, ok bool) {
	ok = true
	ok = eachField(data, func(key string, raw []byte) {
		switch key {
		case "UserName":
			ok = setString(&d.UserName, raw, ok)
		case "Arn":
			ok = setString(&d.Arn, raw, ok)
		case "UserPolicyList":
			ok = setInline(&d.UserPolicyList, raw, ok)
		case "AttachedManagedPolicies":
			ok = setAttached(&d.AttachedManagedPolicies, raw, ok)
		case "GroupList":
			ok = setStrings(&d.GroupList, raw, ok)
		case "PermissionsBoundary":
			ok = setBoundary(&d.PermissionsBoundary, raw, ok)
		default:
			ok = ok && !foldsTo(key, "UserName", "Arn", "UserPolicyList", "AttachedManagedPolicies", "GroupList", "PermissionsBoundary")
		}
	}) && ok
	return d, ok
}

func decodeGroup(data []byte) (d groupDetail, ok bool) {
	ok = true
	ok = eachField(data, func(key string, raw []byte) {
		switch key {
		case "GroupName":
			ok = setString(&d.GroupName, raw, ok)
		case "Arn":
			ok = setString(&d.Arn, raw, ok)
		case "GroupPolicyList":
			ok = setInline(&d.GroupPolicyList, raw, ok)
		case "AttachedManagedPolicies":
			ok = setAttached(&d.AttachedManagedPolicies, raw, ok)
		default:
			ok = ok && !foldsTo(key, "GroupName", "Arn", "GroupPolicyList", "AttachedManagedPolicies")
		}
	}) && ok
	return d, ok
}

func decodeRole(data []byte) (d roleDetail, ok bool) {
	ok = true
	ok = eachField(data, func(key string, raw []byte) {
		switch key {
		case "RoleName":
			ok = setString(&d.RoleName, raw, ok)
		case "Arn":
			ok = setString(&d.Arn, raw, ok)
		case "AssumeRolePolicyDocument":
			d.AssumeRolePolicyDocument = raw
		case "RolePolicyList":
			ok = setInline(&d.RolePolicyList, raw, ok)
		case "AttachedManagedPolicies":
			ok = setAttached(&d.AttachedManagedPolicies, raw, ok)
		case "PermissionsBoundary":
			ok = setBoundary(&d.PermissionsBoundary, raw, ok)
		default:
			ok = ok && !foldsTo(key, "RoleName", "Arn", "AssumeRolePolicyDocument", "RolePolicyList", "AttachedManagedPolicies", "PermissionsBoundary")
		}
	}) && ok
	return d, ok
}

// foldsTo reports whether key is one of names in another case, which
// encoding/json would read as that field: the slow path reads it alike.
func foldsTo(key string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}

// The setters below keep ok false once it is: eachField visits every field
// whatever an earlier one held.

func setString(to *string, raw []byte, ok bool) bool {
	if string(raw) == "null" {
		return ok
	}
	s, isString := jsonString(raw)
	*to = s
	return ok && isString
}

// elements is a JSON array's elements; null is none (nil), where an empty
// array is an empty list.
func elements(raw []byte) ([][]byte, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	elems, ok := arrayElements(raw)
	if ok && elems == nil {
		elems = [][]byte{}
	}
	return elems, ok
}

// setList decodes a JSON array (null leaves the list nil, as
// encoding/json does) into to, each element with set.
func setList[T any](to *[]T, raw []byte, ok bool, set func(d *T, elem []byte, ok bool) bool) bool {
	elems, isArray := elements(raw)
	if !isArray {
		return false
	}
	if elems == nil {
		*to = nil
		return ok
	}
	*to = make([]T, len(elems))
	for i, e := range elems {
		ok = set(&(*to)[i], e, ok)
	}
	return ok
}

func setStrings(to *[]string, raw []byte, ok bool) bool {
	return setList(to, raw, ok, setString)
}

func setInline(to *[]inlineDetail, raw []byte, ok bool) bool {
	return setList(to, raw, ok, func(d *inlineDetail, elem []byte, ok bool) bool {
		return eachField(elem, func(key string, raw []byte) {
			switch key {
			case "PolicyName":
				ok = setString(&d.PolicyName, raw, ok)
			case "PolicyDocument":
				d.PolicyDocument = raw
			}
		}) && ok
	})
}

func setAttached(to *[]attachedDetail, raw []byte, ok bool) bool {
	return setList(to, raw, ok, func(d *attachedDetail, elem []byte, ok bool) bool {
		return eachField(elem, func(key string, raw []byte) {
			switch key {
			case "PolicyName":
				ok = setString(&d.PolicyName, raw, ok)
			case "PolicyArn":
				ok = setString(&d.PolicyArn, raw, ok)
			}
		}) && ok
	})
}

func setBoundary(to **boundaryDetail, raw []byte, ok bool) bool {
	if string(raw) == "null" {
		return ok
	}
	d := &boundaryDetail{}
	*to = d
	return eachField(raw, func(key string, raw []byte) {
		if key == "PermissionsBoundaryArn" {
			ok = setString(&d.PermissionsBoundaryArn, raw, ok)
		}
	}) && ok
}
