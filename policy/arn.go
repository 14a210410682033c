package policy

// ARN is an ARN, or a policy's ARN pattern, in its parts. The resource part
// may hold more colons (arn:aws:logs:us-east-1:1:log-group:x:*).
type ARN struct {
	Partition, Service, Region, Account, Resource string
}

// ParseARN splits s as SplitARN does, so a colon inside a policy variable
// (${aws:PrincipalAccount}) does not separate parts. ok is false unless s
// starts with "arn:" and has all six parts; parts may be empty, as the
// region and account of IAM ARNs are.
func ParseARN(s string) (a ARN, ok bool) {
	parts, n := SplitARN(s)
	if n != 6 || parts[0] != "arn" {
		return ARN{}, false
	}
	return ARN{Partition: parts[1], Service: parts[2], Region: parts[3], Account: parts[4], Resource: parts[5]}, true
}

// String joins the parts back into the ARN.
func (a ARN) String() string {
	return "arn:" + a.Partition + ":" + a.Service + ":" + a.Region + ":" + a.Account + ":" + a.Resource
}

// IsAccountID reports whether s is an AWS account ID: twelve ASCII digits,
// leading zeros kept (AWS prints 012345678901, never 12345678901).
func IsAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
