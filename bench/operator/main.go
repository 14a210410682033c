// Command operator measures the credential operator at scale. It starts a
// real API server (kube-apiserver and etcd, through controller-runtime's
// envtest) with the CredentialsRequest CRD, leash local in this process, and
// `leash operator` as a process of its own against both, as it runs in a
// cluster. Then it creates N mint-mode CredentialsRequests at once and times
// how long it takes until every one is Ready, while sampling the operator's
// resident memory.
//
//	KUBEBUILDER_ASSETS="$(hack/envtest/build.sh)" go run ./bench/operator
//	go run ./bench/operator -n 200 -workers 8 -keep
//
// It prints PASS when all N were Ready within -target-time and the
// operator's peak resident set (VmHWM) stayed under -target-rss, and exits
// 1 on FAIL, 2 when it could not run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/bench/internal/procmem"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws"
)

// namespace holds the requests and their Secrets.
const namespace = "bench"

// options are the command's flags.
type options struct {
	n, workers, creators int
	timeout, poll        time.Duration
	targetTime           time.Duration
	targetRSS            float64 // MiB
	crdDir, leash        string
	keep                 bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	pass, err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "bench/operator:", err)
		os.Exit(2)
	case !pass:
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 1000, "number of CredentialsRequests to create")
	// The operator's default. A request's sync is a chain of about ten
	// calls over loopback (three of them bbolt commits, each with an fsync),
	// so a few workers per core keep the cores busy; on 2 cores, 8 already
	// does, and 16, 32 and 64 were no faster (bench/README.md).
	fs.IntVar(&o.workers, "workers", 8, "the operator's --workers")
	fs.IntVar(&o.creators, "creators", 16, "concurrent create calls")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up waiting for Ready after this long")
	// Each poll lists every request, status included: a cost to the API
	// server and to this process that the operator does not see.
	fs.DurationVar(&o.poll, "poll", 250*time.Millisecond, "how often to list the requests to count the Ready ones")
	fs.DurationVar(&o.targetTime, "target-time", 60*time.Second, "time to all Ready that passes")
	fs.Float64Var(&o.targetRSS, "target-rss", 150, "peak resident set of the operator, in MiB, that passes")
	fs.StringVar(&o.crdDir, "crd", "deploy/crd", "folder of the CredentialsRequest CRD")
	fs.StringVar(&o.leash, "leash", "", "leash binary to run; empty builds ./cmd/leash")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary folder (operator log, leash local's data, kubeconfig)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.n < 1 || o.workers < 1 || o.creators < 1 || o.poll <= 0 {
		return o, errors.New("-n, -workers, -creators and -poll must be positive")
	}
	return o, nil
}

// run sets everything up, measures, reports and tears down. pass is the
// verdict; err means the benchmark could not run.
func run(ctx context.Context, args []string, out io.Writer) (pass bool, err error) {
	o, err := parseFlags(args)
	if err != nil {
		return false, err
	}
	// The API server logs through controller-runtime's logger; without one
	// set, controller-runtime prints a warning with a stack trace.
	ctrllog.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "leash-bench-operator-")
	if err != nil {
		return false, err
	}
	defer func() {
		if o.keep {
			fmt.Fprintln(out, "kept", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}()

	bin, err := leashBinary(ctx, o.leash, dir)
	if err != nil {
		return false, err
	}
	api, err := startAPIServer(o.crdDir, dir)
	if err != nil {
		return false, err
	}
	defer api.stop()
	local, err := localaws.StartLoopback(localaws.Config{DataDir: filepath.Join(dir, "local")})
	if err != nil {
		return false, err
	}
	defer func() {
		if err := local.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "bench/operator: leash local:", err)
		}
	}()
	op, err := startOperator(ctx, bin, api.kubeconfig, local, o.workers, dir)
	if err != nil {
		return false, err
	}
	defer op.stop()
	if err := op.waitStarted(ctx, time.Minute); err != nil {
		return false, err
	}
	if err := api.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return false, err
	}

	fmt.Fprintf(out, "operator at scale: %d mint-mode CredentialsRequests, leash operator --workers %d, %d concurrent creates\n",
		o.n, o.workers, o.creators)
	fmt.Fprintf(out, "%s; nproc %d; load average %s; %s; operator log %s\n\n",
		time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), loadAverage(), runtime.Version(), op.logPath)
	m, err := measure(ctx, api, op, o, out)
	if err != nil {
		return false, err
	}
	return m.report(out, o), nil
}

