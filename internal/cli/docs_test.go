package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// update rewrites the flag blocks of docs/*.md from the command tree, so
// a flag's new usage text reaches its page with
// `go test ./cli -run TestDocsFlags -update`.
var update = flag.Bool("update", false, "rewrite the flag blocks in docs/*.md from the command tree")

const (
	docsDir    = "../../docs"
	readmePath = "../../README.md"
)

// flagBlock finds a page's flag blocks: the command path in the opening
// marker, the text up to the closing one.
var flagBlock = regexp.MustCompile(`(?s)<!-- flags: ([^>]*?) -->\n(.*?)<!-- end flags -->`)

// renderFlags is a command's flags as `--help` prints them under "Flags:"
// (and "Global Flags:" for inherited ones), in a fenced block.
func renderFlags(cmd *cobra.Command) string {
	var b strings.Builder
	b.WriteString("```text\n")
	b.WriteString(cmd.LocalFlags().FlagUsages())
	if cmd.HasAvailableInheritedFlags() {
		b.WriteString("\nGlobal Flags:\n")
		b.WriteString(cmd.InheritedFlags().FlagUsages())
	}
	b.WriteString("```\n")
	return b.String()
}

// documentedCommands maps the command path of every command that runs (not
// the root or a group such as `leash creds`, nor cobra's help) to the
// command, with its help flag added as cobra adds it before printing help.
func documentedCommands() map[string]*cobra.Command {
	cmds := map[string]*cobra.Command{}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.Name() == "help" {
			return
		}
		cmd.InitDefaultHelpFlag()
		if cmd.Runnable() {
			cmds[cmd.CommandPath()] = cmd
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRoot())
	return cmds
}

func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in %s: %v", docsDir, err)
	}
	return pages
}

// topicMarker marks a page about a topic rather than a command (such as
// admission, served by leash operator): it holds no flag block, and the
// commands' own pages hold their flags.
const topicMarker = "<!-- topic: flags in "

// TestDocsFlagsMatchHelp keeps each command's page in step with --help: every
// command that runs has one flag block, in one page, holding its flags as
// cobra prints them; every page documents at least one command; and no block
// names a command that does not exist.
func TestDocsFlagsMatchHelp(t *testing.T) {
	cmds := documentedCommands()
	seen := map[string]string{}
	for _, page := range docPages(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		blocks := flagBlock.FindAllStringSubmatchIndex(text, -1)
		if len(blocks) == 0 && strings.Contains(text, topicMarker) {
			continue // a topic across commands, whose flags their pages hold
		}
		if len(blocks) == 0 {
			t.Errorf("%s names no command: it needs a <!-- flags: leash ... --> block", page)
			continue
		}
		var out strings.Builder
		last := 0
		for _, m := range blocks {
			path, body := text[m[2]:m[3]], text[m[4]:m[5]]
			out.WriteString(text[last:m[4]])
			last = m[5]
			cmd, ok := cmds[path]
			if !ok {
				t.Errorf("%s: flag block names %q, which is not a leash command that runs", page, path)
				out.WriteString(body)
				continue
			}
			if other, dup := seen[path]; dup {
				t.Errorf("%s: %q already has its flags in %s; one page holds them", page, path, other)
			}
			seen[path] = page
			want := renderFlags(cmd)
			out.WriteString(want)
			if body != want && !*update {
				t.Errorf("%s: the flags of %q differ from --help; run go test ./cli -run TestDocsFlags -update\n got:\n%s\nwant:\n%s", page, path, body, want)
			}
		}
		out.WriteString(text[last:])
		if *update && out.String() != text {
			if err := os.WriteFile(page, []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var missing []string
	for path := range cmds {
		if _, ok := seen[path]; !ok {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	for _, path := range missing {
		t.Errorf("%q has no page: add a <!-- flags: %s --> block to a page in docs/ (then -update fills it)", path, path)
	}
}

// markdownLink finds inline links and images; fenced code is removed first.
var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fencedCode   = regexp.MustCompile("(?ms)^```.*?^```")
)

// relativeLinks lists the targets of a page's links to files in this
// repository, without their #fragment.
func relativeLinks(text string) []string {
	var links []string
	for _, m := range markdownLink.FindAllStringSubmatch(fencedCode.ReplaceAllString(text, ""), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		if i := strings.IndexByte(target, '#'); i >= 0 {
			target = target[:i]
		}
		links = append(links, target)
	}
	return links
}

// TestDocsLinks keeps the README the way in: every page under docs/ is
// linked from it, and every relative link in it and in docs/ names a file or
// folder that exists.
func TestDocsLinks(t *testing.T) {
	pages := docPages(t)
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range relativeLinks(string(readme)) {
		linked[filepath.Clean(filepath.Join(filepath.Dir(readmePath), l))] = true
	}
	for _, page := range pages {
		if !linked[filepath.Clean(page)] {
			t.Errorf("%s is not linked from README.md", page)
		}
	}
	for _, file := range append([]string{readmePath}, pages...) {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(string(raw)) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), l)); err != nil {
				t.Errorf("%s links to %s, which does not exist", file, l)
			}
		}
	}
}
