package sigv4

import "strings"

const terminator = "aws4_request"

// credential is "AKID/YYYYMMDD/region/service/aws4_request" taken apart.
type credential struct {
	accessKeyID, date, region, service string
	// scope is everything after the access key ID, as it enters the
	// string to sign.
	scope string
}

// parseCredential splits a credential into its five parts and checks that
// none is empty, that the date is eight digits and that the scope ends in
// aws4_request. Region and service are not checked here: the caller routes
// on the service and the signature binds both.
func parseCredential(s string) (credential, *Error) {
	const form = " Write it as AKID/YYYYMMDD/region/service/aws4_request, such as AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/iam/aws4_request."
	var parts [5]string
	rest := s
	for i := range parts {
		var found bool
		parts[i], rest, found = strings.Cut(rest, "/")
		if found != (i < len(parts)-1) {
			return credential{}, incomplete("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term." + form)
		}
	}
	for _, p := range parts {
		if p == "" {
			return credential{}, incomplete("Credential has an empty element." + form)
		}
	}
	c := credential{accessKeyID: parts[0], date: parts[1], region: parts[2], service: parts[3], scope: s[len(parts[0])+1:]}
	if !isDigits(c.date, 8) {
		return credential{}, incomplete("The date in the Credential must be eight digits, YYYYMMDD." + form)
	}
	if parts[4] != terminator {
		return credential{}, mismatch("Credential should be scoped with a valid terminator: 'aws4_request', not " + quoteName(parts[4]) + ".")
	}
	return c, nil
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