// measurement is what one run found.
type measurement struct {
	n            int
	created      time.Duration // from the first create sent to the last answered
	ready        time.Duration // from the first create sent to all Ready
	readyCount   int
	timedOut     bool
	startRSS     uint64 // the operator's, in bytes, before the first create
	maxRSS, hwm  uint64
	loadAverage  string // at the end, for a shared machine
	cpu          []processCPU
	iamCalls     map[string]float64 // by operation
	iamNotOK     map[string]float64 // by result code other than OK
	reconciles   map[string]float64 // by result
	restRequests map[string]float64 // the operator's API requests, by HTTP code
}

// measure creates the requests, waits for them and gathers the figures.
func measure(ctx context.Context, api *apiServer, op *operatorProcess, o options, out io.Writer) (measurement, error) {
	m := measurement{n: o.n}
	sampler := op.sampleMemory(100 * time.Millisecond)
	procs := []proc{{"leash operator", op.cmd.Process.Pid}}
	procs = append(procs, api.processes()...)
	procs = append(procs, proc{"this process (leash local, creates, polls)", os.Getpid()})
	cpuBefore := cpuTimes(procs)
	m.startRSS, _ = procmem.Of(op.cmd.Process.Pid)

	start := time.Now() // the clock starts as the first create is sent
	created := make(chan createResult, 1)
	go func() {
		err := createRequests(ctx, api.Client, o.n, o.creators)
		created <- createResult{time.Since(start), err}
	}()
	w, err := waitReady(ctx, api.Client, op, o, start, created, out, sampler)
	m.ready, m.readyCount, m.created = time.Since(start), w.ready, w.created
	if err != nil && !errors.Is(err, errTimedOut) {
		sampler.stop()
		return m, err
	}
	m.timedOut = err != nil
	m.cpu = cpuDeltas(procs, cpuBefore, cpuTimes(procs))
	m.loadAverage = loadAverage()
	m.maxRSS = sampler.stop()
	_, m.hwm = procmem.Of(op.cmd.Process.Pid)

	text, err := op.metrics(ctx)
	if err != nil {
		return m, fmt.Errorf("read the operator's metrics: %w", err)
	}
	m.iamCalls = sumBy(text, "leash_iam_calls_total", "operation", nil)
	m.iamNotOK = sumBy(text, "leash_iam_calls_total", "code", func(l map[string]string) bool { return l["code"] != "OK" })
	m.reconciles = sumBy(text, "controller_runtime_reconcile_total", "result", nil)
	// client-go counts every client of the process: Events included.
	m.restRequests = sumBy(text, "rest_client_requests_total", "code", nil)
	return m, nil
}

// errTimedOut means -timeout passed before every request was Ready.
var errTimedOut = errors.New("timed out")

// createResult is when the last create was answered, and the first error.
type createResult struct {
	after time.Duration
	err   error
}

// waited is what waitReady saw: how many requests were Ready at the end,
// and when all were created (0 if not seen).
type waited struct {
	ready   int
	created time.Duration
}

// waitReady lists the requests every -poll until all are Ready, printing
// progress every 5 s.
func waitReady(ctx context.Context, c client.Client, op *operatorProcess, o options, start time.Time,
	created <-chan createResult, out io.Writer, mem *memorySampler) (waited, error) {
	tick := time.NewTicker(o.poll)
	defer tick.Stop()
	nextProgress := start.Add(5 * time.Second)
	var w waited
	for {
		select {
		case <-ctx.Done():
			return w, ctx.Err()
		case err := <-op.exited:
			return w, fmt.Errorf("the operator exited (%v); see %s", err, op.logPath)
		case res := <-created:
			if res.err != nil {
				return w, fmt.Errorf("create: %w", res.err)
			}
			w.created = res.after
			created = nil // received once; a nil channel is never ready again
		case now := <-tick.C:
			n, err := countReady(ctx, c)
			if err != nil {
				return w, fmt.Errorf("list: %w", err)
			}
			w.ready = n
			if w.ready >= o.n {
				if created != nil { // all exist, so the creates are answered
					w.created = (<-created).after
				}
				return w, nil
			}
			if now.After(nextProgress) {
				fmt.Fprintf(out, "%6.1fs  %4d Ready  operator RSS %s\n", now.Sub(start).Seconds(), w.ready, mib(mem.last()))
				nextProgress = nextProgress.Add(5 * time.Second)
			}
			if now.Sub(start) > o.timeout {
				return w, errTimedOut
			}
		}
	}
}

