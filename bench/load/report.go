package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

func sortDurations(d []time.Duration) { slices.Sort(d) }

// percentile is the p-th percentile (0 < p ≤ 100) of sorted durations, by
// the nearest-rank method; 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// rps is the throughput of answered requests, errors included.
func (r result) rps() float64 { return float64(len(r.latencies)) / r.duration.Seconds() }

func printResults(out io.Writer, results []result, o options) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "clients\trequests\treq/s\tp50\tp90\tp99\tmax\terrors\tCPU/req\tload CPU/req\theap in use\truntime sys\tRSS\tpeak RSS\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.concurrency, len(r.latencies), r.rps(),
			ms(percentile(r.latencies, 50)), ms(percentile(r.latencies, 90)), ms(percentile(r.latencies, 99)), ms(percentile(r.latencies, 100)),
			r.errors, perRequest(r.cpu, r), perRequest(r.loadCPU, r), mib(r.mem.heapInuse), mib(r.mem.sys), mib(r.mem.rss), mib(r.mem.hwm))
	}
	_ = tw.Flush()
	for _, r := range results {
		if r.firstError != "" {
			fmt.Fprintf(out, "\nfirst error at %d clients: %s\n", r.concurrency, r.firstError)
		}
	}
	fmt.Fprintln(out)
	best := -1
	for i, r := range results {
		if r.errors == 0 && percentile(r.latencies, 99) < o.targetP99 && (best < 0 || r.rps() > results[best].rps()) {
			best = i
		}
	}
	switch {
	case best < 0:
		fmt.Fprintf(out, "target (%.0f req/s with p99 < %s, no errors): not met; no level had p99 < %s without errors\n", o.targetRPS, o.targetP99, o.targetP99)
	case results[best].rps() >= o.targetRPS:
		fmt.Fprintf(out, "target (%.0f req/s with p99 < %s, no errors): met at %d clients, %.0f req/s with p99 %s\n",
			o.targetRPS, o.targetP99, results[best].concurrency, results[best].rps(), ms(percentile(results[best].latencies, 99)))
	default:
		fmt.Fprintf(out, "target (%.0f req/s with p99 < %s, no errors): not met; best %.0f req/s with p99 %s at %d clients\n",
			o.targetRPS, o.targetP99, results[best].rps(), ms(percentile(results[best].latencies, 99)), results[best].concurrency)
	}
	var peak uint64
	for _, r := range results {
		peak = max(peak, r.mem.hwm)
	}
	switch {
	case peak == 0:
		fmt.Fprintf(out, "peak RSS (target < %s): unknown; give -pid\n", mib(o.targetRSS))
	case peak < o.targetRSS:
		fmt.Fprintf(out, "peak RSS (target < %s): met, %s\n", mib(o.targetRSS), mib(peak))
	default:
		fmt.Fprintf(out, "peak RSS (target < %s): not met, %s\n", mib(o.targetRSS), mib(peak))
	}
}

// perRequest is a CPU time over a level per request of it, "-" when
// unknown: the server process's (CPU/req) or, when the server is another
// process, the load generator's own (load CPU/req).
func perRequest(cpu time.Duration, r result) string {
	if cpu <= 0 || len(r.latencies) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0fµs", float64(cpu)/float64(len(r.latencies))/float64(time.Microsecond))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func mib(b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20))
}
