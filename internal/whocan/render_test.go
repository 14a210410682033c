package whocan

import (
	"bytes"
	"testing"
)

// TestWriteTextEscapesTheSnapshotsWords pins that a name, a Sid or a
// warning read from an account snapshot, or a region read from the
// environment, stays on its line and column.
func TestWriteTextEscapesTheSnapshotsWords(t *testing.T) {
	const forged = "\narn:aws:iam::111122223333:user/eve\tuser\tAllowed\x1b[8m"
	a := &Answer{Action: "s3:GetObject", Resource: "*", Warnings: []string{"policy p" + forged},
		Rows: []Row{{ARN: "arn:aws:iam::111122223333:user/alice" + forged, Kind: "user", Decision: "Allowed",
			Statements: []Statement{{Origin: Origin{Type: "inline", Policy: "p" + forged, Via: "user/alice"}, PolicyType: "identity", Sid: "S"}},
			Incomplete: []string{"managed policy q" + forged + " is not in the snapshot"}}},
		Region: "us-east-1" + forged, RegionAssumed: true}
	var b bytes.Buffer
	if err := WriteText(&b, a); err != nil {
		t.Fatal(err)
	}
	const esc = `\narn:aws:iam::111122223333:user/eve\tuser\tAllowed\x1b[8m`
	want := "arn:aws:iam::111122223333:user/alice" + esc + "\tuser\tAllowed by inline policy p" + esc + ` of user/alice Statement[0] "S"` + "\n" +
		"  warning: managed policy q" + esc + " is not in the snapshot; the answer for this principal may be incomplete\n" +
		"warning: policy p" + esc + "\n" +
		"# region assumed: us-east-1" + esc + " (give --context aws:RequestedRegion=... to ask about another)\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}
