package pictures

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"leash.dev/leash/internal/cli"
)

// repoRoot is the repository's root, two floors up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// checkImages runs leash for each picture images/pictures.txt lists, from
// the repository root, and returns what is stale in images.
func checkImages(t *testing.T, images string) []error {
	t.Helper()
	list, err := os.ReadFile(filepath.Join(images, "pictures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pics, err := ParseList(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(pics) == 0 {
		t.Fatal("pictures.txt lists no picture")
	}
	var errs []error
	for _, p := range pics {
		var out, stderr bytes.Buffer
		if code := cli.Run(context.Background(), p.Args, strings.NewReader(""), &out, &stderr); code != cli.ExitOK {
			t.Fatalf("leash %s: exit %d: %s", strings.Join(p.Args, " "), code, stderr.String())
		}
		dot, err := os.ReadFile(filepath.Join(images, p.Dot))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckDot(p.Dot, dot, out.Bytes()); err != nil {
			errs = append(errs, err)
		}
		svg, err := os.ReadFile(filepath.Join(images, p.SVG()))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckSVG(p.Dot, dot, svg); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func TestPicturesAreCurrent(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root) // pictures.txt's paths are the root's
	for _, err := range checkImages(t, filepath.Join(root, "docs", "images")) {
		t.Error(err)
	}
}

// TestStalePicturesAreFound edits a copy of docs/images as a slip would,
// and checks that the same check finds each slip.
func TestStalePicturesAreFound(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	edit := func(file string, f func(string) string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			changed := f(string(b))
			if changed == string(b) {
				t.Fatalf("the edit of %s changed nothing", file)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	frankEdge := regexp.MustCompile(`(?m)^.*user/frank" -> .*\n`)
	cases := []struct {
		name  string
		edit  func(t *testing.T, dir string)
		wants []string // each error, in order
	}{
		{name: "an unchanged copy is current"},
		{
			name: "a .dot edited by hand is stale, and so is the .svg rendered from the old one",
			edit: edit("who-can.dot", func(s string) string { return frankEdge.ReplaceAllString(s, "") }),
			wants: []string{`who-can.dot is stale: line 26 is "}", leash now prints "  \"arn:aws:iam::111122223333:user/frank\" -> `,
				"who-can.svg was rendered from who-can.dot sha256:"},
		},
		{
			name: "a .dot leash now draws differently is stale",
			edit: edit("who-can.dot", func(s string) string {
				return strings.Replace(s, `[label="sts:AssumeRole"]`, `[label="sts:AssumeRoleWithWebIdentity"]`, 1)
			}),
			wants: []string{"who-can.dot is stale: line 17", "who-can.svg was rendered from who-can.dot sha256:"},
		},
		{
			name: "an .svg rendered from another .dot is stale",
			edit: edit("who-can.svg", func(s string) string {
				return regexp.MustCompile(`sha256:[0-9a-f]{64}`).ReplaceAllString(s, "sha256:"+strings.Repeat("0", 64))
			}),
			wants: []string{"who-can.svg was rendered from who-can.dot sha256:0000"},
		},
		{
			name:  "an .svg rendered by hand, with no source comment, is refused",
			edit:  edit("who-can.svg", func(s string) string { return regexp.MustCompile(`<!-- rendered from .*-->\n`).ReplaceAllString(s, "") }),
			wants: []string{"who-can.svg has no comment naming its source's SHA-256"},
		},
		{
			name:  "an .svg lacking a node of its .dot is stale",
			edit:  edit("who-can.svg", func(s string) string { return strings.ReplaceAll(s, ">user/frank<", ">user/fred<") }),
			wants: []string{`who-can.svg draws no node "user/frank" of who-can.dot`},
		},
		{
			name: "an .svg that is not an SVG document is refused",
			edit: edit("who-can.svg", func(s string) string {
				i := strings.Index(s, "<!DOCTYPE")
				return s[:i] + "<html><body>who-can</body></html>\n"
			}),
			wants: []string{`who-can.svg: not an SVG document (root element "html")`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "docs", "images"))); err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(t, dir)
			}
			errs := checkImages(t, dir)
			if len(errs) != len(tc.wants) {
				t.Fatalf("got %d errors %v, want %d: %q", len(errs), errs, len(tc.wants), tc.wants)
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tc.wants[i]) {
					t.Errorf("error %d is %q, want it to contain %q", i, err, tc.wants[i])
				}
			}
		})
	}
}

