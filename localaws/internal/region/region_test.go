package region

import (
	"regexp"
	"strings"
	"testing"
)

// TestEveryKnownRegionHasThePartitionsForm pins that the generated list
// holds only names of the partition's pattern, and the Regions every
// account has.
func TestEveryKnownRegionHasThePartitionsForm(t *testing.T) {
	re := regexp.MustCompile(Pattern)
	all := All()
	for _, name := range all {
		if !re.MatchString(name) || !Known(name) {
			t.Errorf("%s: in All but not of the form %s or not Known", name, Pattern)
		}
	}
	for _, name := range []string{"us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "ap-northeast-1"} {
		if !Known(name) {
			t.Errorf("%s is not Known", name)
		}
	}
}

// TestFixNamesTheSDKOnlyForANameOfTheRightForm pins the message's fix: a
// name of the partition's form may be a Region newer than the SDK, so the
// fix says which SDK the list came from; another does not.
func TestFixNamesTheSDKOnlyForANameOfTheRightForm(t *testing.T) {
	if fix := Fix("us-east-9"); !strings.Contains(fix, SourceVersion) {
		t.Errorf("Fix(us-east-9) = %q, want the SDK version", fix)
	}
	if fix := Fix("moon-1"); strings.Contains(fix, SourceVersion) || !strings.Contains(fix, "us-east-1") {
		t.Errorf("Fix(moon-1) = %q, want an example Region and no SDK version", fix)
	}
}
