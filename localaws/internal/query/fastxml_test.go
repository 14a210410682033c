package query

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"
)

// Shapes like the handlers' results, with every feature the plans cover.
type (
	fastTagged struct {
		Name   string                `xml:"Name"`
		Count  int                   `xml:"Count"`
		Small  int32                 `xml:"Small,omitempty"`
		Big    uint64                `xml:"Big"`
		On     bool                  `xml:"On"`
		Off    bool                  `xml:"Off,omitempty"`
		When   Timestamp             `xml:"When"`
		Never  Timestamp             `xml:"Never"`
		Tags   OptionalList[Tag]     `xml:"Tags"`
		NoTags OptionalList[Tag]     `xml:"NoTags"`
		Inner  *fastInner            `xml:"Inner,omitempty"`
		Nil    *fastInner            `xml:"Nil"`
		Items  []fastInner           `xml:"Items>member"`
		None   []fastInner           `xml:"None>member"`
		Shared []string              `xml:"Pair>Left"`
		Also   string                `xml:"Pair>Right"`
		Deep   string                `xml:"A>B>C,omitempty"`
		Ptrs   OptionalList[*string] `xml:"Ptrs"`
		Plain  string
		Skip   string `xml:"-"`
		hidden string
	}
	fastInner struct {
		Value string     `xml:"Value"`
		Next  *fastInner `xml:"Next"`
	}
	// Shapes the plans leave to encoding/xml.
	fastAttr struct {
		ID string `xml:"id,attr"`
	}
	fastNamed struct {
		XMLName xml.Name `xml:"Named"`
		V       string
	}
	fastEmbedded struct {
		fastInner
		W string
	}
	fastFloat struct{ F float64 }
)

func fastString(s string) *string { return &s }

// TestFastResultsMatchEncodingXML pins that a planned result is written
// byte for byte as encoding/xml writes it, and that shapes without a plan
// still are (through encoding/xml).
func TestFastResultsMatchEncodingXML(t *testing.T) {
	when := Timestamp(time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("x", 3600)))
	full := fastTagged{
		Name: `a "quoted" <name> & 'apostrophe'`, Count: -3, Small: 7, Big: 1 << 60, On: true, When: when,
		Tags:   OptionalList[Tag]{{Key: "k", Value: "tab\there\nnewline\r"}, {Key: "ünïcödé", Value: "\x00\x01 bad \xff utf-8 \uFFFD"}},
		Inner:  &fastInner{Value: "in", Next: &fastInner{Value: "next"}},
		Items:  []fastInner{{Value: "one"}, {Value: "two"}},
		Shared: []string{"l1", "l2"}, Also: "right", Deep: "deep",
		Ptrs:  OptionalList[*string]{fastString("p"), nil, fastString("q")},
		Plain: "plain", Skip: "skipped", hidden: "hidden",
	}
	for _, c := range []struct {
		name    string
		result  any
		planned bool
	}{
		{"every covered field, set", full, true},
		{"every covered field, zero", fastTagged{}, true},
		{"a pointer to a result", &full, true},
		{"a nil pointer result writes no result element", (*fastTagged)(nil), true},
		{"no result writes ResponseMetadata alone", nil, true},
		{"a string result", "text & more", true},
		{"a slice result", []fastInner{{Value: "a"}, {Value: "b"}}, true},
		{"an anonymous struct as handlers write them", struct {
			AccessKeyMetadata []fastInner `xml:"AccessKeyMetadata>member"`
			IsTruncated       bool        `xml:"IsTruncated"`
			Marker            string      `xml:"Marker,omitempty"`
		}{AccessKeyMetadata: []fastInner{{Value: "k"}}}, true},
		{"an attribute goes to encoding/xml", fastAttr{ID: "x"}, false},
		{"XMLName goes to encoding/xml", fastNamed{V: "v"}, false},
		{"an embedded struct goes to encoding/xml", fastEmbedded{fastInner{Value: "v"}, "w"}, false},
		{"a float goes to encoding/xml", fastFloat{1.5}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := encodeResultXML(&want, IAMNamespace, "GetThing", c.result, "req-1"); err != nil {
				t.Fatal(err)
			}
			if err := encodeResult(&got, IAMNamespace, "GetThing", c.result, "req-1"); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("encodeResult wrote\n%s\nencoding/xml writes\n%s", got.String(), want.String())
			}
			var fast bytes.Buffer
			if planned := encodeResultFast(&fast, IAMNamespace, "GetThing", c.result, "req-1"); planned != c.planned {
				t.Errorf("planned = %v, want %v", planned, c.planned)
			} else if !planned && fast.Len() > 0 {
				t.Errorf("an unplanned result wrote %q", fast.String())
			}
		})
	}
}

// FuzzFastEscapeMatchesEncodingXML holds the escaping of planned strings to
// encoding/xml's for any string.
func FuzzFastEscapeMatchesEncodingXML(f *testing.F) {
	for _, s := range []string{"", "plain", `<&>"'`, "\t\n\r", "\x00", "\xff", "\uFFFD", "é", "\U0001F600", "\uFFFE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := struct {
			S string `xml:"S"`
		}{s}
		var want, got bytes.Buffer
		if err := encodeResultXML(&want, STSNamespace, "Op", r, s); err != nil {
			t.Fatal(err)
		}
		if !encodeResultFast(&got, STSNamespace, "Op", r, s) {
			t.Fatal("no plan for a struct of a string")
		}
		if got.String() != want.String() {
			t.Errorf("for %q the plan wrote\n%s\nencoding/xml writes\n%s", s, got.String(), want.String())
		}
	})
}