// countReady counts the requests whose Ready condition is True.
func countReady(ctx context.Context, c client.Client) (int, error) {
	var list leashv1.CredentialsRequestList
	if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	n := 0
	for _, cr := range list.Items {
		for _, cond := range cr.Status.Conditions {
			if cond.Type == leashv1.Ready && cond.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n, nil
}

// createRequests creates n requests from several goroutines, as fast as the
// API server takes them.
func createRequests(ctx context.Context, c client.Client, n, creators int) error {
	next := make(chan int)
	errs := make(chan error, creators)
	var wg sync.WaitGroup
	for range creators {
		wg.Go(func() {
			for i := range next {
				if err := c.Create(ctx, newRequest(i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	return err
}

// newRequest is the i-th request: the smallest useful policy, one action
// on every resource, so that what is measured is the operator and not the
// size of a policy.
func newRequest(i int) *leashv1.CredentialsRequest {
	spec, _ := json.Marshal(leashv1.AWSProviderSpec{
		TypeMeta:         metav1.TypeMeta{APIVersion: "cloudcredential.openshift.io/v1", Kind: "AWSProviderSpec"},
		StatementEntries: []leashv1.StatementEntry{{Effect: "Allow", Action: []string{"ec2:DescribeInstances"}, Resource: "*"}},
	})
	name := fmt.Sprintf("bench-%04d", i)
	return &leashv1.CredentialsRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: leashv1.CredentialsRequestSpec{
			SecretRef:    corev1.ObjectReference{Namespace: namespace, Name: name + "-creds"},
			ProviderSpec: &k8sruntime.RawExtension{Raw: spec},
		},
	}
}

// report prints the figures and the verdict, and returns it.
func (m measurement) report(out io.Writer, o options) bool {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "requests\t%d\n", m.n)
	if m.created > 0 {
		fmt.Fprintf(tw, "all created after\t%.1f s\n", m.created.Seconds())
	}
	if m.timedOut {
		fmt.Fprintf(tw, "Ready\t%d of %d after %.1f s (timed out)\n", m.readyCount, m.n, m.ready.Seconds())
	} else {
		fmt.Fprintf(tw, "all Ready after\t%.1f s\n", m.ready.Seconds())
	}
	fmt.Fprintf(tw, "throughput\t%.1f requests/s\n", float64(m.readyCount)/m.ready.Seconds())
	fmt.Fprintf(tw, "operator peak RSS\t%s (VmHWM); highest 100 ms sample of VmRSS %s; %s before the first create\n",
		mib(m.hwm), mib(m.maxRSS), mib(m.startRSS))
	var cpu []string
	for _, p := range m.cpu {
		cpu = append(cpu, fmt.Sprintf("%s %.1f s", p.name, p.cpu.Seconds()))
	}
	fmt.Fprintf(tw, "CPU over the run\t%s (load average at the end %s)\n", strings.Join(cpu, "; "), m.loadAverage)
	fmt.Fprintf(tw, "reconciles\t%s\n", counts(m.reconciles))
	fmt.Fprintf(tw, "operator API requests\t%s (by HTTP code, Events included)\n", counts(m.restRequests))
	fmt.Fprintf(tw, "IAM calls\t%s\n", counts(m.iamCalls))
	if len(m.iamNotOK) > 0 {
		fmt.Fprintf(tw, "IAM calls not OK\t%s\n", counts(m.iamNotOK))
	}
	_ = tw.Flush()
	fmt.Fprintln(out)

	timeOK := !m.timedOut && m.ready < o.targetTime
	rssOK := float64(m.hwm)/(1<<20) < o.targetRSS
	fmt.Fprintf(out, "time to all Ready < %v: %s\n", o.targetTime, verdict(timeOK))
	fmt.Fprintf(out, "operator peak RSS < %.0f MiB: %s\n", o.targetRSS, verdict(rssOK))
	fmt.Fprintln(out, verdict(timeOK && rssOK))
	return timeOK && rssOK
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// counts prints "a 1, b 2 (total 3)", by name.
func counts(by map[string]float64) string {
	if len(by) == 0 {
		return "none"
	}
	var parts []string
	total := 0.0
	for _, k := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, by[k]))
		total += by[k]
	}
	return fmt.Sprintf("%s (total %.0f)", strings.Join(parts, ", "), total)
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// --- the pieces: leash binary, API server, leash local, the operator ---

// leashBinary returns path, else builds ./cmd/leash into dir: the operator
// runs as its own process so that its memory is its own.
func leashBinary(ctx context.Context, path, dir string) (string, error) {
	if path != "" {
		return path, nil
	}
	bin := filepath.Join(dir, "leash")
	gocmd := os.Getenv("GO") // as the Makefile names it
	if gocmd == "" {
		gocmd = "go"
	}
	cmd := exec.CommandContext(ctx, gocmd, "build", "-o", bin, "./cmd/leash")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/leash (run from the repository root): %w", err)
	}
	return bin, nil
}

// apiServer is kube-apiserver and etcd with the CRD installed, started as
// the tests start them (internal/apiserver: a cluster's admission plugins).
type apiServer struct {
	*apiserver.Server
	kubeconfig string // a file, for the operator
}

func startAPIServer(crdDir, dir string) (*apiServer, error) {
	s, err := apiserver.Run(apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{crdDir}})
	if err != nil {
		return nil, err
	}
	a := &apiServer{Server: s}
	// The operator gets its own user and a kubeconfig file, as it would
	// from a workstation.
	a.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := s.WriteKubeconfig("leash-operator", a.kubeconfig); err != nil {
		a.stop()
		return nil, err
	}
	return a, nil
}

func (a *apiServer) stop() {
	if err := a.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/operator: stop the API server:", err)
	}
}

// processes are kube-apiserver and etcd: envtest starts them as children of
// this process.
func (a *apiServer) processes() []proc {
	var out []proc
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if pid := childNamed(name); pid != 0 {
			out = append(out, proc{name, pid})
		}
	}
	return out
}

// local is leash local served in this process.
// operatorProcess is `leash operator` running against the API server and
// leash local.
type operatorProcess struct {
	cmd         *exec.Cmd
	metricsAddr string
	logPath     string
	exited      chan error // receives once, when the process ends
	done        chan struct{}
}

func startOperator(ctx context.Context, bin, kubeconfig string, l *localaws.Loopback, workers int, dir string) (*operatorProcess, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	op := &operatorProcess{metricsAddr: addr, logPath: filepath.Join(dir, "operator.log"),
		exited: make(chan error, 1), done: make(chan struct{})}
	logFile, err := os.Create(op.logPath)
	if err != nil {
		return nil, err
	}
	// Not CommandContext: stop sends SIGTERM and waits, as a cluster would,
	// rather than killing it.
	op.cmd = exec.Command(bin, "operator",
		"--kubeconfig", kubeconfig,
		"--iam-endpoint", l.URL,
		"--root-credentials-file", l.AdminCredentialsPath(),
		"--cluster-name", "bench",
		"--metrics-bind-address", addr,
		"--health-probe-bind-address", "0",
		"--workers", strconv.Itoa(workers))
	op.cmd.Stdout, op.cmd.Stderr = logFile, logFile
	if err := op.cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	go func() {
		err := op.cmd.Wait()
		_ = logFile.Close()
		op.exited <- err
		close(op.done)
	}()
	return op, nil
}

// freePort is a loopback address no one listens on, for the operator's
// metrics.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// waitStarted waits until the operator's controller runs its workers (the
// metric appears once its caches are in sync), so that the clock does not
// include the process's start.
func (op *operatorProcess) waitStarted(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		text, err := op.metrics(ctx)
		if err == nil && strings.Contains(text, "controller_runtime_active_workers{") {
			return nil
		}
		select {
		case err := <-op.exited:
			op.exited <- err
			return fmt.Errorf("the operator exited at start (%v); see %s", err, op.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the operator did not start within %v; see %s", timeout, op.logPath)
		}
	}
}

// metrics is the operator's /metrics page.
func (op *operatorProcess) metrics(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+op.metricsAddr+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return string(body), nil
}

// stop sends SIGTERM and waits for the operator to leave, killing it after
// 15 s.
func (op *operatorProcess) stop() {
	_ = op.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-op.done:
	case <-time.After(15 * time.Second):
		fmt.Fprintln(os.Stderr, "bench/operator: the operator did not stop within 15 s of SIGTERM; killing it")
		_ = op.cmd.Process.Kill()
		<-op.done
	}
}

