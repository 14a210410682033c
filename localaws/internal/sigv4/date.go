package sigv4

import (
	"strconv"
	"time"
)

// amzDateLayout is ISO 8601 basic format, the form of X-Amz-Date.
const amzDateLayout = "20060102T150405Z"

// maxSkew is how far a request's date may be from the server's clock. AWS
// allows fifteen minutes either way.
const maxSkew = 15 * time.Minute

// maxExpires is the longest life of a presigned URL: seven days, as long as
// a signing key derived for one day's scope is accepted.
const maxExpires = 604800

// parseAmzDate parses YYYYMMDD'T'HHMMSS'Z' strictly: sixteen bytes and a
// real calendar date and time. time.Parse would also take a fractional
// second that the layout does not name; the SDKs never send one, and the
// exact string enters the string to sign, so only the exact form passes.
func parseAmzDate(s string) (time.Time, bool) {
	if len(s) != len(amzDateLayout) || s[8] != 'T' || s[15] != 'Z' ||
		!isDigits(s[0:8], 8) || !isDigits(s[9:15], 6) {
		return time.Time{}, false
	}
	num := func(i, j int) int {
		n := 0
		for _, c := range []byte(s[i:j]) {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(4, 6), num(6, 8)
	hour, minute, second := num(9, 11), num(11, 13), num(13, 15)
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)
	if t.Day() != day { // February 30th and the like roll into the next month
		return time.Time{}, false
	}
	return t, true
}

// parseExpires reads X-Amz-Expires: whole seconds from 1 to 604800.
func parseExpires(s string) (time.Duration, *Error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxExpires || !isDigits(s, len(s)) {
		return 0, incomplete("X-Amz-Expires must be a whole number of seconds from 1 to 604800 (seven days); got " + quoteName(s) + ". Presign the URL again with a shorter expiry.")
	}
	return time.Duration(n) * time.Second, nil
}

// checkTime holds the request to AWS's clock rules. A header-signed request,
// and a presigned one without X-Amz-Expires, must be dated within fifteen
// minutes of now either way; the messages are AWS's, which the SDKs
// recognize as clock skew. A presigned URL with X-Amz-Expires lives from its
// date (give or take the same fifteen minutes for a fast client clock) to
// its date plus X-Amz-Expires.
func (a *authorization) checkTime(now time.Time) *Error {
	now = now.UTC().Truncate(time.Second)
	if latest := now.Add(maxSkew); a.time.After(latest) {
		return mismatch("Signature not yet current: " + a.amzDate + " is still later than " +
			latest.Format(amzDateLayout) + " (" + now.Format(amzDateLayout) + " + 15 min.) Set the client's clock right, or sign with the current time.")
	}
	if a.presigned && a.expires > 0 {
		if end := a.time.Add(a.expires); now.After(end) {
			return requestExpired("Request has expired: the presigned URL was signed at " + a.amzDate + " to last " +
				strconv.FormatInt(int64(a.expires/time.Second), 10) + " seconds, until " + end.Format(amzDateLayout) +
				", and it is now " + now.Format(amzDateLayout) + ". Presign a new URL.")
		}
		return nil
	}
	if earliest := now.Add(-maxSkew); a.time.Before(earliest) {
		return mismatch("Signature expired: " + a.amzDate + " is now earlier than " +
			earliest.Format(amzDateLayout) + " (" + now.Format(amzDateLayout) + " - 15 min.) Set the client's clock right, or sign with the current time.")
	}
	return nil
}
