package docs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// localAddr is where the pages' leash local listens, as they write it.
const localAddr = "127.0.0.1:4566"

// pageTimeout bounds one page's run, leash local and the AWS CLI included.
const pageTimeout = 10 * time.Minute

// env is what a page runs with: the repository it reads, the folder with the
// leash binary, and the Go caches to keep when HOME moves.
type env struct {
	repo   string
	binDir string
	goEnv  []string
}

// step is one command as the page's script runs it.
type step struct {
	command
	block *block
}

// skipRE is the one form of skip: why, and the test that runs the same lines
// where they can run ("covered by test/e2e TestRevokeRole").
var skipRE = regexp.MustCompile(`^skip (.+); covered by (\S+) (Test\w+)$`)

// runPage runs every shell block of a page, in order, in one bash, in a fresh
// folder holding links to the repository's top-level entries, and returns
// what failed: each naming the page, the block's line and the command.
func runPage(ctx context.Context, e env, page, text string) []string {
	blocks, err := parseBlocks(text)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", page, err)}
	}
	var problems []string
	var steps []step
	for _, b := range blocks {
		if !shellLangs[b.lang] {
			continue
		}
		if b.directive != "" {
			if p := checkSkip(e.repo, b.directive); p != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s", page, b.line, p))
			}
			continue
		}
		for _, c := range b.commands() {
			steps = append(steps, step{command: c, block: b})
		}
	}
	if len(steps) == 0 {
		return problems
	}
	if needsLocal(steps) {
		steps = append([]step{{command: command{text: "leash local --data ./leash-data", server: true, wantExit: []int{0}}}}, steps...)
	}
	return append(problems, runSteps(ctx, e, page, steps)...)
}

// needsLocal says whether the page talks to leash local without starting it:
// the runner then starts one, as the page's reader has one running.
func needsLocal(steps []step) bool {
	uses := false
	for _, s := range steps {
		if s.server {
			return false
		}
		if strings.Contains(s.text, localAddr) {
			uses = true
		}
	}
	return uses
}

// checkSkip checks a block's directive: a skip must name a test that exists.
func checkSkip(repo, directive string) string {
	m := skipRE.FindStringSubmatch(directive)
	if m == nil {
		return fmt.Sprintf("directive %q: write it as <!-- docs-test: skip WHY; covered by DIR TestName -->", directive)
	}
	dir, name := m[2], m[3]
	files, _ := filepath.Glob(filepath.Join(repo, dir, "*_test.go"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(src), "func "+name+"(") {
			return ""
		}
	}
	return fmt.Sprintf("the skip names %s in %s, and no func %s( is there", name, dir, name)
}

// script is the bash a page's steps run as. Each command runs in the shell
// itself (an export lasts for the page), its output to its own file and its
// exit status beside it; a status the page does not promise ends the run.
func script(steps []step, outDir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "set -o pipefail\n")
	// However the page's bash ends (done, failed, or told to stop because
	// the test itself is ending), it takes the leash local it started along.
	fmt.Fprintf(&b, "trap 'trap - TERM EXIT; kill -TERM 0 2>/dev/null' TERM EXIT\n")
	fmt.Fprintf(&b, `__wait_server() {
  for __i in $(seq 1200); do
    if grep -q 'Stop with Ctrl-C' "$1"; then cp "$1" "$1.banner"; return 0; fi
    kill -0 "$2" 2>/dev/null || { cp "$1" "$1.banner"; return 1; }
    sleep 0.1
  done
  return 1
}
`)
	for k, s := range steps {
		out := filepath.Join(outDir, strconv.Itoa(k))
		if s.server {
			text := s.text
			if c := trailingComment(text); c != "" {
				text = strings.TrimSuffix(text, " # "+c)
			}
			text = strings.TrimSuffix(strings.TrimSpace(text), "&")
			fmt.Fprintf(&b, "{ %s &\n} > %q 2>&1\n", text, out)
			fmt.Fprintf(&b, "__wait_server %q $!; echo $? > %q.status\n", out, out)
		} else {
			fmt.Fprintf(&b, "{ %s\n} > %q 2>&1\n", s.text, out)
			fmt.Fprintf(&b, "echo $? > %q.status\n", out)
		}
		var want []string
		for _, w := range s.wantExit {
			want = append(want, strconv.Itoa(w))
		}
		fmt.Fprintf(&b, "case $(cat %q.status) in %s) ;; *) exit 97;; esac\n", out, strings.Join(want, "|"))
	}
	return b.String()
}

