// Package docs runs the commands of README.md and docs/ as a reader would.
//
// Every sh, shell, bash and console block of a page runs, in the page's
// order, in one bash, in a fresh folder that links the repository's top-level
// entries: the commands are written to run from the repository root, and what
// they write stays in that folder. `leash` on PATH is the binary of
// ./cmd/leash. A command `leash local …` starts in the background and is
// ready when its banner is printed; a page that reaches 127.0.0.1:4566
// without starting one gets one, as its reader has one running. Each command
// must exit 0, or the status its trailing comment names ("# …, exit 1").
// Output is compared where a page shows it: the lines after a console
// block's "$ " command, or an unlabelled or text block right after a shell
// block (the output of its last command), with IDs, account IDs, times and elapsed durations normalized, the
// run's folder shown as /home/me, and a line "..." standing for any lines.
//
// A block that needs a cluster or AWS is marked just before its fence with
// <!-- docs-test: skip WHY; covered by DIR TestName -->, and the test named
// must exist in DIR: it runs the same lines where they can run.
package docs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var testEnv env

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		return 0, err
	}
	bin, err := os.MkdirTemp("", "leash-docs-bin-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(bin) }()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "leash"), "./cmd/leash")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build ./cmd/leash: %v\n%s", err, out)
	}
	var goEnv []string
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			return 0, fmt.Errorf("go env %s: %v", k, err)
		}
		goEnv = append(goEnv, k+"="+strings.TrimSpace(string(out)))
	}
	testEnv = env{repo: repo, binDir: bin, goEnv: goEnv}
	return m.Run(), nil
}

// pages are README.md and every page under docs/.
func pages(t *testing.T) []string {
	t.Helper()
	list := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(testEnv.repo, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(testEnv.repo, path)
			list = append(list, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestDocs runs every page's commands; pages run one after another, since
// their leash local listens at the one address they write.
func TestDocs(t *testing.T) {
	for _, page := range pages(t) {
		t.Run(page, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(testEnv.repo, page))
			if err != nil {
				t.Fatal(err)
			}
			if blocks, err := parseBlocks(string(text)); err == nil {
				for _, b := range blocks {
					if shellLangs[b.lang] && b.directive != "" {
						t.Logf("%s:%d not run: %s", page, b.line, b.directive)
					}
				}
			}
			for _, p := range runPage(context.Background(), testEnv, page, string(text)) {
				t.Error(p)
			}
		})
	}
}

// TestRunnerReportsFailures runs the runner on a page with a failing command
// and a changed output: both are reported, naming the page, the line and the
// command, and a command whose comment promises its failure passes.
func TestRunnerReportsFailures(t *testing.T) {
	page := strings.Join([]string{
		"# broken", // 1
		"",         // 2
		"```sh",    // 3
		"leash simulate --identity examples/simulate/cloud-controller-manager.json --action iam:CreateUser   # ImplicitDeny, exit 1", // 4
		"echo hello", // 5
		"```",        // 6
		"",           // 7
		"```",        // 8
		"goodbye",    // 9
		"```",        // 10
		"",           // 11
		"```console", // 12
		"$ echo 2026-12-01T21:07:41Z arn:aws:iam::111122223333:user/alice",    // 13
		"<TIME> arn:aws:iam::999988887777:user/alice",                         // 14
		"$ leash simulate --identity no-such-file.json --action s3:GetObject", // 15
		"```", // 16
		"",    // 17
		"```sh",
		"echo never reached",
		"```",
	}, "\n")
	problems := runPage(context.Background(), testEnv, "broken.md", page)
	want := []*regexp.Regexp{
		regexp.MustCompile("(?s)^broken.md:5 \\(block at line 3\\): `echo hello` printed other than the output shown at line 8:.*goodbye.*hello"),
		regexp.MustCompile("(?s)^broken.md:15 \\(block at line 12\\): `leash simulate --identity no-such-file.json --action s3:GetObject` exited 2, want \\[0\\]"),
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i, re := range want {
		if !re.MatchString(problems[i]) {
			t.Errorf("problem %d:\n%s\ndoes not match %s", i, problems[i], re)
		}
	}
}

// TestSkipNamesAnExistingTest: a skip without a covering test, or naming one
// that is not there, is reported.
func TestSkipNamesAnExistingTest(t *testing.T) {
	page := strings.Join([]string{
		"<!-- docs-test: skip needs a cluster; covered by test/e2e TestNoSuchTestAnywhere -->",
		"```sh",
		"kubectl apply -k deploy/",
		"```",
		"<!-- docs-test: skip needs a cluster -->",
		"```sh",
		"kubectl apply -k deploy/",
		"```",
		"<!-- docs-test: skip needs a cluster; covered by test/e2e TestRevokeSeenThroughAWSCLI -->",
		"```sh",
		"kubectl apply -k deploy/",
		"```",
	}, "\n")
	problems := runPage(context.Background(), testEnv, "skips.md", page)
	if len(problems) != 2 || !strings.Contains(problems[0], "skips.md:2: the skip names TestNoSuchTestAnywhere") ||
		!strings.Contains(problems[1], "skips.md:6: directive") {
		t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
	}
}

// linkRE finds relative link targets; pathRE the backticked repository paths
// a page tells the reader to use.
var (
	linkRE = regexp.MustCompile(`\]\(([^)#:\s]+)(#[^)]*)?\)`)
	pathRE = regexp.MustCompile("`((?:examples|deploy|analyze/testdata)/[^`\\s]*)`")
)

// TestPagesNameShippedFiles: every relative link and every backticked path
// under examples/, deploy/ or analyze/testdata/ is in the repository.
func TestPagesNameShippedFiles(t *testing.T) {
	for _, page := range pages(t) {
		text, err := os.ReadFile(filepath.Join(testEnv.repo, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(text), -1) {
			target := filepath.Join(testEnv.repo, filepath.Dir(page), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", page, m[1])
			}
		}
		for _, m := range pathRE.FindAllStringSubmatch(string(text), -1) {
			if _, err := os.Stat(filepath.Join(testEnv.repo, m[1])); err != nil {
				t.Errorf("%s names `%s`, which is not in the repository", page, m[1])
			}
		}
	}
}
