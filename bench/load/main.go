// Command load measures leash local under load: signed IAM read requests
// over loopback from a user with a realistic policy, at several
// concurrency levels, reporting throughput, latency percentiles, errors and
// the server's memory. It starts leash local in this process unless given
// the URL of one already running.
//
//	go run ./bench/load -duration 10s -concurrency 1,4,16,64
//	go run ./bench/load -url http://127.0.0.1:4566 -credentials ./leash-data/admin-credentials -pid 1234
//
// Nothing here fails on a timing: it prints whether the target was met and
// exits 0 either way, 1 only when it could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	duration, warmup time.Duration
	levels           []int
	ops              []string
	client           string
	url, creds       string
	pid              int
	data             string
	cpuprofile       string
	targetRPS        float64
	targetP99        time.Duration
	targetRSS        uint64
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	ep, err := newEndpoint(ctx, o)
	if err != nil {
		return err
	}
	defer ep.close()
	user, err := setUp(ctx, ep, o.ops)
	if err != nil {
		return fmt.Errorf("set up the load user: %w", err)
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(out, "leash local under load: %s by user %s (%d-statement policy), %s client, %v per level after %v warm-up\n",
		strings.Join(o.ops, ", "), user.name, policyStatements, o.client, o.duration, o.warmup)
	fmt.Fprintf(out, "server %s (%s); %s; nproc %d, GOMAXPROCS %d; %s\n\n",
		ep.url, ep.where(), time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	var results []result
	for _, c := range o.levels {
		d := newDriver(ep, user, o.client, c, o.ops)
		if o.warmup > 0 {
			d.drive(ctx, o.warmup)
		}
		cpu, self := ep.cpu(), selfCPU()
		r := d.drive(ctx, o.duration)
		if cpu > 0 {
			r.cpu = ep.cpu() - cpu
		}
		if ep.srv == nil && self > 0 {
			r.loadCPU = selfCPU() - self
		}
		r.mem = ep.memory()
		results = append(results, r)
		d.close()
		if ctx.Err() != nil {
			break
		}
	}
	printResults(out, results, o)
	return nil
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long to drive each concurrency level")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured load before each level")
	levels := fs.String("concurrency", "1,4,16,64", "comma-separated numbers of concurrent clients, one level each")
	ops := fs.String("ops", "GetUser,GetUserPolicy,ListAccessKeys,ListAttachedUserPolicies", "comma-separated IAM read actions of the user on itself, sent in turn")
	fs.StringVar(&o.client, "client", "signer", "signer: net/http with aws-sdk-go-v2's SigV4 signer; sdk: the SDK's IAM client, whose middleware costs client CPU")
	fs.StringVar(&o.url, "url", "", "URL of a running leash local; empty starts one in this process")
	fs.StringVar(&o.creds, "credentials", "", "its admin-credentials file, with -url")
	fs.IntVar(&o.pid, "pid", 0, "its process ID, with -url, to report its memory from /proc")
	fs.StringVar(&o.data, "data", "", "data folder for the in-process leash local; empty uses a temporary one, removed at the end")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the measured load (this process: client and, without -url, server) to `FILE`")
	fs.Float64Var(&o.targetRPS, "target-rps", 5000, "requests per second the target asks for")
	fs.DurationVar(&o.targetP99, "target-p99", 5*time.Millisecond, "99th-percentile latency the target allows")
	targetRSS := fs.Int("target-rss-mib", 64, "peak resident set, in MiB, the target allows the server (in one process: the whole process)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, s := range strings.Split(*levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-concurrency %q: give positive numbers separated by commas, such as 1,4,16", *levels)
		}
		o.levels = append(o.levels, n)
	}
	for _, op := range strings.Split(*ops, ",") {
		op = strings.TrimSpace(op)
		if _, ok := readOps[op]; !ok {
			return o, fmt.Errorf("-ops: unknown action %q; give GetUser, GetUserPolicy, ListAccessKeys or ListAttachedUserPolicies", op)
		}
		o.ops = append(o.ops, op)
	}
	if o.client != "signer" && o.client != "sdk" {
		return o, fmt.Errorf("-client %q: give signer or sdk", o.client)
	}
	if (o.url == "") != (o.creds == "") {
		return o, errors.New("-url and -credentials go together: the URL of a running leash local and its admin-credentials file")
	}
	if *targetRSS < 1 {
		return o, fmt.Errorf("-target-rss-mib %d: must be positive", *targetRSS)
	}
	o.targetRSS = uint64(*targetRSS) << 20
	if o.duration <= 0 {
		return o, fmt.Errorf("-duration %v: must be positive", o.duration)
	}
	return o, nil
}
