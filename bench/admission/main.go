// Command admission measures the operator's admission webhook behind a real
// API server. It starts kube-apiserver and etcd (through controller-runtime's
// envtest) with deploy/base/webhook.yaml installed and pointed at this process,
// leash local, and the operator with its webhook in this process; then it
// creates N pods that name a CredentialsRequest, each wired by the mutating
// webhook and judged by the validating one, and N plain pods in a namespace
// the webhooks skip (leash.dev/admission: off), as the baseline.
//
//	KUBEBUILDER_ASSETS="$(hack/envtest/build.sh)" go run ./bench/admission
//	go run ./bench/admission -n 200 -concurrency 1
//
// It prints the webhook's own time per answer (p50, p99, by path), the API
// server's apiserver_admission_webhook_admission_duration_seconds for the
// same calls (its mean, and the bucket that holds its p99), and each create's
// latency with and without the webhooks. PASS when the webhook's own p99 of
// each path is under -target; exit 1 on FAIL, 2 when it could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/workload"
	"leash.dev/leash/localaws"
)

const (
	wired    = "bench"     // pods that name the request
	baseline = "bench-off" // plain pods, no webhook called
	metric   = "apiserver_admission_webhook_admission_duration_seconds"
)

type options struct {
	n, concurrency int
	target         time.Duration
	crdDir, hooks  string
	cpuProfile     string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	pass, err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "bench/admission:", err)
		os.Exit(2)
	case !pass:
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("admission", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 1000, "pods to create through the webhooks (and as many without)")
	fs.IntVar(&o.concurrency, "concurrency", 1, "concurrent create calls (1: each admission alone, as a per-request latency; more adds this machine's contention)")
	fs.DurationVar(&o.target, "target", 5*time.Millisecond, "the time the webhook calls may add per pod create, by the API server's measure and at the client")
	fs.StringVar(&o.crdDir, "crd", "deploy/crd", "folder of the CredentialsRequest CRD")
	fs.StringVar(&o.hooks, "webhooks", "deploy/base/webhook.yaml", "the webhook configurations to install")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (the webhook, its client and leash local) to `FILE`")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.n < 1 || o.concurrency < 1 || o.target <= 0 {
		return o, errors.New("-n, -concurrency and -target must be positive")
	}
	return o, nil
}

// answers are the webhook's own durations, by path.
type answers struct {
	mu sync.Mutex
	by map[string][]time.Duration
}

func (a *answers) observe(path string, d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.by[path] = append(a.by[path], d)
}

func (a *answers) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.by = map[string][]time.Duration{}
}

func (a *answers) snapshot() map[string][]time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string][]time.Duration{}
	for k, v := range a.by {
		out[k] = slices.Clone(v)
	}
	return out
}

func run(ctx context.Context, args []string, out io.Writer) (bool, error) {
	o, err := parseFlags(args)
	if err != nil {
		return false, err
	}
	ctrllog.SetLogger(logr.Discard())
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return false, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return false, err
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	dir, err := os.MkdirTemp("", "leash-bench-admission-")
	if err != nil {
		return false, err
	}
	defer func() { _ = os.RemoveAll(dir) }()

	api, err := apiserver.Run(apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{o.crdDir},
		Webhooks: envtest.WebhookInstallOptions{Paths: []string{o.hooks}}})
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
	local, err := localaws.StartLoopback(localaws.Config{DataDir: filepath.Join(dir, "local")})
	if err != nil {
		return false, err
	}
	defer func() { _ = local.Stop() }()

	own := &answers{by: map[string][]time.Duration{}}
	wio := api.Env.WebhookInstallOptions
	mgr, _, err := operator.NewManager(cfg, operator.Options{
		Config: operator.Config{Mode: leashv1.ModeMint, ClusterName: "bench"},
		IAM:    iamclient.Config{Endpoint: local.URL}, RootFile: local.AdminCredentialsPath(),
		Registry: prometheus.NewRegistry(),
		Webhook: &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir,
			RefuseAt: analyze.High, Observe: own.observe},
	})
	if err != nil {
		return false, err
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "bench/admission: operator:", err)
		}
	}()

	if err := setUp(ctx, c); err != nil {
		return false, err
	}
	if err := waitServing(ctx, net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort)), c); err != nil {
		return false, err
	}
	// A few pods first, so that the informers, the TLS sessions and the
	// API server's webhook clients are warm.
	if _, err := createPods(ctx, c, wired, "warm", 20, o.concurrency); err != nil {
		return false, err
	}
	own.reset()
	before, err := scrape(ctx, cfg)
	if err != nil {
		return false, err
	}
	withHooks, err := createPods(ctx, c, wired, "pod", o.n, o.concurrency)
	if err != nil {
		return false, err
	}
	after, err := scrape(ctx, cfg)
	if err != nil {
		return false, err
	}
	without, err := createPods(ctx, c, baseline, "pod", o.n, o.concurrency)
	if err != nil {
		return false, err
	}
	// The same pods as the webhook stored them, created where no webhook
	// is called: what the wired pod's own size costs the API server, apart
	// from the calls.
	stored := &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: wired, Name: "pod-0"}, stored); err != nil {
		return false, err
	}
	asWired, err := createPodsLike(ctx, c, stored, baseline, "wired", o.n, o.concurrency)
	if err != nil {
		return false, err
	}
	return report(out, o, own.snapshot(), delta(before, after), withHooks, without, asWired), nil
}

