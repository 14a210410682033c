// Package region knows the Regions of the partition leash local's ARNs are
// in, so that a request signed for a Region AWS does not have is refused as
// AWS refuses it, rather than letting the caller pick aws:RequestedRegion.
// The Regions are generated from the AWS SDK's partition table (see
// generate.go); none is typed by hand.
package region

import (
	"regexp"
	"slices"
)

// Known reports whether name is one of the partition's Regions, spelled as
// AWS spells it (lower case).
func Known(name string) bool {
	_, found := slices.BinarySearch(regions, name)
	return found
}

// All returns the partition's Regions, sorted; Known accepts exactly these.
func All() []string { return slices.Clone(regions) }

// Fix says how to correct a request signed for name, an unknown Region, for
// a message. A name of the partition's form may be a Region newer than the
// SDK the list came from, so for one the message says which SDK that is.
func Fix(name string) string {
	fix := "Sign the request for one of the " + Partition + " partition's Regions, such as us-east-1"
	if regexp.MustCompile(Pattern).MatchString(name) {
		fix += "; leash local knows the Regions of " + sdkName + " " + SourceVersion +
			", and a newer Region needs a leash built with a newer SDK"
	}
	return fix + "."
}

const sdkName = "aws-sdk-go-v2"
