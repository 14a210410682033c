// Command broker measures leash broker serving credentials to many pods. It
// starts kube-apiserver and etcd (through controller-runtime's envtest, with
// the TokenRequest API and the CredentialsRequest CRD), leash local in this
// process, and `leash broker` built from the tree as its own process on
// loopback, so that its memory and CPU are its own. It writes -requests
// CredentialsRequests in Broker mode (their status as the operator writes
// it, each naming a role that trusts only the broker's IAM user), -n pods
// spread over their service accounts, and one bound token per pod.
//
//	KUBEBUILDER_ASSETS="$(hack/envtest/build.sh)" go run ./bench/broker
//	go run ./bench/broker -n 200 -rounds 3 -concurrency 16
//
// Three phases, each a GET /v1/credentials per pod:
//
//   - fresh: each pod's first fetch, one at a time: a TokenReview and an
//     sts:AssumeRole against leash local;
//   - cached: a fetch of every pod one at a time, then -rounds fetches of
//     every pod, -concurrency at once: the review and the session from the
//     broker's caches;
//   - refresh: every request's status.principal moved to a second role that
//     trusts the broker, then every pod fetched once, one at a time: a new
//     AssumeRole with the review still cached, the path a session near its
//     expiry takes.
//
// It prints each phase's latency (p50, p90, p99, max) and fetches per
// second, the broker's CPU per fetch (/proc/PID/stat), the TokenReviews per
// fetch (the API server's apiserver_request_total) and the AssumeRole calls
// per fetch (leash local's audit log), and the broker's peak RSS (VmHWM).
// PASS when the cached p99 (one at a time and -concurrency at once), the
// fresh p99 and the peak RSS are under their targets, and the TokenReview,
// AssumeRole and session counts are what the caches promise; exit 1 on
// FAIL, 2 when it could not run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/bench/internal/procmem"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
)

const namespace = "bench"

type options struct {
	n, requests, rounds, concurrency int
	cachedTarget, freshTarget        time.Duration
	rssTarget                        uint64 // bytes
	crdDir, leash                    string
	keep                             bool
}

// rolePath is where the operator makes the roles of the cluster the broker
// runs for (--cluster-name bench): the broker assumes no others.
const rolePath = "/leash/bench/"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	pass, err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "bench/broker:", err)
		os.Exit(2)
	case !pass:
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	var rssMiB int
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 1000, "pods, each with its own bound token")
	fs.IntVar(&o.requests, "requests", 10, "CredentialsRequests in Broker mode, each with its service account and role; the pods are spread over them")
	fs.IntVar(&o.rounds, "rounds", 5, "cached rounds: fetches of every pod")
	fs.IntVar(&o.concurrency, "concurrency", 32, "concurrent fetches in the cached rounds")
	fs.DurationVar(&o.cachedTarget, "cached-target", 10*time.Millisecond, "the p99 a cached fetch must stay under")
	fs.DurationVar(&o.freshTarget, "fresh-target", 50*time.Millisecond, "the p99 a first fetch (TokenReview and AssumeRole) must stay under")
	fs.IntVar(&rssMiB, "rss-target", 100, "the broker's peak RSS must stay under this many MiB")
	fs.StringVar(&o.crdDir, "crd", "deploy/crd", "folder of the CredentialsRequest CRD")
	fs.StringVar(&o.leash, "leash", "", "the leash binary to run the broker with (default: go build ./cmd/leash)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary folder (broker log, leash local's data and audit log)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.n < 1 || o.requests < 1 || o.rounds < 1 || o.concurrency < 1 || o.cachedTarget <= 0 || o.freshTarget <= 0 || rssMiB < 1 {
		return o, errors.New("-n, -requests, -rounds, -concurrency and the targets must be positive")
	}
	o.rssTarget = uint64(rssMiB) << 20
	return o, nil
}

