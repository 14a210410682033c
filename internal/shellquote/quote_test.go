package shellquote

import (
	"os/exec"
	"testing"
)

// What Quote writes, sh reads back as the word it was.
func TestQuoteReadsBackInSh(t *testing.T) {
	for _, s := range []string{"plain/path-1.txt", "http://127.0.0.1:4566", "with space", "it's", `$HOME`, "a;b", "", "tab\there"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %q back as %q (%v)", s, out, err)
		}
	}
	if got := Quote("leash-data/admin-credentials"); got != "leash-data/admin-credentials" {
		t.Errorf("a plain path is quoted: %s", got)
	}
}
