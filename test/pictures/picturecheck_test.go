// Package pictures checks that the pictures in the docs are current with
// their sources, without Graphviz or a browser: a Graphviz picture leash
// draws (docs/images/pictures.txt lists them) must be leash's output byte
// for byte, and its .svg must have been rendered from that .dot (make
// pictures writes the .dot's SHA-256 into the .svg); a Mermaid block in the
// markdown must be well formed enough for GitHub to render it.
package pictures

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
)

// Picture is one line of docs/images/pictures.txt: a .dot file and the
// leash arguments that print it.
type Picture struct {
	// Dot is the file's name under docs/images, such as who-can.dot.
	Dot string
	// Args are leash's arguments, run from the repository root.
	Args []string
}

// SVG is the name of the picture rendered from the .dot.
func (p Picture) SVG() string { return strings.TrimSuffix(p.Dot, ".dot") + ".svg" }

// ParseList reads pictures.txt: blank lines and # comments are skipped;
// the arguments are split on spaces, so none may hold one.
func ParseList(text []byte) ([]Picture, error) {
	var out []Picture
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if !strings.HasSuffix(fields[0], ".dot") || strings.Contains(fields[0], "/") || len(fields) < 2 {
			return nil, fmt.Errorf("pictures.txt line %d: want NAME.dot then leash's arguments, such as who-can.dot who-can ... --output dot", n)
		}
		out = append(out, Picture{Dot: fields[0], Args: fields[1:]})
	}
	return out, sc.Err()
}

// CheckDot compares the checked-in .dot with what leash prints now, and
// names the first line that differs.
func CheckDot(name string, have, leash []byte) error {
	if bytes.Equal(have, leash) {
		return nil
	}
	h, l := strings.Split(string(have), "\n"), strings.Split(string(leash), "\n")
	for i := 0; i < max(len(h), len(l)); i++ {
		var hl, ll string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(l) {
			ll = l[i]
		}
		if hl != ll {
			return fmt.Errorf("%s is stale: line %d is %q, leash now prints %q; run make pictures", name, i+1, hl, ll)
		}
	}
	return fmt.Errorf("%s is stale: it differs from leash's output; run make pictures", name)
}

// sourceSum is the comment make pictures puts in the .svg.
var sourceSum = regexp.MustCompile(`<!-- rendered from (\S+) sha256:([0-9a-f]{64}) `)

// nodeLabel is a node's label in a .dot leash writes.
var nodeLabel = regexp.MustCompile(`(?m)^\s+"(?:[^"\\]|\\.)*" \[(?:label="((?:[^"\\]|\\.)*)"|shape=\w+)\];$`)

// CheckSVG says whether svg was rendered from dot: its comment names the
// .dot and carries its SHA-256, it is an SVG document, and each node
// label of the .dot is a text of the drawing.
func CheckSVG(dotName string, dot, svg []byte) error {
	svgName := strings.TrimSuffix(dotName, ".dot") + ".svg"
	m := sourceSum.FindSubmatch(svg)
	if m == nil {
		return fmt.Errorf("%s has no comment naming its source's SHA-256; render it with make pictures", svgName)
	}
	sum := sha256.Sum256(dot)
	if string(m[1]) != dotName || string(m[2]) != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("%s was rendered from %s sha256:%s, not from the %s checked in (sha256:%x): it is stale; run make pictures", svgName, m[1], m[2], dotName, sum)
	}
	texts, err := svgTexts(svg)
	if err != nil {
		return fmt.Errorf("%s: %w; render it with make pictures", svgName, err)
	}
	for _, l := range nodeLabel.FindAllSubmatch(dot, -1) {
		if label := unquoteDot(string(l[1])); l[1] != nil && !texts[label] {
			return fmt.Errorf("%s draws no node %q of %s: it is stale; run make pictures", svgName, label, dotName)
		}
	}
	return nil
}

func unquoteDot(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}

// svgTexts parses an SVG document and returns the set of its text
// elements' contents.
func svgTexts(svg []byte) (map[string]bool, error) {
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = false // the DOCTYPE names a DTD that is not fetched
	texts := map[string]bool{}
	root, inText := "", false
	for {
		tok, err := d.Token()
		if err != nil {
			if root != "svg" {
				return nil, fmt.Errorf("not an SVG document (root element %q)", root)
			}
			return texts, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
			}
			inText = t.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts[string(t)] = true
			}
		}
	}
}