func run(ctx context.Context, args []string, out io.Writer) (bool, error) {
	o, err := parseFlags(args)
	if err != nil {
		return false, err
	}
	dir, err := os.MkdirTemp("", "leash-bench-broker-")
	if err != nil {
		return false, err
	}
	if o.keep {
		fmt.Fprintln(out, "keeping", dir)
	} else {
		defer func() { _ = os.RemoveAll(dir) }()
	}
	bin, err := leashBinary(ctx, o.leash, dir)
	if err != nil {
		return false, err
	}

	api, err := apiserver.Run(apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{o.crdDir}})
	if err != nil {
		return false, err
	}
	defer func() { _ = api.Stop() }()
	cfg := rest.CopyConfig(api.Config)
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{Scheme: operator.Scheme()})
	if err != nil {
		return false, err
	}
	dataDir := filepath.Join(dir, "local")
	local, err := localaws.StartLoopback(localaws.Config{DataDir: dataDir})
	if err != nil {
		return false, err
	}
	defer func() { _ = local.Stop() }()

	fmt.Fprintf(out, "setting up %d requests, %d pods and their tokens\n", o.requests, o.n)
	w, err := setUp(ctx, c, local, o)
	if err != nil {
		return false, err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := api.WriteKubeconfig("leash-broker", kubeconfig); err != nil {
		return false, err
	}
	b, err := startBroker(ctx, bin, kubeconfig, local.URL, w.brokerKey, dir)
	if err != nil {
		return false, err
	}
	defer b.stop()

	m := &meter{api: api.Config, auditLog: filepath.Join(dataDir, audit.FileName), broker: b.cmd.Process.Pid}
	fetcher := newFetcher(b.url, o.concurrency)
	var phases []phase

	p, err := m.phase(ctx, "fresh: first fetch (TokenReview + AssumeRole)", func() ([]time.Duration, int, error) {
		return fetcher.each(ctx, w.tokens, 1, 1, w.keys)
	})
	if err != nil {
		return false, err
	}
	phases = append(phases, p)

	p, err = m.phase(ctx, "cached: one round, one at a time", func() ([]time.Duration, int, error) {
		return fetcher.each(ctx, w.tokens, 1, 1, w.keys)
	})
	if err != nil {
		return false, err
	}
	phases = append(phases, p)

	p, err = m.phase(ctx, fmt.Sprintf("cached: %d rounds, %d at once", o.rounds, o.concurrency), func() ([]time.Duration, int, error) {
		return fetcher.each(ctx, w.tokens, o.rounds, o.concurrency, w.keys)
	})
	if err != nil {
		return false, err
	}
	phases = append(phases, p)

	// Move every request to its second role; the broker's watch sees it,
	// and each pod's next fetch assumes the new role with its review cached.
	if err := w.moveRoles(ctx, c); err != nil {
		return false, err
	}
	time.Sleep(3 * time.Second)
	p, err = m.phase(ctx, "refresh: new session, review cached", func() ([]time.Duration, int, error) {
		return fetcher.each(ctx, w.tokens, 1, 1, w.keys)
	})
	if err != nil {
		return false, err
	}
	phases = append(phases, p)

	rss, hwm := procmem.Of(b.cmd.Process.Pid)
	return report(out, o, phases, rss, hwm), nil
}

// --- the world: roles, the broker's user, requests, pods, tokens ---

type world struct {
	brokerKey iamclient.AccessKey
	requests  []*leashv1.CredentialsRequest
	next      []string // each request's second role
	tokens    []string // one per pod
	// keys is each pod's last AccessKeyId, to count the fetches that got a
	// new session.
	keys []string
}

