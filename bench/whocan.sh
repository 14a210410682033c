#!/usr/bin/env bash
# bench/whocan.sh: leash who-can on generated accounts, whole process.
#
# Generates two accounts with bench/cmd/accountgen (1x: 500 principals and
# 2,000 managed policies; 10x: 5,000 and 20,000), builds leash, and for each
# runs one question (who-can s3:GetObject) and the full escalation graph
# (who-can --graph-only, which builds every edge and answers nothing),
# printing wall time, CPU time and peak RSS of each run, as /usr/bin/time
# measures them. Targets (bench/README.md): one question under 1 s, the
# full graph under 30 s, at 10x.
#
#   bench/whocan.sh                 # prints the table
#   bench/whocan.sh -o /tmp/whocan  # keeps the accounts and outputs there
#   SEED=7 bench/whocan.sh          # another generated account
set -euo pipefail

out=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	*) echo "whocan.sh: unknown argument $1 (use -o DIR)" >&2; exit 2 ;;
	esac
done
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
measure() { # label, then the command
	local label="$1"; shift
	local rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "whocan.sh: $label failed (exit $rc):" >&2
		cat "$out/stderr" >&2
		exit 1
	fi
	read -r wall user sys rss <"$out/time"
	printf '%-34s %8s s %8s s %8.0f MiB   %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)" "$(head -c 80 "$out/stdout" | head -1)"
}

printf '%-34s %10s %10s %12s   %s\n' "run" "wall" "cpu" "peak RSS" "first line of output"
for size in "1x 500 2000" "10x 5000 20000"; do
	set -- $size
	name="$1" principals="$2" policies="$3"
	"$out/accountgen" -seed "$seed" -principals "$principals" -policies "$policies" -o "$out/account-$name.json"
	bytes=$(wc -c <"$out/account-$name.json")
	echo "# $name: $principals principals, $policies managed policies, $((bytes / 1024 / 1024)) MiB snapshot"
	measure "$name who-can s3:GetObject" "$out/leash" who-can s3:GetObject --account "$out/account-$name.json"
	measure "$name who-can --escalation" "$out/leash" who-can s3:GetObject --account "$out/account-$name.json" --escalation
	measure "$name full graph (--graph-only)" "$out/leash" who-can s3:GetObject --account "$out/account-$name.json" --graph-only
done
