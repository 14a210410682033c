#!/usr/bin/env bash
# batch.sh times `leash simulate --request FILE --output json` as a whole
# process on generated batches of 20,000 and 200,000 requests, and the peer
# engine @cloud-copilot/iam-simulate as a plain in-process loop over the same
# requests, checks that the two decide alike, and prints the table.
#
# Usage: bench/batch.sh [-o DIR] [-seed N] [-shape NAME] [-peer-max N] [SIZE...]
#   -o DIR       keep the batches, the answers and the table in DIR
#   -seed N      generator seed (default 1); the same seed gives the same batches
#   -shape NAME  the kind of batch (bench/cmd/batchgen): shared (default),
#                wide or deep
#   -peer-max N  run the peer only on batches of at most N requests; larger
#                ones time leash alone (its wall time and peak RSS)
#   SIZE         batch sizes (default: 20000 200000)
#
# It exits non-zero when leash fails or the engines disagree. leash and the
# peer run one after the other, never at once.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

out="" seed=1 shape=shared peer_max=0 sizes=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	-seed) seed="$2"; shift 2 ;;
	-shape) shape="$2"; shift 2 ;;
	-peer-max) peer_max="$2"; shift 2 ;;
	-*) echo "batch.sh: unknown flag $1 (use -o DIR, -seed N, -shape NAME, -peer-max N, then sizes)" >&2; exit 2 ;;
	*) sizes+=("$1"); shift ;;
	esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20000 200000)

if [[ ! -x /usr/bin/time ]]; then
	echo "batch.sh: /usr/bin/time is missing (Debian package time); it measures the peak RSS" >&2
	exit 1
fi
peer_dir=test/peer
peer_version=0.1.173
if [[ ! -d "$peer_dir/node_modules/@cloud-copilot/iam-simulate" ]]; then
	(cd "$peer_dir" && npm ci --no-audit --no-fund)
fi
installed=$(node -p "require('./$peer_dir/node_modules/@cloud-copilot/iam-simulate/package.json').version")
if [[ "$installed" != "$peer_version" ]]; then
	echo "batch.sh: $peer_dir has @cloud-copilot/iam-simulate@$installed, want $peer_version; run npm ci there" >&2
	exit 1
fi

work=${out:-$(mktemp -d)}
mkdir -p "$work"
[[ -n "$out" ]] || trap 'rm -rf "$work"' EXIT

go build -o "$work/leash" ./cmd/leash
go build -o "$work/batchgen" ./bench/cmd/batchgen

rows=()
for n in "${sizes[@]}"; do
	batch="$work/batch-$shape-$n.jsonl"
	"$work/batchgen" -shape "$shape" -n "$n" -seed "$seed" -o "$batch"
	# Timed: the whole process, answers to /dev/null, three times; the
	# median run counts (a shared machine's noise is a tenth of a second,
	# a fair part of a one-second run). Exit 1 means some request was
	# denied, which a batch has; 2 would be bad input.
	runs=()
	for run in 1 2 3; do
		status=0
		/usr/bin/time -f '%e %M %U %S' -o "$work/time-$n.txt" \
			"$work/leash" simulate --request "$batch" --output json >/dev/null || status=$?
		if [[ $status -gt 1 ]]; then
			echo "batch.sh: leash simulate exited $status on $batch" >&2
			exit 1
		fi
		# time puts "Command exited with non-zero status 1" first on a denial.
		runs+=("$(tail -n 1 "$work/time-$n.txt")")
	done
	# The median time (with that run's CPU time, user and system), and
	# the highest peak RSS of the three.
	read -r wall _ user sys < <(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rss_kb=$(printf '%s\n' "${runs[@]}" | awk '$2 > m { m = $2 } END { print m }')
	echo "leash, $shape, $n requests, three runs (s, KiB, user s, system s): ${runs[*]}; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	if [[ $peer_max -gt 0 && $n -gt $peer_max ]]; then
		rows+=("$n $wall $cpu $rss_kb - -")
		rm -f "$batch"
		continue
	fi
	# Untimed: the answers, for the peer to compare.
	answers="$work/answers-$shape-$n.json" peer="$work/peer-$shape-$n.json"
	"$work/leash" simulate --request "$batch" --output json >"$answers" || true
	node --max-old-space-size=12288 bench/batch_peer.js "$peer_dir" "$batch" "$answers" >"$peer"
	peer_ms=$(node -p "require('$peer').loopMs")
	disagree=$(node -p "require('$peer').disagreements")
	echo "peer, $shape, $n requests: $peer_ms ms; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	rows+=("$n $wall $cpu $rss_kb $peer_ms $disagree")
	rm -f "$batch" "$answers"
done

{
	printf '| shape | requests | leash, whole process | leash CPU | leash peak RSS | peer loop | ratio (peer/leash) | leash per request | disagreements |\n'
	printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
	for row in "${rows[@]}"; do
		read -r n wall cpu rss_kb peer_ms disagree <<<"$row"
		awk -v shape="$shape" -v n="$n" -v wall="$wall" -v cpu="$cpu" -v rss="$rss_kb" -v peer="$peer_ms" -v d="$disagree" 'BEGIN {
			if (peer == "-") {
				printf "| %s | %d | %.2f s | %.2f s | %.0f MiB | not run | | %.1f µs | |\n", shape, n, wall, cpu, rss / 1024, wall * 1e6 / n
			} else {
				printf "| %s | %d | %.2f s | %.2f s | %.0f MiB | %.1f s | %.1f | %.1f µs | %d |\n", shape, n, wall, cpu, rss / 1024, peer / 1000, (peer / 1000) / wall, wall * 1e6 / n, d
			}
		}'
	done
} | tee "$work/table-$shape.md"

for row in "${rows[@]}"; do
	read -r n _ _ _ _ disagree <<<"$row"
	if [[ "$disagree" != 0 && "$disagree" != - ]]; then
		echo "batch.sh: leash and the peer disagree on $disagree of $n $shape requests; see $work/peer-$shape-$n.json" >&2
		exit 1
	fi
done
