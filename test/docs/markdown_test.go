package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// shellLangs are the fence languages the runner runs; every other block
// (yaml, json, go, text) is read, not run.
var shellLangs = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true}

// block is one fenced block of a page.
type block struct {
	line      int    // 1-based line of the opening fence
	lang      string // the fence's language, "" for none
	lines     []string
	directive string // the text of a "<!-- docs-test: ... -->" just before the fence
	// output is the block shown right after a shell block (only blank lines
	// between), unlabelled or text: what the shell block prints.
	output *block
}

// command is one logical command of a shell block: its lines joined at
// trailing backslashes, the markdown line it starts on, the exit statuses its
// trailing comment names, and, in a console block, the output shown after it.
type command struct {
	text     string
	line     int
	wantExit []int
	shown    []string // output shown for it, console blocks only
	hasShown bool
	server   bool // a `leash local` start: run in the background until the page ends
}

var directiveRE = regexp.MustCompile(`^<!--\s*docs-test:\s*(.*?)\s*-->$`)

// parseBlocks returns the fenced blocks of a page, with the directive before
// each and the output block after each shell block.
func parseBlocks(text string) ([]*block, error) {
	lines := strings.Split(text, "\n")
	var blocks []*block
	directive := ""
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if m := directiveRE.FindStringSubmatch(trimmed); m != nil {
			directive = m[1]
			continue
		}
		if !strings.HasPrefix(trimmed, "```") {
			if trimmed != "" {
				directive = ""
			}
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		b := &block{line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), directive: directive}
		directive = ""
		closed := false
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "```" {
				closed = true
				break
			}
			l := lines[i]
			if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
				l = l[indent:]
			}
			b.lines = append(b.lines, l)
		}
		if !closed {
			return nil, fmt.Errorf("line %d: the block is never closed", b.line)
		}
		blocks = append(blocks, b)
	}

	// Pair each shell block with an output block right after it.
	for k, b := range blocks {
		if !shellLangs[b.lang] || k+1 == len(blocks) {
			continue
		}
		next := blocks[k+1]
		if next.lang != "" && next.lang != "text" || next.directive != "" {
			continue
		}
		if onlyBlank(lines[b.line+len(b.lines)+1 : next.line-1]) {
			b.output = next
		}
	}
	return blocks, nil
}

func onlyBlank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// exitRE reads the exit status a command's trailing comment promises:
// "# ImplicitDeny, exit 1", "# AccessDenied, exit status 254 (v2) or 255 (v1)".
var exitRE = regexp.MustCompile(`exit(?: status)? (\d+)(?: \([^)]*\))?(?: or (\d+))?`)

// commands splits a shell block into its commands. A console block's commands
// are its "$ " lines, and the lines after each up to the next are its output.
func (b *block) commands() []command {
	var cmds []command
	console := b.lang == "console"
	for i := 0; i < len(b.lines); i++ {
		l := b.lines[i]
		if console {
			if !strings.HasPrefix(l, "$ ") {
				if len(cmds) > 0 {
					c := &cmds[len(cmds)-1]
					c.shown = append(c.shown, l)
					c.hasShown = true
				}
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		c := command{line: b.line + 1 + i, wantExit: []int{0}}
		text := l
		for continues(text) && i+1 < len(b.lines) {
			i++
			text += "\n" + b.lines[i]
		}
		c.text = text
		if m := exitRE.FindStringSubmatch(trailingComment(text)); m != nil {
			c.wantExit = nil
			for _, s := range m[1:] {
				if n, err := strconv.Atoi(s); err == nil {
					c.wantExit = append(c.wantExit, n)
				}
			}
		}
		fields := strings.Fields(text)
		c.server = len(fields) >= 2 && fields[0] == "leash" && fields[1] == "local"
		cmds = append(cmds, c)
	}
	return cmds
}

// continues says whether a command goes on on the next line: after a
// backslash, or a pipe or && or || at the end of the line.
func continues(text string) bool {
	t := strings.TrimRight(text, " ")
	for _, end := range []string{"\\", "|", "&&"} {
		if strings.HasSuffix(t, end) {
			return true
		}
	}
	return false
}

// trailingComment is the " # ..." comment of a command's last line, if any.
// A "#" inside quotes is not one; the commands of these pages keep "#" out
// of their quoted arguments.
func trailingComment(text string) string {
	last := text[strings.LastIndex(text, "\n")+1:]
	if i := strings.Index(last, " # "); i >= 0 {
		return last[i+3:]
	}
	return ""
}