// setUp makes the namespaces, an egress policy that passes validation, and
// the request the pods name, and waits for it to be Ready.
func setUp(ctx context.Context, c client.Client) error {
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: wired}},
		{ObjectMeta: metav1.ObjectMeta{Name: baseline, Labels: map[string]string{"leash.dev/admission": "off"}}},
	} {
		if err := c.Create(ctx, ns); err != nil {
			return err
		}
		if err := c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "default"}}); err != nil {
			return err
		}
	}
	tcp := corev1.ProtocolTCP
	if err := c.Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: wired, Name: "egress"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp}},
				To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"169.254.169.254/32"}}}}}}}}); err != nil {
		return err
	}
	spec := `{"apiVersion":"cloudcredential.openshift.io/v1","kind":"AWSProviderSpec","statementEntries":[{"effect":"Allow","action":["ec2:DescribeInstances"],"resource":"*"}]}`
	cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: wired, Name: "app"},
		Spec: leashv1.CredentialsRequestSpec{SecretRef: corev1.ObjectReference{Namespace: wired, Name: "app-credentials"},
			ProviderSpec: rawExtension(spec)}}
	// The CredentialsRequest webhook fails closed: the request is admitted
	// once the operator's webhook server answers.
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		err := c.Create(ctx, cr)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "failed calling webhook") || time.Since(start) > time.Minute {
			return err
		}
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return err
		}
		if cr.Status.Provisioned {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the CredentialsRequest was not provisioned within a minute")
}

// waitServing waits until a pod naming the request comes back wired (a
// dry run, which stores nothing).
func waitServing(ctx context.Context, addr string, c client.Client) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = conn.Close()
			p := pod(wired, "probe")
			if err := c.Create(ctx, p, client.DryRunAll); err == nil && p.Annotations[workload.AnnotationCredentialsInjected] != "" {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the webhook did not wire a pod within a minute")
}

func rawExtension(s string) *k8sruntime.RawExtension { return &k8sruntime.RawExtension{Raw: []byte(s)} }

func pod(ns, name string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{ServiceAccountName: "default", Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	if ns == wired {
		p.Annotations = map[string]string{workload.AnnotationCredentials: "app"}
	}
	return p
}

// createPods creates n pods, concurrency at a time, and returns each
// create's latency; any refusal is an error.
func createPods(ctx context.Context, c client.Client, ns, prefix string, n, concurrency int) ([]time.Duration, error) {
	return create(ctx, c, func(i int) *corev1.Pod { return pod(ns, fmt.Sprintf("%s-%d", prefix, i)) }, n, concurrency)
}

// createPodsLike creates n copies of the stored pod like (its spec, labels
// and annotations) in namespace ns.
func createPodsLike(ctx context.Context, c client.Client, like *corev1.Pod, ns, prefix string, n, concurrency int) ([]time.Duration, error) {
	return create(ctx, c, func(i int) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", prefix, i), Labels: like.Labels, Annotations: like.Annotations},
			Spec: *like.Spec.DeepCopy()}
		p.Spec.NodeName = ""
		return p
	}, n, concurrency)
}

func create(ctx context.Context, c client.Client, newPod func(int) *corev1.Pod, n, concurrency int) ([]time.Duration, error) {
	var (
		mu    sync.Mutex
		lat   = make([]time.Duration, 0, n)
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := newPod(i)
				start := time.Now()
				err := c.Create(ctx, p)
				d := time.Since(start)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("create %s/%s: %w", p.Namespace, p.Name, err)
				}
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return lat, first
}

// series is one histogram of the API server's webhook metric: by webhook
// name and type (admit, validating), cumulative bucket counts by bound.
type series struct {
	buckets    map[float64]float64
	sum, count float64
}

