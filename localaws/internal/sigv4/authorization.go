package sigv4

import (
	"net/http"
	"strings"
	"time"
)

const algorithm = "AWS4-HMAC-SHA256"

// authorization is the signature a request carries, from its Authorization
// header or from its presigned query string, checked for form but not yet
// for truth.
type authorization struct {
	presigned   bool
	accessKeyID string
	// scope is the credential scope, "YYYYMMDD/region/service/aws4_request",
	// as it enters the string to sign.
	scope           string
	region, service string
	// signedHeaders is the SignedHeaders list, checked to be lower-case,
	// sorted, without repeats, and to include host.
	signedHeaders string
	// signature is 64 lower-case hex digits.
	signature string
	// amzDate is the request's date in ISO 8601 basic form, as it enters
	// the string to sign; time is the same instant.
	amzDate string
	time    time.Time
	// expires is X-Amz-Expires of a presigned URL, 0 when absent.
	expires time.Duration
}

// readAuthorization finds the request's signature and checks its form.
// AWS allows the signature in the Authorization header or in the query
// string, never in both.
func readAuthorization(r *http.Request, params []param) (authorization, *Error) {
	header := r.Header["Authorization"]
	inQuery := hasQueryAuthorization(params)
	switch {
	case len(header) > 0 && inQuery:
		return authorization{}, incomplete("The request carries both an Authorization header and X-Amz-* signature parameters in its query string. Sign it one way: the header, or a presigned URL.")
	case len(header) > 1:
		return authorization{}, incomplete("The request carries more than one Authorization header. Send exactly one.")
	case len(header) == 1:
		return readHeaderAuthorization(r, header[0])
	case inQuery:
		return readQueryAuthorization(params)
	}
	return authorization{}, missingAuthentication()
}

func hasQueryAuthorization(params []param) bool {
	for _, p := range params {
		switch p.key {
		case "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-SignedHeaders", "X-Amz-Signature":
			return true
		}
	}
	return false
}

// readHeaderAuthorization reads "AWS4-HMAC-SHA256 Credential=AKID/scope,
// SignedHeaders=a;b, Signature=hex" and the date from X-Amz-Date or Date.
func readHeaderAuthorization(r *http.Request, header string) (authorization, *Error) {
	alg, rest, _ := strings.Cut(strings.TrimLeft(header, " "), " ")
	if alg != algorithm {
		return authorization{}, unsupportedAlgorithm(alg)
	}
	var credential, signedHeaders, signature string
	var seenCredential, seenSignedHeaders, seenSignature bool
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		part = strings.Trim(part, " ")
		name, value, found := strings.Cut(part, "=")
		var into *string
		var seen *bool
		switch name {
		case "Credential":
			into, seen = &credential, &seenCredential
		case "SignedHeaders":
			into, seen = &signedHeaders, &seenSignedHeaders
		case "Signature":
			into, seen = &signature, &seenSignature
		case "":
			continue // a stray comma
		default:
			return authorization{}, incomplete("The Authorization header has an unknown part " + quoteName(name) + ". It takes only Credential, SignedHeaders and Signature, separated by commas.")
		}
		if !found {
			return authorization{}, incomplete("The Authorization header's " + name + " has no '='. Write it as " + name + "=value.")
		}
		if *seen {
			return authorization{}, incomplete("The Authorization header gives " + name + " twice. Give it once.")
		}
		*into, *seen = value, true
	}

	date, dateErr := headerDate(r)
	var missing []string
	if !seenCredential || credential == "" {
		missing = append(missing, "Authorization header requires 'Credential' parameter.")
	}
	if !seenSignature || signature == "" {
		missing = append(missing, "Authorization header requires 'Signature' parameter.")
	}
	if !seenSignedHeaders || signedHeaders == "" {
		missing = append(missing, "Authorization header requires 'SignedHeaders' parameter.")
	}
	if dateErr == nil && date == "" {
		missing = append(missing, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
	}
	if missing != nil {
		return authorization{}, incomplete(strings.Join(missing, " ") + " Send 'Authorization: AWS4-HMAC-SHA256 Credential=AKID/YYYYMMDD/region/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=<64 hex digits>' with an X-Amz-Date header.")
	}
	if dateErr != nil {
		return authorization{}, dateErr
	}
	return newAuthorization(false, credential, signedHeaders, signature, date, "")
}