func setUp(ctx context.Context, c client.Client, local *localaws.Loopback, o options) (*world, error) {
	admin, err := iamclient.KeyFromFile(local.AdminCredentialsPath())
	if err != nil {
		return nil, err
	}
	iamc := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(local.URL),
		Credentials: credentials.NewStaticCredentialsProvider(admin.ID, admin.Secret.Reveal(), "")})
	doc := func(v any) *string {
		b, _ := json.Marshal(v)
		return aws.String(string(b))
	}
	user, err := iamc.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("leash-broker")})
	if err != nil {
		return nil, err
	}
	account := strings.Split(aws.ToString(user.User.Arn), ":")[4]
	if _, err := iamc.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user.User.UserName, PolicyName: aws.String("assume-broker-roles"),
		PolicyDocument: doc(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Effect": "Allow", "Action": []string{"sts:AssumeRole", "sts:TagSession"}, "Resource": "arn:aws:iam::" + account + ":role" + rolePath + "broker-*"}}})}); err != nil {
		return nil, err
	}
	key, err := iamc.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user.User.UserName})
	if err != nil {
		return nil, err
	}
	w := &world{brokerKey: iamclient.AccessKey{ID: aws.ToString(key.AccessKey.AccessKeyId), Secret: iamclient.NewSecret(aws.ToString(key.AccessKey.SecretAccessKey))}}
	trust := doc(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
		"Effect": "Allow", "Principal": map[string]any{"AWS": aws.ToString(user.User.Arn)}, "Action": []string{"sts:AssumeRole", "sts:TagSession"}}}})
	role := func(name string) (string, error) {
		r, err := iamc.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), Path: aws.String(rolePath), AssumeRolePolicyDocument: trust})
		if err != nil {
			return "", err
		}
		return aws.ToString(r.Role.Arn), nil
	}

	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return nil, err
	}
	for i := range o.requests {
		first, err := role(fmt.Sprintf("broker-bench-%d", i))
		if err != nil {
			return nil, err
		}
		second, err := role(fmt.Sprintf("broker-bench-%d-next", i))
		if err != nil {
			return nil, err
		}
		sa := fmt.Sprintf("app-%d", i)
		if err := apiserver.CreateServiceAccounts(ctx, c, namespace, sa); err != nil {
			return nil, err
		}
		r := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("creds-%d", i)},
			Spec: leashv1.CredentialsRequestSpec{SecretRef: corev1.ObjectReference{Namespace: namespace, Name: fmt.Sprintf("creds-%d", i)}, ServiceAccountNames: []string{sa}}}
		if err := c.Create(ctx, r); err != nil {
			return nil, err
		}
		r.Status = leashv1.CredentialsRequestStatus{Mode: leashv1.ModeBroker, Principal: first, Provisioned: true, LastSyncGeneration: r.Generation}
		if err := c.Status().Update(ctx, r); err != nil {
			return nil, err
		}
		w.requests, w.next = append(w.requests, r), append(w.next, second)
	}

	// Pods and their tokens, eight at a time.
	w.tokens, w.keys = make([]string, o.n), make([]string, o.n)
	var next atomic.Int64
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= o.n {
					return
				}
				token, err := podWithToken(ctx, c, i, fmt.Sprintf("app-%d", i%o.requests))
				if err != nil {
					errs <- err
					return
				}
				w.tokens[i] = token
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return w, nil
}

// podWithToken creates pod i of the service account and a token bound to
// it for the broker's audience, as the kubelet requests the projected one.
func podWithToken(ctx context.Context, c client.Client, i int, sa string) (string, error) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("pod-%04d", i)},
		Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	if err := c.Create(ctx, p); err != nil {
		return "", err
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{broker.Audience}, ExpirationSeconds: aws.Int64(broker.TokenExpirationSeconds),
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: p.Name, UID: p.UID}}}
	sao := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: sa}}
	if err := c.SubResource("token").Create(ctx, sao, tr); err != nil {
		return "", fmt.Errorf("TokenRequest for %s: %w", p.Name, err)
	}
	return tr.Status.Token, nil
}

// moveRoles writes each request's second role as its status.principal.
func (w *world) moveRoles(ctx context.Context, c client.Client) error {
	for i, r := range w.requests {
		if err := c.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
			return err
		}
		r.Status.Principal = w.next[i]
		if err := c.Status().Update(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// --- the broker as its own process ---

// leashBinary returns path, else builds ./cmd/leash into dir.
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

type brokerProcess struct {
	cmd     *exec.Cmd
	url     string
	logPath string
	done    chan struct{}
}

// startBroker runs `leash broker` on a free loopback port with the broker
// user's key in its environment, and waits for /readyz.
func startBroker(ctx context.Context, bin, kubeconfig, endpoint string, key iamclient.AccessKey, dir string) (*brokerProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return nil, err
	}
	b := &brokerProcess{url: "http://" + addr, logPath: filepath.Join(dir, "broker.log"), done: make(chan struct{})}
	logFile, err := os.Create(b.logPath)
	if err != nil {
		return nil, err
	}
	none := filepath.Join(dir, "none")
	// Not CommandContext: stop sends SIGTERM and waits.
	b.cmd = exec.Command(bin, "broker", "--kubeconfig", kubeconfig, "--endpoint", endpoint,
		"--listen", addr, "--cluster-name", "bench")
	b.cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+key.ID, "AWS_SECRET_ACCESS_KEY="+key.Secret.Reveal(),
		"AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none, "AWS_REGION=us-east-1")
	b.cmd.Stdout, b.cmd.Stderr = logFile, logFile
	if err := b.cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	go func() {
		_ = b.cmd.Wait()
		_ = logFile.Close()
		close(b.done)
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(b.url + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return b, nil
			}
		}
		select {
		case <-b.done:
			return nil, fmt.Errorf("leash broker exited at start; see %s", b.logPath)
		case <-ctx.Done():
			b.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.stop()
			return nil, fmt.Errorf("leash broker not ready within a minute; see %s", b.logPath)
		}
	}
}

