package query_test

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkNestedLists reads a list of structures that each hold a list, as
// SimulatePrincipalPolicy's ContextEntries do, from a body of 10,000
// parameters. Each list read costs its own keys, not the whole request's;
// the first version scanned every key per read and took half a second
// here.
func BenchmarkNestedLists(b *testing.B) {
	var body strings.Builder
	body.WriteString("Action=SimulatePrincipalPolicy&Version=2010-05-08")
	for i := 1; i <= 4999; i++ {
		fmt.Fprintf(&body, "&ContextEntries.member.%d.ContextKeyName=k%d&ContextEntries.member.%d.ContextKeyValues.member.1=v", i, i, i)
	}
	req := mustParse(b, body.String())
	b.ResetTimer()
	for b.Loop() {
		entries, err := req.Members("ContextEntries")
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			if _, err := e.List("ContextKeyValues"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
