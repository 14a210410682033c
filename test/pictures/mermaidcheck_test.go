package pictures

import (
	"fmt"
	"slices"
	"strings"
)

// Mermaid is one ```mermaid block of a markdown file.
type Mermaid struct {
	File string
	// Line is the line of the opening fence.
	Line int
	Text string
}

// MermaidBlocks returns the ```mermaid blocks of a markdown file; a block
// whose fence is never closed is an error, as GitHub would show it as text.
func MermaidBlocks(file, md string) ([]Mermaid, error) {
	var out []Mermaid
	var cur *Mermaid
	fence := "" // the open fence's backticks, "" outside one
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		ticks := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		switch {
		case fence == "" && ticks >= 3:
			fence = trimmed[:ticks]
			if strings.TrimSpace(trimmed[ticks:]) == "mermaid" {
				cur = &Mermaid{File: file, Line: i + 1}
			}
		case fence != "" && ticks >= len(fence) && ticks == len(trimmed):
			if cur != nil {
				out = append(out, *cur)
			}
			fence, cur = "", nil
		case cur != nil:
			cur.Text += line + "\n"
		}
	}
	if cur != nil {
		return out, fmt.Errorf("%s:%d: the ```mermaid block is never closed", file, cur.Line)
	}
	return out, nil
}

// diagrams are the Mermaid diagram types GitHub renders, with the words
// that open a block closed by a line "end" in each.
var diagrams = map[string][]string{
	"flowchart":       {"subgraph"},
	"graph":           {"subgraph"},
	"sequenceDiagram": {"loop", "alt", "opt", "par", "critical", "break", "rect", "box"},
	"stateDiagram-v2": nil,
	"stateDiagram":    nil,
	"timeline":        nil,
	"classDiagram":    nil,
	"erDiagram":       nil,
	"gantt":           nil,
	"journey":         nil,
	"gitGraph":        nil,
	"mindmap":         nil,
	"pie":             nil,
}

var directions = []string{"TB", "TD", "BT", "RL", "LR"}

// CheckMermaid says whether a block is well formed enough to render: a
// known diagram type on its first line (with a known direction for a
// flowchart), no tab (Mermaid takes tabs, but indentation decides the
// structure of some diagrams, such as mindmaps, and a tab has no one
// width: the pages indent with spaces), on each line balanced (), [] and {} outside balanced
// double quotes (a line ending in "{" may open a block a line "}" closes,
// as a composite state does), and each subgraph, loop, alt and the like
// closed by "end". It is no Mermaid parser: a block it passes may still
// be refused by one, but the usual slips (an unclosed bracket or quote, a
// missing end, a tab, a misspelt type) are caught. The asymmetric node
// shape id>text] fails it; use another shape.
func CheckMermaid(m Mermaid) error {
	at := func(n int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: mermaid: %s", m.File, m.Line+n, fmt.Sprintf(format, args...))
	}
	lines := strings.Split(strings.TrimRight(m.Text, "\n"), "\n")
	kind := ""
	var openers []string
	ends, braces := 0, 0
	for i, line := range lines {
		n := i + 1
		if strings.Contains(line, "\t") {
			return at(n, "a tab; indent with spaces")
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "%%") {
			continue
		}
		words := strings.Fields(trimmed)
		if kind == "" {
			if _, ok := diagrams[words[0]]; !ok {
				return at(n, "%q is not a diagram type GitHub renders; start with flowchart LR, sequenceDiagram, stateDiagram-v2, timeline, …", words[0])
			}
			kind, openers = words[0], diagrams[words[0]]
			if (kind == "flowchart" || kind == "graph") && len(words) > 1 && !slices.Contains(directions, words[1]) {
				return at(n, "direction %q: use TB, TD, BT, RL or LR", words[1])
			}
			continue
		}
		switch {
		case slices.Contains(openers, words[0]):
			ends++
		case trimmed == "end":
			if ends == 0 {
				return at(n, `"end" closes nothing`)
			}
			ends--
		case trimmed == "}" && braces > 0:
			braces--
			continue
		}
		open, err := balanced(trimmed)
		if err != nil {
			return at(n, "%v in %q", err, trimmed)
		}
		braces += open
	}
	switch {
	case kind == "":
		return at(1, "an empty block; give a diagram type and its content")
	case ends > 0:
		return at(len(lines), "%d block(s) (%s) not closed by end", ends, strings.Join(openers, ", "))
	case braces > 0:
		return at(len(lines), `%d "{" not closed by a line "}"`, braces)
	}
	return nil
}

// balanced checks one line's brackets and double quotes; it returns 1 when
// the line ends by opening a brace block, else 0.
func balanced(line string) (int, error) {
	var stack []rune
	quoted := false
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case r == ')' || r == ']' || r == '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return 0, fmt.Errorf("%q closes nothing it opened", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	switch {
	case quoted:
		return 0, fmt.Errorf("an unclosed double quote")
	case len(stack) == 1 && stack[0] == '{' && strings.HasSuffix(line, "{"):
		return 1, nil
	case len(stack) > 0:
		return 0, fmt.Errorf("%q not closed", stack[len(stack)-1])
	}
	return 0, nil
}
