// The deep shape: many small documents a request (identity policies, SCPs
// on many levels, RCPs), non-ASCII text in object keys, names, tag values
// and condition values, and the JSON written four ways: as encoding/json
// writes it, with every "/" and non-ASCII character escaped, spaced out as
// an indenting printer leaves it (on one line), or both: three lines in
// eight each of the first two, one in eight each of the others.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"unicode/utf8"
)

// folders are S3 key prefixes, most of them not ASCII.
var folders = []string{"données", "日本語", "отчёты", "naïve café", "data", "ümlaut/straße", "emoji-🚀"}

// tagValues are values of the principal tags, some not ASCII.
var tagValues = []string{"équipe-α", "データ", "platform", "команда", "data-ß"}

// deepGen draws deep requests; the pools are the documents shared.
type deepGen struct {
	r        *rand.Rand
	identity []named
	scps     []named
}

func newDeep(seed uint64) *deepGen {
	g := &deepGen{r: rand.New(rand.NewPCG(seed, 0x64656570))}
	for i := range 3000 {
		g.identity = append(g.identity, named{Name: fmt.Sprintf("géré-%d", i), Document: g.identityDoc(pick(g.r, actions))})
	}
	for i := range 200 {
		g.scps = append(g.scps, named{Name: fmt.Sprintf("scp-%d", i), Document: g.scpDoc()})
	}
	return g
}

func (g *deepGen) objectKey() string {
	r := g.r
	return fmt.Sprintf("arn:aws:s3:::bucket-%d/%s/rapport-%d.csv", r.IntN(20), pick(r, folders), r.IntN(100))
}

// pattern is a Resource pattern, for S3 often on a non-ASCII prefix,
// sometimes with ? standing for one non-ASCII character.
func (g *deepGen) pattern(a action) string {
	r := g.r
	if a.service != "s3" {
		return a.pattern(r)
	}
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("arn:aws:s3:::bucket-%d/%s/*", r.IntN(20), pick(r, folders))
	case 1:
		return "arn:aws:s3:::bucket-*/donn?es/*"
	case 2:
		return fmt.Sprintf("arn:aws:s3:::bucket-%d/*/rapport-%d*", r.IntN(20), r.IntN(10))
	}
	return a.pattern(r)
}

// statement is one small statement: single values mostly.
func (g *deepGen) statement(a action) statement {
	r := g.r
	s := statement{Effect: "Allow", Action: a.name, Resource: g.pattern(a)}
	if r.IntN(5) == 0 {
		s.Effect = "Deny"
	}
	if r.IntN(3) == 0 {
		s.Action = []string{a.name, a.service + ":List*"}
	}
	switch r.IntN(6) {
	case 0:
		s.Condition = map[string]any{"StringEquals": map[string]any{"aws:PrincipalTag/équipe": pick(r, tagValues)}}
	case 1:
		s.Condition = map[string]any{"StringLike": map[string]any{"aws:PrincipalTag/projet": []string{"proj-?-*", "Å*"}}}
	case 2:
		s.Condition = map[string]any{"StringNotEquals": map[string]any{"aws:RequestedRegion": some(r, regions, 3)}}
	}
	return s
}

// identityDoc is one or two statements, the Statement sometimes one object
// and the Version sometimes left out.
func (g *deepGen) identityDoc(a action) any {
	r := g.r
	version := "2012-10-17"
	if r.IntN(6) == 0 {
		version = ""
	}
	if r.IntN(3) == 0 {
		return &lone{Version: version, Statement: g.statement(a)}
	}
	d := &document{Version: version}
	for range 1 + r.IntN(2) {
		d.Statement = append(d.Statement, g.statement(a))
	}
	return d
}

// scpDoc is a small SCP: an allow list, or a deny of one action or of a
// non-ASCII prefix.
func (g *deepGen) scpDoc() any {
	r := g.r
	switch r.IntN(4) {
	case 0:
		return &document{Version: "2012-10-17", Statement: []statement{{Effect: "Allow", Action: some(r, []string{"s3:*", "sqs:*", "dynamodb:*", "ec2:*", "logs:*"}, 5), Resource: "*"}}}
	case 1:
		return &lone{Version: "2012-10-17", Statement: statement{Effect: "Deny", Action: pick(r, actions).name, Resource: "*"}}
	case 2:
		return &lone{Version: "2012-10-17", Statement: statement{Effect: "Deny", Action: "s3:*",
			Resource: fmt.Sprintf("arn:aws:s3:::bucket-%d/%s/*", r.IntN(20), pick(r, folders))}}
	}
	return &document{Version: "2012-10-17", Statement: []statement{{Effect: "Deny", NotAction: []string{"iam:*", "sts:*"}, Resource: "*",
		Condition: map[string]any{"StringNotEquals": map[string]any{"aws:RequestedRegion": some(r, regions, 4)}}}}}
}