// headerDate returns the request's date in ISO 8601 basic form, from
// X-Amz-Date or, when that is absent, from Date; "" when neither is there.
func headerDate(r *http.Request) (string, *Error) {
	if values := r.Header["X-Amz-Date"]; len(values) > 0 {
		if len(values) > 1 {
			return "", incomplete("The request carries more than one X-Amz-Date header. Send exactly one.")
		}
		return values[0], nil
	}
	values := r.Header["Date"]
	if len(values) == 0 {
		return "", nil
	}
	if len(values) > 1 {
		return "", incomplete("The request carries more than one Date header. Send exactly one, or an X-Amz-Date header.")
	}
	t, err := http.ParseTime(values[0])
	if err != nil {
		return "", incomplete("The Date header is not an HTTP date such as 'Mon, 02 Jan 2006 15:04:05 GMT'. Send X-Amz-Date in the form YYYYMMDD'T'HHMMSS'Z' instead.")
	}
	return t.UTC().Format(amzDateLayout), nil
}

// readQueryAuthorization reads the X-Amz-* parameters of a presigned URL.
func readQueryAuthorization(params []param) (authorization, *Error) {
	names := [...]string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Expires"}
	var values [len(names)]string
	var missing []string
	for i, name := range names {
		value, count := lookupParam(params, name)
		if count > 1 {
			return authorization{}, incomplete("The query string gives " + name + " more than once. Give it once.")
		}
		if value == "" && name != "X-Amz-Expires" {
			missing = append(missing, "'"+name+"'")
		}
		values[i] = value
	}
	if missing != nil {
		return authorization{}, incomplete("AWS query-string parameters must include " + strings.Join(missing, ", ") + ". Presign the URL again with an AWS SDK, or add them.")
	}
	if values[0] != algorithm {
		return authorization{}, unsupportedAlgorithm(values[0])
	}
	return newAuthorization(true, values[1], values[3], values[4], values[2], values[5])
}

// newAuthorization checks the parts that the header and the query string
// share: the credential, SignedHeaders, the signature's form, the date and
// its agreement with the credential scope, and X-Amz-Expires.
func newAuthorization(presigned bool, credential, signedHeaders, signature, amzDate, expires string) (authorization, *Error) {
	a := authorization{presigned: presigned, signedHeaders: signedHeaders, signature: signature, amzDate: amzDate}
	c, err := parseCredential(credential)
	if err != nil {
		return a, err
	}
	a.accessKeyID, a.scope, a.region, a.service = c.accessKeyID, c.scope, c.region, c.service
	if err := checkSignedHeaders(signedHeaders); err != nil {
		return a, err
	}
	if !isSignatureForm(signature) {
		return a, incomplete("The Signature must be 64 lower-case hexadecimal digits, the hex-encoded HMAC-SHA256 of the string to sign.")
	}
	t, ok := parseAmzDate(amzDate)
	if !ok {
		return a, incomplete("X-Amz-Date must be in ISO 8601 basic format, YYYYMMDD'T'HHMMSS'Z' in UTC, such as 20260101T120000Z; got " + quoteName(amzDate) + ".")
	}
	a.time = t
	if c.date != amzDate[:8] {
		return a, mismatch("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" + c.date + "' != '" + amzDate[:8] + "', from '" + amzDate + "'. Sign with the request's own date in the credential scope.")
	}
	if presigned && expires != "" {
		d, err := parseExpires(expires)
		if err != nil {
			return a, err
		}
		a.expires = d
	}
	return a, nil
}

func unsupportedAlgorithm(alg string) *Error {
	return incomplete("Unsupported AWS 'algorithm': " + quoteName(alg) + ". leash verifies only AWS4-HMAC-SHA256 (Signature Version 4); configure the client to sign with SigV4.")
}

func isSignatureForm(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}
