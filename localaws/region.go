package localaws

import (
	"leash.dev/leash/localaws/internal/region"
	"leash.dev/leash/localaws/internal/sigv4"
)

// checkRegion refuses a request signed for a Region that is not one of the
// partition's, as AWS does (SignatureDoesNotMatch, "Credential should be
// scoped to a valid region"). The scope's Region becomes
// aws:RequestedRegion, so accepting any name would let a caller pick the
// value a policy's Region condition is judged on.
func checkRegion(name string) *sigv4.Error {
	if region.Known(name) {
		return nil
	}
	return sigv4.InvalidRegion(name, region.Fix(name))
}
