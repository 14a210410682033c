package query

import (
	"bytes"
	"encoding"
	"encoding/xml"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A result's XML is written by a plan made once per result type, which
// writes the bytes encoding/xml writes for the shapes results use: structs
// of strings, booleans, integers, pointers, slices, Timestamp and
// OptionalList, with element names, a>b parents and omitempty. encoding/xml
// finds the fields, tags and marshalers of every value again on every
// call, which was a tenth of leash local's CPU under load. A type with
// anything else (attributes, character data, embedded structs, XMLName,
// other marshalers, maps, floats, interfaces) has no plan, and its results
// go through encoding/xml as before; the tests hold the two to the same
// bytes.

// xmlWriter writes one value as the element name, or nothing where
// encoding/xml would write nothing (a nil pointer, the zero Timestamp, an
// empty OptionalList).
type xmlWriter func(b *bytes.Buffer, v reflect.Value, name string)

// xmlPlans memoizes xmlPlanOf by type.
var xmlPlans sync.Map // reflect.Type → xmlPlan

type xmlPlan struct {
	write xmlWriter // nil: encode with encoding/xml
}

// xmlPlanOf returns the writer of t's values, nil when t has none.
func xmlPlanOf(t reflect.Type) xmlWriter {
	if p, ok := xmlPlans.Load(t); ok {
		return p.(xmlPlan).write
	}
	w := planXML(t, map[reflect.Type]*xmlWriter{})
	xmlPlans.Store(t, xmlPlan{w})
	return w
}

var (
	timestampType       = reflect.TypeFor[Timestamp]()
	xmlMarshalerType    = reflect.TypeFor[xml.Marshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	optionalListPkgPath = reflect.TypeFor[OptionalList[Tag]]().PkgPath()
)

// isOptionalList reports whether t is an instance of OptionalList.
func isOptionalList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.PkgPath() == optionalListPkgPath && strings.HasPrefix(t.Name(), "OptionalList[")
}

func marshals(t reflect.Type) bool {
	return t.Implements(xmlMarshalerType) || reflect.PointerTo(t).Implements(xmlMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// planXML makes the writer of t, or nil when t has a shape it does not
// cover. inProgress holds the types being planned, for recursive types.
func planXML(t reflect.Type, inProgress map[reflect.Type]*xmlWriter) xmlWriter {
	if w, ok := inProgress[t]; ok {
		return func(b *bytes.Buffer, v reflect.Value, name string) { (*w)(b, v, name) }
	}
	switch {
	case t == timestampType:
		return writeTimestamp
	case isOptionalList(t):
		self := new(xmlWriter)
		inProgress[t] = self
		defer delete(inProgress, t)
		item := planXML(t.Elem(), inProgress)
		if item == nil {
			return nil
		}
		*self = func(b *bytes.Buffer, v reflect.Value, name string) {
			if v.Len() == 0 {
				return
			}
			openTag(b, name)
			for i := range v.Len() {
				item(b, v.Index(i), "member")
			}
			closeTag(b, name)
		}
		return *self
	case marshals(t):
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(b *bytes.Buffer, v reflect.Value, name string) {
			openTag(b, name)
			escapeXML(b, v.String())
			closeTag(b, name)
		}
	case reflect.Bool:
		return func(b *bytes.Buffer, v reflect.Value, name string) {
			openTag(b, name)
			b.WriteString(strconv.FormatBool(v.Bool()))
			closeTag(b, name)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b *bytes.Buffer, v reflect.Value, name string) {
			openTag(b, name)
			b.Write(strconv.AppendInt(b.AvailableBuffer(), v.Int(), 10))
			closeTag(b, name)
		}
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b *bytes.Buffer, v reflect.Value, name string) {
			openTag(b, name)
			b.Write(strconv.AppendUint(b.AvailableBuffer(), v.Uint(), 10))
			closeTag(b, name)
		}
	case reflect.Pointer:
		self := new(xmlWriter)
		inProgress[t] = self
		defer delete(inProgress, t)
		elem := planXML(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		*self = func(b *bytes.Buffer, v reflect.Value, name string) {
			if !v.IsNil() {
				elem(b, v.Elem(), name)
			}
		}
		return *self
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		self := new(xmlWriter)
		inProgress[t] = self
		defer delete(inProgress, t)
		elem := planXML(t.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		*self = func(b *bytes.Buffer, v reflect.Value, name string) {
			for i := range v.Len() {
				elem(b, v.Index(i), name)
			}
		}
		return *self
	case reflect.Struct:
		self := new(xmlWriter)
		inProgress[t] = self
		defer delete(inProgress, t)
		fields, ok := planFields(t, inProgress)
		if !ok {
			return nil
		}
		*self = func(b *bytes.Buffer, v reflect.Value, name string) {
			openTag(b, name)
			writeFields(b, v, fields)
			closeTag(b, name)
		}
		return *self
	}
	return nil
}

// xmlField is one element field of a struct.
type xmlField struct {
	index     int
	parents   []string // from a tag "a>b>name"
	name      string
	omitEmpty bool
	write     xmlWriter
}

// planFields plans t's fields as encoding/xml's type info reads them, or
// reports false for a field it does not cover.
func planFields(t reflect.Type, inProgress map[reflect.Type]*xmlWriter) ([]xmlField, bool) {
	var fields []xmlField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous || f.Name == "XMLName" {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("xml")
		if tag == "-" {
			continue
		}
		path, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" || strings.ContainsAny(path, " \t") {
			return nil, false
		}
		if path == "" {
			path = f.Name
		}
		parts := strings.Split(path, ">")
		if slicesContainEmpty(parts) {
			return nil, false
		}
		w := planXML(f.Type, inProgress)
		if w == nil {
			return nil, false
		}
		fields = append(fields, xmlField{
			index: i, parents: parts[:len(parts)-1], name: parts[len(parts)-1],
			omitEmpty: opts == "omitempty", write: w,
		})
	}
	return fields, true
}

func slicesContainEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

// writeFields writes a struct's fields, opening and closing parent
// elements as encoding/xml does: fields in a row that share parents share
// their elements, and a nil pointer field opens none.
func writeFields(b *bytes.Buffer, v reflect.Value, fields []xmlField) {
	var open []string
	for _, f := range fields {
		fv := v.Field(f.index)
		split := 0
		for split < len(f.parents) && split < len(open) && f.parents[split] == open[split] {
			split++
		}
		for i := len(open) - 1; i >= split; i-- {
			closeTag(b, open[i])
		}
		open = open[:split]
		if len(f.parents) > len(open) && (fv.Kind() != reflect.Pointer || !fv.IsNil()) {
			for _, p := range f.parents[len(open):] {
				openTag(b, p)
			}
			open = append(open, f.parents[len(open):]...)
		}
		if f.omitEmpty && isEmptyXML(fv) {
			continue
		}
		f.write(b, fv, f.name)
	}
	for i := len(open) - 1; i >= 0; i-- {
		closeTag(b, open[i])
	}
}

// isEmptyXML is encoding/xml's test for omitempty.
func isEmptyXML(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func writeTimestamp(b *bytes.Buffer, v reflect.Value, name string) {
	t := time.Time(v.Interface().(Timestamp))
	if t.IsZero() {
		return
	}
	openTag(b, name)
	b.Write(t.UTC().AppendFormat(b.AvailableBuffer(), TimestampFormat))
	closeTag(b, name)
}

func openTag(b *bytes.Buffer, name string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.WriteByte('>')
}

func closeTag(b *bytes.Buffer, name string) {
	b.WriteString("</")
	b.WriteString(name)
	b.WriteByte('>')
}

// escapeXML writes s as encoding/xml writes character data. Printable
// ASCII other than "&'<> is written as it is; a string with anything else
// goes through xml.EscapeText, the escaping encoding/xml uses.
func escapeXML(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\'' || c == '&' || c == '<' || c == '>' {
			b.WriteString(s[:i])
			_ = xml.EscapeText(b, []byte(s[i:])) // a bytes.Buffer does not fail
			return
		}
	}
	b.WriteString(s)
}

// encodeResultFast writes what encodeResult writes, with result's plan, and
// reports false, having written nothing, when result's type has no plan.
func encodeResultFast(buf *bytes.Buffer, namespace, action string, result any, requestID string) bool {
	var write xmlWriter
	var v reflect.Value
	if result != nil {
		v = reflect.ValueOf(result)
		if write = xmlPlanOf(v.Type()); write == nil {
			return false
		}
	}
	buf.WriteByte('<')
	buf.WriteString(action)
	buf.WriteString(`Response xmlns="`)
	escapeXML(buf, namespace)
	buf.WriteString(`">`)
	if write != nil {
		write(buf, v, action+"Result")
	}
	buf.WriteString("<ResponseMetadata><RequestId>")
	escapeXML(buf, requestID)
	buf.WriteString("</RequestId></ResponseMetadata></")
	buf.WriteString(action)
	buf.WriteString("Response>")
	return true
}
