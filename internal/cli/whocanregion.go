package cli

import "strings"

// requestedRegionKey is the condition key of the region a request is for.
const requestedRegionKey = "aws:RequestedRegion"

// fallbackRegion is the region who-can asks about when neither --context
// nor the environment names one.
const fallbackRegion = "us-east-1"

// requestedRegion is the aws:RequestedRegion of who-can's requests, the
// escalation graph's included: every real request carries one, and a
// "deny outside these regions" SCP refuses a request without it. It is
// --context's value, else AWS_REGION, else AWS_DEFAULT_REGION (as the
// live account's IAM client reads them), else us-east-1; assumed is false
// only for --context's.
func requestedRegion(ctx map[string][]string, getenv func(string) string) (region []string, assumed bool) {
	for k, v := range ctx {
		if strings.EqualFold(k, requestedRegionKey) {
			return v, false
		}
	}
	for _, env := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := getenv(env); r != "" {
			return []string{r}, true
		}
	}
	return []string{fallbackRegion}, true
}