// stop sends SIGTERM and waits, killing the broker after 15 s.
func (b *brokerProcess) stop() {
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// --- fetching ---

type fetcher struct {
	client *http.Client
	url    string
}

func newFetcher(base string, concurrency int) *fetcher {
	return &fetcher{url: base + broker.CredentialsPath, client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency}}}
}

// each fetches every token rounds times, concurrency at once, and returns
// each fetch's latency and how many fetches got another session than the
// pod's last one (keys, each pod's last AccessKeyId).
func (f *fetcher) each(ctx context.Context, tokens []string, rounds, concurrency int, keys []string) ([]time.Duration, int, error) {
	total := rounds * len(tokens)
	lat := make([]time.Duration, total)
	var next atomic.Int64
	errs := make(chan error, concurrency)
	var mu sync.Mutex
	changed := 0
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for {
				j := int(next.Add(1)) - 1
				if j >= total {
					return
				}
				i := j % len(tokens)
				start := time.Now()
				key, err := f.fetch(ctx, tokens[i])
				lat[j] = time.Since(start)
				if err != nil {
					errs <- fmt.Errorf("pod-%04d: %w", i, err)
					return
				}
				mu.Lock()
				if keys[i] != key {
					changed++
					keys[i] = key
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, 0, err
	}
	return lat, changed, nil
}

// fetch is one GET of the credentials path; it returns the session's key
// ID, never the secret.
func (f *fetcher) fetch(ctx context.Context, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", token)
	resp, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, body)
	}
	var creds struct {
		KeyID string `json:"AccessKeyId"`
	}
	if err := json.Unmarshal(body, &creds); err != nil || creds.KeyID == "" {
		return "", fmt.Errorf("an answer without AccessKeyId (%v)", err)
	}
	return creds.KeyID, nil
}

// --- measuring ---

// meter reads the counters around a phase: the broker's CPU, the API
// server's TokenReviews, leash local's AssumeRole calls.
type meter struct {
	api      *rest.Config
	auditLog string
	broker   int
}

type phase struct {
	name                string
	lat                 []time.Duration
	wall, cpu           time.Duration
	reviews, assumed    float64
	newSessions         int
	loadBefore, loadEnd string
}

func (m *meter) phase(ctx context.Context, name string, do func() ([]time.Duration, int, error)) (phase, error) {
	p := phase{name: name, loadBefore: loadAverage()}
	reviews0, err := m.tokenReviews(ctx)
	if err != nil {
		return p, err
	}
	assumed0, err := m.assumeRoles()
	if err != nil {
		return p, err
	}
	cpu0 := procCPU(m.broker)
	start := time.Now()
	p.lat, p.newSessions, err = do()
	p.wall = time.Since(start)
	if err != nil {
		return p, fmt.Errorf("%s: %w", name, err)
	}
	p.cpu = procCPU(m.broker) - cpu0
	reviews1, err := m.tokenReviews(ctx)
	if err != nil {
		return p, err
	}
	// leash local writes its audit record as it answers; give the last
	// writes a moment.
	time.Sleep(200 * time.Millisecond)
	assumed1, err := m.assumeRoles()
	if err != nil {
		return p, err
	}
	p.reviews, p.assumed = reviews1-reviews0, float64(assumed1-assumed0)
	p.loadEnd = loadAverage()
	return p, nil
}

// tokenReviews is the API server's count of TokenReview creates, from its
// /metrics (apiserver_request_total{resource="tokenreviews"}).
func (m *meter) tokenReviews(ctx context.Context) (float64, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(m.api)
	if err != nil {
		return 0, err
	}
	raw, err := dc.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("the API server's /metrics: %w", err)
	}
	var n float64
	for _, line := range strings.Split(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok || !strings.Contains(rest, `resource="tokenreviews"`) || !strings.Contains(rest, `verb="POST"`) {
			continue
		}
		end := strings.LastIndexByte(rest, '}')
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[end+1:]), 64)
		if err == nil {
			n += v
		}
	}
	return n, nil
}