// runSteps runs the script and reads back each command's status and output.
func runSteps(ctx context.Context, e env, page string, steps []step) []string {
	runDir, err := os.MkdirTemp("", "leash-docs-run-")
	if err != nil {
		return []string{err.Error()}
	}
	defer func() { _ = os.RemoveAll(runDir) }()
	outDir, err := os.MkdirTemp("", "leash-docs-out-")
	if err != nil {
		return []string{err.Error()}
	}
	defer func() { _ = os.RemoveAll(outDir) }()
	runDir, _ = filepath.EvalSymlinks(runDir)
	if err := linkRepo(e.repo, runDir); err != nil {
		return []string{err.Error()}
	}
	if usesLocal(steps) {
		if err := waitPortFree(localAddr, 15*time.Second); err != nil {
			return []string{fmt.Sprintf("%s: %v", page, err)}
		}
	}

	ctx, cancel := context.WithTimeout(ctx, pageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script(steps, outDir))
	cmd.Dir = runDir
	cmd.Env = append(cleanEnv(), e.goEnv...)
	cmd.Env = append(cmd.Env, "HOME="+runDir, "PATH="+e.binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Pdeathsig: if the test process dies (go test's -timeout), bash gets
	// SIGTERM and its trap ends the page's process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	stopGroup(cmd.Process.Pid)
	if usesLocal(steps) {
		_ = waitPortFree(localAddr, 15*time.Second)
	}

	var problems []string
	failed := false
	for k, s := range steps {
		out := filepath.Join(outDir, strconv.Itoa(k))
		statusText, err := os.ReadFile(out + ".status")
		if err != nil {
			break
		}
		var where string
		if s.block != nil {
			where = fmt.Sprintf("%s:%d (block at line %d)", page, s.line, s.block.line)
		} else {
			where = fmt.Sprintf("%s: the leash local the page's commands reach", page)
		}
		outFile := out
		if s.server {
			outFile = out + ".banner"
		}
		printed, _ := os.ReadFile(outFile)
		status, _ := strconv.Atoi(strings.TrimSpace(string(statusText)))
		if !contains(s.wantExit, status) {
			problems = append(problems, fmt.Sprintf("%s: `%s` exited %d, want %v; it printed:\n%s", where, s.text, status, s.wantExit, indent(string(printed))))
			failed = true
			break
		}
		if s.hasShown {
			if p := compare(s.shown, string(printed), runDir); p != "" {
				problems = append(problems, fmt.Sprintf("%s: `%s` printed other than the page shows:\n%s", where, s.text, p))
			}
		}
		if s.block != nil && s.block.output != nil && isLastOfBlock(steps, k) {
			if p := compare(s.block.output.lines, string(printed), runDir); p != "" {
				problems = append(problems, fmt.Sprintf("%s: `%s` printed other than the output shown at line %d:\n%s", where, s.text, s.block.output.line, p))
			}
		}
	}
	if !failed && runErr != nil {
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) || ctx.Err() != nil {
			problems = append(problems, fmt.Sprintf("%s: the page's commands did not finish: %v", page, runErr))
		}
	}
	return problems
}

func isLastOfBlock(steps []step, k int) bool {
	return k+1 == len(steps) || steps[k+1].block != steps[k].block
}

func usesLocal(steps []step) bool {
	for _, s := range steps {
		if s.server {
			return true
		}
	}
	return false
}

// compare returns "" when the printed output matches the shown, else both,
// normalized, for the report.
func compare(shown []string, printed, runDir string) string {
	want := normalize(strings.Join(shown, "\n"), "")
	got := normalize(printed, runDir)
	if matchOutput(want, got) {
		return ""
	}
	return "  the page shows:\n" + indent(strings.Join(want, "\n")) + "  it printed:\n" + indent(strings.Join(got, "\n"))
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (nothing)\n"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// linkRepo links each top-level entry of the repository into dir, so the
// pages' relative paths (examples/, analyze/testdata/, ./cmd/leash) resolve
// as from the repository root while what the commands write stays in dir.
func linkRepo(repo, dir string) error {
	entries, err := os.ReadDir(repo)
	if err != nil {
		return err
	}
	for _, en := range entries {
		name := en.Name()
		if strings.HasPrefix(name, ".") || name == "bin" || name == "dist" || name == "leash-data" {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// cleanEnv is the environment without AWS settings of this machine's user:
// the pages say which they set.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k := kv[:strings.Index(kv, "=")]
		if strings.HasPrefix(k, "AWS_") || k == "HOME" || k == "PATH" || k == "KUBECONFIG" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// stopGroup ends the page's process group: a leash local the page started in
// the background included.
func stopGroup(pid int) {
	if syscall.Kill(-pid, syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// waitPortFree waits until nothing listens at addr: the pages' leash local
// has a fixed address, so one page's must be gone before the next starts.
func waitPortFree(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return nil
		}
		_ = c.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("something else listens at %s, where the pages' leash local must: stop it and run again", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