// memorySampler reads the operator's VmRSS at an interval and keeps the
// highest value.
type memorySampler struct {
	mu        sync.Mutex
	max, prev uint64
	quit      chan struct{}
	done      chan struct{}
}

func (op *operatorProcess) sampleMemory(every time.Duration) *memorySampler {
	s := &memorySampler{quit: make(chan struct{}), done: make(chan struct{})}
	pid := op.cmd.Process.Pid
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			rss, _ := procmem.Of(pid)
			s.mu.Lock()
			s.max, s.prev = max(s.max, rss), rss
			s.mu.Unlock()
			select {
			case <-s.quit:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *memorySampler) last() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prev
}

// stop ends the sampling and returns the highest VmRSS seen.
func (s *memorySampler) stop() uint64 {
	close(s.quit)
	<-s.done
	return s.max
}

// --- /proc and /metrics ---

// loadAverage is the 1, 5 and 15 minute load averages; "?" when unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// proc is a process whose CPU time is reported.
type proc struct {
	name string
	pid  int
}

type processCPU struct {
	name string
	cpu  time.Duration
}

func cpuTimes(procs []proc) []time.Duration {
	out := make([]time.Duration, len(procs))
	for i, p := range procs {
		out[i] = procCPU(p.pid)
	}
	return out
}