// pagesWithPictures are the pages that must keep at least one Mermaid
// picture.
var pagesWithPictures = []string{"docs/architecture.md", "docs/local.md", "docs/revoke.md", "docs/sts.md"}

func TestMermaidBlocksRender(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	found := map[string]int{}
	for _, page := range pages {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		blocks, err := MermaidBlocks(filepath.ToSlash(rel), string(md))
		if err != nil {
			t.Error(err)
		}
		for _, b := range blocks {
			found[b.File]++
			if err := CheckMermaid(b); err != nil {
				t.Error(err)
			}
		}
	}
	for _, page := range pagesWithPictures {
		if found[page] == 0 {
			t.Errorf("%s has no ```mermaid picture", page)
		}
	}
}

// TestMermaidCheckCatchesSlips pins what CheckMermaid accepts and refuses.
// Mermaid 11's own parser (mermaid.parse) gives the same verdict on each
// case but the tab, which it takes and the pages do not use.
func TestMermaidCheckCatchesSlips(t *testing.T) {
	cases := []struct {
		name, text, want string // want "" accepts
	}{
		{name: "a flowchart with a subgraph, quoted labels and edge text is accepted",
			text: "flowchart LR\n  subgraph cluster [\"in the cluster\"]\n    A[\"request (v1)\"] -->|writes| B[(Secret)]\n  end\n  B -.-> C{{\"pod\"}}\n"},
		{name: "a sequence diagram with alt, else and notes is accepted",
			text: "sequenceDiagram\n  participant P as pod\n  P->>STS: AssumeRoleWithWebIdentity(token)\n  alt trusted\n    STS-->>P: session\n  else refused\n    STS-->>P: AccessDenied\n  end\n  Note over P: retries [with backoff]\n"},
		{name: "a state diagram with a composite state across lines is accepted",
			text: "stateDiagram-v2\n  [*] --> Locked\n  state Locked {\n    keys --> sweep\n  }\n  Locked --> [*]\n"},
		{name: "a timeline is accepted", text: "timeline\n  title revoke\n  lockout : put LeashRevokeInProgress\n"},
		{name: "comments and blank lines before the type are skipped", text: "%% the modes\n\nflowchart TD\n  A --> B\n"},
		{name: "an unknown diagram type is refused", text: "flowchar LR\n  A --> B\n", want: `"flowchar" is not a diagram type`},
		{name: "an unknown flowchart direction is refused", text: "flowchart LEFT\n  A --> B\n", want: `direction "LEFT"`},
		{name: "a tab is refused, as the pages indent with spaces", text: "flowchart LR\n\tA --> B\n", want: "x.md:12: mermaid: a tab"},
		{name: "an unclosed bracket is refused", text: "flowchart LR\n  A[request --> B\n", want: `'[' not closed`},
		{name: "a bracket closing the wrong one is refused", text: "flowchart LR\n  A(request] --> B\n", want: `']' closes nothing`},
		{name: "an unclosed quote is refused", text: "flowchart LR\n  A[\"request] --> B\n", want: "an unclosed double quote"},
		{name: "brackets inside quotes do not count", text: "flowchart LR\n  A[\"f(x\"] --> B\n"},
		{name: "a subgraph without end is refused", text: "flowchart LR\n  subgraph s\n    A --> B\n", want: "1 block(s) (subgraph) not closed by end"},
		{name: "an end that closes nothing is refused", text: "sequenceDiagram\n  A->>B: hi\n  end\n", want: `"end" closes nothing`},
		{name: "an open composite state is refused", text: "stateDiagram-v2\n  state Locked {\n    a --> b\n", want: `1 "{" not closed`},
		{name: "an empty block is refused", text: "\n", want: "an empty block"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMermaid(Mermaid{File: "x.md", Line: 10, Text: tc.text})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted; want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMermaidBlocksAreFound(t *testing.T) {
	md := "# page\n\n```sh\necho '```mermaid'\n```\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n````\nnot a fence end\n````\n"
	blocks, err := MermaidBlocks("p.md", md)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 || blocks[0].Line != 7 || blocks[0].Text != "flowchart LR\n  A --> B\n" {
		t.Fatalf("got %+v, want the one block at line 7", blocks)
	}
	if _, err := MermaidBlocks("p.md", "```mermaid\nflowchart LR\n"); err == nil || !strings.Contains(err.Error(), "p.md:1: the ```mermaid block is never closed") {
		t.Fatalf("an unclosed block: got %v", err)
	}
}