func (g *deepGen) request(i int) request {
	r := g.r
	a := pick(r, actions)
	if r.IntN(2) == 0 {
		a = actions[r.IntN(3)] // S3, for its non-ASCII keys
	}
	req := request{
		Principal: fmt.Sprintf("arn:aws:sts::%s:assumed-role/app-%d/session-%d", account, r.IntN(100), i),
		Action:    a.name,
		Resource:  a.arn(r),
		Context: map[string]any{
			"aws:RequestedRegion":     pick(r, regions),
			"aws:SecureTransport":     r.IntN(8) != 0,
			"aws:SourceIp":            fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254)),
			"aws:PrincipalTag/équipe": pick(r, tagValues),
			"aws:PrincipalTag/projet": pick(r, []string{"proj-é-1", "Åland", "proj-x-2", "autre"}),
		},
	}
	if a.service == "s3" {
		req.Resource = g.objectKey()
	}
	for k := range 3 + r.IntN(4) {
		if r.IntN(4) == 0 {
			req.IdentityPolicies = append(req.IdentityPolicies, pick(r, g.identity))
			continue
		}
		// A fair share of the request's own policies are about its action.
		b := pick(r, actions)
		if r.IntN(3) == 0 {
			b = a
		}
		d := g.identityDoc(b)
		if r.IntN(6) == 0 {
			d = &lone{Version: "2012-10-17", Statement: statement{Effect: "Allow", Action: a.name, Resource: req.Resource}}
		}
		req.IdentityPolicies = append(req.IdentityPolicies, named{Name: fmt.Sprintf("politique-%d-%d-ç", i, k), Document: d})
	}
	if r.IntN(2) == 0 {
		req.PermissionsBoundary = &lone{Version: "2012-10-17", Statement: statement{Effect: "Allow", Action: []string{a.service + ":*", "logs:*"}, Resource: "*"}}
	}
	levels := [][]named{{{Name: "FullAWSAccess", Document: fullAccess()}}}
	for range 4 + r.IntN(3) {
		level := []named{{Name: "FullAWSAccess", Document: fullAccess()}}
		if r.IntN(6) == 0 {
			level = nil
		}
		for range r.IntN(2) {
			level = append(level, pick(r, g.scps))
		}
		if len(level) == 0 {
			level = []named{{Name: "FullAWSAccess", Document: fullAccess()}}
		}
		levels = append(levels, level)
	}
	req.SCPs = levels
	if r.IntN(2) == 0 {
		for l := range 2 + r.IntN(2) {
			level := []named{{Name: fmt.Sprintf("rcp-tls-%d", l), Document: &lone{Version: "2012-10-17", Statement: statement{
				Effect: "Deny", Principal: "*", Action: []string{"s3:*", "sqs:*"}, Resource: "*",
				Condition: map[string]any{"BoolIfExists": map[string]any{"aws:SecureTransport": "false"}}}}}}
			if r.IntN(2) == 0 {
				level = append(level, named{Name: fmt.Sprintf("rcp-%d", l), Document: &lone{Version: "2012-10-17", Statement: statement{
					Effect: "Deny", Principal: "*", Action: "s3:*", Resource: fmt.Sprintf("arn:aws:s3:::bucket-%d/%s/*", r.IntN(20), pick(r, folders)),
					Condition: map[string]any{"StringNotEqualsIfExists": map[string]any{"aws:PrincipalTag/équipe": pick(r, tagValues)}}}}})
			}
			req.RCPs = append(req.RCPs, level)
		}
	}
	return req
}

// rewrite writes a line one of four ways, drawn at random.
func (g *deepGen) rewrite(line []byte) []byte {
	mode := []int{0, 0, 0, 1, 1, 1, 2, 3}[g.r.IntN(8)]
	if mode&1 != 0 {
		line = escapeStrings(line)
	}
	if mode&2 != 0 {
		var b bytes.Buffer
		if json.Indent(&b, line, "", " ") == nil {
			// Indenting puts newlines only between tokens: drop them,
			// keeping one request a line.
			line = bytes.ReplaceAll(b.Bytes(), []byte("\n"), nil)
		}
	}
	return line
}

// escapeStrings rewrites every "/" inside a string as \/ and every
// non-ASCII character as \u escapes (a pair of them beyond the BMP), as
// some JSON writers do.
func escapeStrings(line []byte) []byte {
	out := make([]byte, 0, len(line)+len(line)/4)
	in := false
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case !in:
			in = c == '"'
			out = append(out, c)
			i++
		case c == '\\':
			out = append(out, line[i], line[i+1])
			i += 2
		case c == '"':
			in = false
			out = append(out, c)
			i++
		case c == '/':
			out = append(out, '\\', '/')
			i++
		case c >= 0x80:
			r, n := utf8.DecodeRune(line[i:])
			if r > 0xffff {
				r -= 0x10000
				out = fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				out = fmt.Appendf(out, `\u%04X`, r)
			}
			i += n
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}