func cpuDeltas(procs []proc, before, after []time.Duration) []processCPU {
	out := make([]processCPU, len(procs))
	for i, p := range procs {
		out[i] = processCPU{p.name, after[i] - before[i]}
	}
	return out
}

// procStat is the fields of /proc/PID/stat after the command name, which
// is in parentheses and may hold spaces: fields[0] is field 3 (state).
func procStat(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// procCPU is a process's user and system CPU time. /proc counts it in
// clock ticks of USER_HZ, which Linux fixes at 100 for user space.
func procCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// childNamed is the process ID of this process's child with that command
// name; 0 when there is none.
func childNamed(name string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		// fields[1] is field 4, the parent's process ID.
		if f := procStat(pid); len(f) > 1 && f[1] == self {
			return pid
		}
	}
	return 0
}

// sumBy sums the samples of a metric in Prometheus' text format by the
// value of one label, over the samples keep accepts (nil: all).
func sumBy(text, metric, label string, keep func(labels map[string]string) bool) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, metric+"{")
		if !ok {
			continue
		}
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[end+1:]), 64)
		if err != nil {
			continue
		}
		labels := parseLabels(rest[:end])
		if keep == nil || keep(labels) {
			out[labels[label]] += v
		}
	}
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out
}

// parseLabels reads `a="x",b="y"`; values are Go-quoted strings in the
// text format.
func parseLabels(s string) map[string]string {
	labels := map[string]string{}
	for s != "" {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			break
		}
		value, err := strconv.QuotedPrefix(rest)
		if err != nil {
			break
		}
		labels[strings.TrimSpace(name)], _ = strconv.Unquote(value)
		s = strings.TrimPrefix(rest[len(value):], ",")
	}
	return labels
}