// scrape reads the API server's webhook duration histograms.
func scrape(ctx context.Context, cfg *rest.Config) (map[string]*series, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := dc.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the API server's metrics: %w", err)
	}
	out := map[string]*series{}
	for _, line := range strings.Split(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, metric)
		if !ok {
			continue
		}
		kind, rest, _ := strings.Cut(rest, "{")
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[end+1:]), 64)
		if err != nil {
			continue
		}
		l := labels(rest[:end])
		if l["rejected"] != "false" {
			continue
		}
		key := l["name"] + " " + l["type"]
		s := out[key]
		if s == nil {
			s = &series{buckets: map[float64]float64{}}
			out[key] = s
		}
		switch kind {
		case "_bucket":
			le, err := strconv.ParseFloat(l["le"], 64)
			if l["le"] == "+Inf" {
				le, err = math.Inf(1), nil
			}
			if err == nil {
				s.buckets[le] += v
			}
		case "_sum":
			s.sum += v
		case "_count":
			s.count += v
		}
	}
	return out, nil
}

func labels(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out[strings.TrimSpace(k)] = strings.Trim(v, `"`)
		}
	}
	return out
}

// delta is after minus before: the calls of the measured creates.
func delta(before, after map[string]*series) map[string]*series {
	out := map[string]*series{}
	for k, a := range after {
		d := &series{buckets: map[float64]float64{}, sum: a.sum, count: a.count}
		for le, v := range a.buckets {
			d.buckets[le] = v
		}
		if b := before[k]; b != nil {
			d.sum -= b.sum
			d.count -= b.count
			for le, v := range b.buckets {
				d.buckets[le] -= v
			}
		}
		if d.count > 0 {
			out[k] = d
		}
	}
	return out
}

// bucketOf is the upper bound of the bucket that holds quantile q.
func (s *series) bucketOf(q float64) float64 {
	bounds := make([]float64, 0, len(s.buckets))
	for le := range s.buckets {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	for _, le := range bounds {
		if s.buckets[le] >= q*s.count {
			return le
		}
	}
	return math.Inf(1)
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func report(out io.Writer, o options, own map[string][]time.Duration, api map[string]*series, withHooks, without, asWired []time.Duration) bool {
	fmt.Fprintf(out, "admission: %d pods naming a request through deploy/base/webhook.yaml, %d concurrent creates; %s; nproc %d; %s\n\n",
		o.n, o.concurrency, time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runtime.Version())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "the webhook's own answer\tcalls\tp50\tp99")
	paths := make([]string, 0, len(own))
	for p := range own {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		d := own[p]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", p, len(d), ms(quantile(d, 0.5)), ms(quantile(d, 0.99)))
	}
	fmt.Fprintln(tw, "\t\t\t")
	fmt.Fprintln(tw, "the API server's "+metric+"\tcalls\tmean\tp99 within")
	keys := make([]string, 0, len(api))
	for k := range api {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var added time.Duration // the calls' mean time, per create
	for _, k := range keys {
		s := api[k]
		mean := time.Duration(s.sum / s.count * float64(time.Second))
		added += mean
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t≤ %g s\n", k, s.count, ms(mean), s.bucketOf(0.99))
	}
	fmt.Fprintln(tw, "\t\t\t")
	fmt.Fprintln(tw, "a pod create, as the client sees it\tcalls\tp50\tp99")
	fmt.Fprintf(tw, "with the webhooks (%s)\t%d\t%s\t%s\n", wired, len(withHooks), ms(quantile(withHooks, 0.5)), ms(quantile(withHooks, 0.99)))
	fmt.Fprintf(tw, "the same pod as stored wired, no webhook (%s)\t%d\t%s\t%s\n", baseline, len(asWired), ms(quantile(asWired, 0.5)), ms(quantile(asWired, 0.99)))
	fmt.Fprintf(tw, "the pod as written, no webhook (%s)\t%d\t%s\t%s\n", baseline, len(without), ms(quantile(without, 0.5)), ms(quantile(without, 0.99)))
	_ = tw.Flush()
	calls := quantile(withHooks, 0.5) - quantile(asWired, 0.5)
	size := quantile(asWired, 0.5) - quantile(without, 0.5)
	fmt.Fprintf(out, "\nadded per create by the webhook calls: %s (the API server's measure), %s p50 at the client (with, less the same pod stored without); the wired pod's own size: %s p50\n",
		ms(added), ms(calls), ms(size))
	pass := added < o.target && calls < o.target
	verdict := "PASS"
	if !pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "%s: the webhook calls add under %v per pod create, by both measures\n", verdict, o.target)
	return pass
}
