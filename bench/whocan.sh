#!/usr/bin/env bash
# bench/whocan.sh: leash who-can on generated accounts, whole process, and
# how it grows with the account.
#
# Generates accounts of 5,000, 20,000 and 100,000 principals with
# bench/cmd/accountgen, each in two profiles: typical, and broad-IAM (5% of
# the principals with IAM writes on "*", -broad-iam 5), all with 5,000
# customer managed policies (IAM's quota per account). For each it runs one
# question (who-can s3:GetObject) and the same question with --escalation,
# three times each, and prints the median wall time, the CPU time and the
# highest peak RSS, as /usr/bin/time measures them; then the growth
# exponent k of each column between sizes (time ~ principals^k).
# Targets (bench/README.md), at 20,000 principals: one question under 1 s,
# --escalation under 5 s in both profiles, peak RSS under 500 MiB.
#
#   bench/whocan.sh                      # every size
#   bench/whocan.sh 5000 20000           # some sizes
#   bench/whocan.sh -o /tmp/whocan       # keeps the accounts and outputs there
#   SEED=7 bench/whocan.sh               # other generated accounts
set -euo pipefail

out=""
sizes=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	-*) echo "whocan.sh: unknown flag $1 (use -o DIR, then sizes)" >&2; exit 2 ;;
	*) sizes+=("$1"); shift ;;
	esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(5000 20000 100000)
if [ ! -x /usr/bin/time ]; then
	echo "whocan.sh: /usr/bin/time is needed for peak RSS; install it (apt-get install time)" >&2
	exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$out" ]; then
	out="$(mktemp -d)"
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
go="${GO:-go}"
(cd "$root" && "$go" build -o "$out/leash" ./cmd/leash && "$go" build -o "$out/accountgen" ./bench/cmd/accountgen)
seed="${SEED:-1}"

# measure LABEL CMD...: three runs; prints "wall cpu rssMiB" (median wall,
# its CPU, highest RSS) and keeps the line for the growth table.
measure() {
	local label="$1"; shift
	local runs=()
	local rss=0
	for _ in 1 2 3; do
		local rc=0
		/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
		if [ "$rc" -gt 1 ]; then
			echo "whocan.sh: $label failed (exit $rc):" >&2
			cat "$out/stderr" >&2
			exit 1
		fi
		read -r wall user sys kb <"$out/time"
		runs+=("$wall $(echo "$user + $sys" | bc)")
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	local median
	median=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
	read -r wall cpu <<<"$median"
	local mib=$((rss / 1024))
	printf '%-44s %7s s %7s s %6d MiB   (%s)\n' "$label" "$wall" "$cpu" "$mib" "$(printf '%s ' "${runs[@]%% *}")"
	echo "$label|$wall|$cpu|$mib" >>"$out/results"
}

: >"$out/results"
printf '%-44s %9s %9s %10s   %s\n' "run" "wall" "cpu" "peak RSS" "(each run's wall)"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for n in "${sizes[@]}"; do
	for profile in typical broad; do
		broad=0
		[ "$profile" = broad ] && broad=5
		account="$out/account-$n-$profile.json"
		"$out/accountgen" -seed "$seed" -principals "$n" -policies 5000 -broad-iam "$broad" -o "$account"
		echo "# $n principals, $profile: $(($(wc -c <"$account") / 1024 / 1024)) MiB snapshot"
		measure "$n $profile: who-can s3:GetObject" "$out/leash" who-can s3:GetObject --account "$account"
		measure "$n $profile: --escalation" "$out/leash" who-can s3:GetObject --account "$account" --escalation
	done
done

# Growth: k in time ~ principals^k between consecutive sizes.
echo
echo "# growth exponent k (time or memory ~ principals^k) between sizes"
printf '%-34s %-16s %7s %7s %7s\n' "run" "sizes" "k wall" "k cpu" "k RSS"
for kind in "typical: who-can s3:GetObject" "typical: --escalation" "broad: who-can s3:GetObject" "broad: --escalation"; do
	prev=""
	for n in "${sizes[@]}"; do
		line=$(grep -F "$n $kind|" "$out/results" || true)
		[ -n "$line" ] || continue
		if [ -n "$prev" ]; then
			IFS='|' read -r _ w1 c1 m1 <<<"$prev"
			IFS='|' read -r _ w2 c2 m2 <<<"$line"
			n1=${prevn}
			k() { echo "scale=2; l($2/$1)/l($n/$n1)" | bc -l; }
			printf '%-34s %-16s %7.2f %7.2f %7.2f\n' "$kind" "$n1 -> $n" "$(k "$w1" "$w2")" "$(k "$c1" "$c2")" "$(k "$m1" "$m2")"
		fi
		prev="$line" prevn="$n"
	done
done