// assumeRoles counts the AssumeRole records in leash local's audit log.
func (m *meter) assumeRoles() (int, error) {
	f, err := os.Open(m.auditLog)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	n := 0
	_, err = audit.Read(f, audit.Filter{EventName: "AssumeRole"}, func(*audit.Event) error { n++; return nil })
	return n, err
}

// loadAverage is the 1, 5 and 15 minute load averages; "?" when unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// procCPU is a process's user and system CPU time. /proc counts it in
// clock ticks of USER_HZ, which Linux fixes at 100 for user space.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces; fields after it
	// start at field 3, so utime (14) and stime (15) are f[11] and f[12].
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// --- the report ---

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func report(out io.Writer, o options, phases []phase, rss, hwm uint64) bool {
	fmt.Fprintf(out, "\n%d pods, %d Broker requests, leash broker as its own process\n\n", o.n, o.requests)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tfetches\tp50\tp90\tp99\tmax\tfetches/s\tbroker CPU/fetch\tTokenReviews/fetch\tAssumeRole/fetch\tnew sessions\tload before\tload after\t")
	p99 := make([]time.Duration, len(phases))
	for i, p := range phases {
		s := slices.Clone(p.lat)
		slices.Sort(s)
		p99[i] = percentile(s, 0.99)
		n := float64(len(s))
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.0f\t%.0f µs\t%.3f\t%.3f\t%d\t%s\t%s\t\n", p.name, len(s),
			ms(percentile(s, 0.5)), ms(percentile(s, 0.9)), ms(p99[i]), ms(s[len(s)-1]),
			n/p.wall.Seconds(), float64(p.cpu)/float64(time.Microsecond)/n, p.reviews/n, p.assumed/n, p.newSessions, p.loadBefore, p.loadEnd)
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "\nbroker RSS at the end %.1f MiB, peak (VmHWM) %.1f MiB\n\n", float64(rss)/(1<<20), float64(hwm)/(1<<20))

	fresh, cached, busy, refresh := phases[0], phases[1], phases[2], phases[3]
	checks := []struct {
		what string
		ok   bool
		got  string
	}{
		{fmt.Sprintf("cached fetch p99 < %v, one at a time", o.cachedTarget), p99[1] < o.cachedTarget, ms(p99[1])},
		{fmt.Sprintf("cached fetch p99 < %v, %d at once", o.cachedTarget, o.concurrency), p99[2] < o.cachedTarget, ms(p99[2])},
		{fmt.Sprintf("fresh fetch (TokenReview + AssumeRole) p99 < %v", o.freshTarget), p99[0] < o.freshTarget, ms(p99[0])},
		{fmt.Sprintf("broker peak RSS < %d MiB", o.rssTarget>>20), hwm > 0 && hwm < o.rssTarget, fmt.Sprintf("%.1f MiB", float64(hwm)/(1<<20))},
		{"one TokenReview per pod, none when cached", fresh.reviews == float64(o.n) && cached.reviews == 0 && busy.reviews == 0 && refresh.reviews == 0,
			fmt.Sprintf("%.0f / %.0f / %.0f / %.0f", fresh.reviews, cached.reviews, busy.reviews, refresh.reviews)},
		{"one AssumeRole per pod fresh and refreshed, none cached", fresh.assumed == float64(o.n) && cached.assumed == 0 && busy.assumed == 0 && refresh.assumed == float64(o.n),
			fmt.Sprintf("%.0f / %.0f / %.0f / %.0f", fresh.assumed, cached.assumed, busy.assumed, refresh.assumed)},
		{"a new session for every pod fresh and refreshed, the same one cached", fresh.newSessions == o.n && cached.newSessions == 0 && busy.newSessions == 0 && refresh.newSessions == o.n,
			fmt.Sprintf("%d / %d / %d / %d", fresh.newSessions, cached.newSessions, busy.newSessions, refresh.newSessions)},
	}
	pass := true
	for _, c := range checks {
		v := "PASS"
		if !c.ok {
			v, pass = "FAIL", false
		}
		fmt.Fprintf(out, "%s  %s: %s\n", v, c.what, c.got)
	}
	return pass
}
