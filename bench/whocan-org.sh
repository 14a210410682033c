#!/usr/bin/env bash
# bench/whocan-org.sh: leash who-can --org on generated organizations,
# whole process.
#
# Generates organizations with bench/cmd/accountgen -accounts (by default 5
# and 20 accounts, each of 5,000 principals and 2,000 managed policies;
# SCPs at the root, an OU and a nested OU, an RCP at the root, roles
# trusting other accounts and aws:PrincipalOrgID), builds leash, and for
# each runs one question (who-can s3:GetObject) and one --escalation
# question, printing wall time, CPU time and peak RSS of each run as
# /usr/bin/time measures them. A run longer than TIMEOUT seconds (300 by
# default) is stopped and reported as such.
#
#   bench/whocan-org.sh                   # prints the table
#   ACCOUNTS="5" bench/whocan-org.sh      # 5 accounts only
#   bench/whocan-org.sh -o /tmp/org       # keeps the organizations and outputs there
set -euo pipefail

out=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	*) echo "whocan-org.sh: unknown argument $1 (use -o DIR)" >&2; exit 2 ;;
	esac
done
if [ ! -x /usr/bin/time ]; then
	echo "whocan-org.sh: /usr/bin/time is needed for peak RSS; install it (apt-get install time)" >&2
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
principals="${PRINCIPALS:-5000}"
policies="${POLICIES:-2000}"
limit="${TIMEOUT:-300}"
measure() { # label, then the command
	local label="$1"; shift
	local rc=0
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" timeout -k 5 "$limit" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	# leash stops on SIGTERM only between steps: timeout kills it 5 s
	# later (137).
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf '%-38s stopped after %s s (TIMEOUT)\n' "$label" "$limit"
		return
	fi
	if [ "$rc" -gt 1 ]; then
		echo "whocan-org.sh: $label failed (exit $rc):" >&2
		cat "$out/stderr" >&2
		exit 1
	fi
	read -r wall user sys rss <"$out/time"
	printf '%-38s %8s s %8.2f s %8.0f MiB   %s rows\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)" "$(grep -c '^arn:' "$out/stdout" || true)"
}

printf '%-38s %10s %10s %12s   %s\n' "run" "wall" "cpu" "peak RSS" "answer"
for accounts in ${ACCOUNTS:-5 20}; do
	dir="$out/org-$accounts"
	rm -rf "$dir"
	"$out/accountgen" -seed "$seed" -accounts "$accounts" -principals "$principals" -policies "$policies" -o "$dir"
	echo "# $accounts accounts x $principals principals, $policies managed policies each, $(du -sm "$dir" | cut -f1) MiB"
	measure "${accounts}acc who-can s3:GetObject" "$out/leash" who-can s3:GetObject --org "$dir" --context aws:RequestedRegion=us-east-1
	measure "${accounts}acc who-can --escalation" "$out/leash" who-can s3:GetObject --org "$dir" --context aws:RequestedRegion=us-east-1 --escalation
done
