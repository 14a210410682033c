package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON writes the document as IAM policy JSON without whitespace, in
// the order AWS documents the elements (Version, Id, Statement; Sid, Effect,
// Principal, NotPrincipal, Action, NotAction, Resource, NotResource,
// Condition) and with the spelling Parse recorded: strings and arrays as the
// author wrote them (see Singles), numbers and booleans in conditions
// without quotes. Parse of the result gives the document back, except Size,
// which is the length of the text parsed. Conditions group under their
// operator in the order of their first appearance; two conditions with the
// same operator and key cannot be written and are an error.
func (d Document) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	sep := fieldWriter(&b)
	if d.Version != "" {
		sep("Version")
		writeString(&b, d.Version)
	}
	if d.ID != "" {
		sep("Id")
		writeString(&b, d.ID)
	}
	sep("Statement")
	single := d.SingleStatement && len(d.Statements) == 1
	if !single {
		b.WriteByte('[')
	}
	for i := range d.Statements {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := d.Statements[i].write(&b); err != nil {
			return nil, fmt.Errorf("statement %d: %w", i, err)
		}
	}
	if !single {
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (s *Statement) write(b *bytes.Buffer) error {
	b.WriteByte('{')
	sep := fieldWriter(b)
	if s.Sid != "" {
		sep("Sid")
		writeString(b, s.Sid)
	}
	sep("Effect")
	writeString(b, string(s.Effect))
	for _, p := range []struct {
		name string
		p    *Principal
	}{{"Principal", s.Principal}, {"NotPrincipal", s.NotPrincipal}} {
		if p.p != nil {
			sep(p.name)
			p.p.write(b)
		}
	}
	for _, e := range []struct {
		name   string
		list   []string
		single Singles
	}{
		{"Action", s.Action, SingleAction},
		{"NotAction", s.NotAction, SingleNotAction},
		{"Resource", s.Resource, SingleResource},
		{"NotResource", s.NotResource, SingleNotResource},
	} {
		if len(e.list) > 0 {
			sep(e.name)
			writeList(b, e.list, s.Singles&e.single != 0)
		}
	}
	if len(s.Conditions) > 0 {
		sep("Condition")
		if err := writeConditions(b, s.Conditions); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (p *Principal) write(b *bytes.Buffer) {
	if p.Wildcard {
		writeString(b, "*")
		return
	}
	b.WriteByte('{')
	sep := fieldWriter(b)
	for _, t := range []struct {
		name   string
		list   []string
		single Singles
	}{
		{"AWS", p.AWS, SingleAWS},
		{"CanonicalUser", p.CanonicalUser, SingleCanonicalUser},
		{"Federated", p.Federated, SingleFederated},
		{"Service", p.Service, SingleService},
	} {
		if len(t.list) > 0 {
			sep(t.name)
			writeList(b, t.list, p.Singles&t.single != 0)
		}
	}
	b.WriteByte('}')
}

// writeConditions writes the Condition block: one object per operator, in
// the order operators first appear.
func writeConditions(b *bytes.Buffer, conds []Condition) error {
	var ops []string
	byOp := map[string][]*Condition{}
	for i := range conds {
		c := &conds[i]
		if byOp[c.Operator] == nil {
			ops = append(ops, c.Operator)
		}
		for _, o := range byOp[c.Operator] {
			if o.Key == c.Key {
				return fmt.Errorf("condition key %s appears twice under %s; merge its values", c.Key, c.Operator)
			}
		}
		byOp[c.Operator] = append(byOp[c.Operator], c)
	}
	b.WriteByte('{')
	sep := fieldWriter(b)
	for _, op := range ops {
		sep(op)
		b.WriteByte('{')
		keySep := fieldWriter(b)
		for _, c := range byOp[op] {
			keySep(c.Key)
			c.writeValues(b)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

func (c *Condition) writeValues(b *bytes.Buffer) {
	single := c.Single && len(c.Values) == 1
	if !single {
		b.WriteByte('[')
	}
	for i, v := range c.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		if i < len(c.Unquoted) && c.Unquoted[i] && writeLiteral(b, v) {
			continue
		}
		writeString(b, v)
	}
	if !single {
		b.WriteByte(']')
	}
}

// writeLiteral writes v without quotes when it is a JSON number or boolean,
// and reports whether it did.
func writeLiteral(b *bytes.Buffer, v string) bool {
	if v == "true" || v == "false" {
		b.WriteString(v)
		return true
	}
	if v == "" {
		return false // encoding/json writes an empty json.Number as 0
	}
	// encoding/json checks a json.Number's syntax.
	text, err := json.Marshal(json.Number(v))
	if err != nil || len(text) == 0 {
		return false
	}
	b.Write(text)
	return true
}

// writeList writes one string, when the list has one and single is set, or
// an array.
func writeList(b *bytes.Buffer, list []string, single bool) {
	if single && len(list) == 1 {
		writeString(b, list[0])
		return
	}
	b.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, v)
	}
	b.WriteByte(']')
}

// writeString writes s as encoding/json does, so that text leash wrote with
// json.Marshal before keeps its bytes (and its size, which IAM's quotas
// measure).
func writeString(b *bytes.Buffer, s string) {
	text, _ := json.Marshal(s) // a string always marshals
	b.Write(text)
}

// fieldWriter returns a function that writes an object's next key, with the
// comma before every key but the first.
func fieldWriter(b *bytes.Buffer) func(key string) {
	first := true
	return func(key string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(b, key)
		b.WriteByte(':')
	}
}
