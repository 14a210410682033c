#!/usr/bin/env bash
# local.sh measures leash local under load as two processes: it builds
# leash and the load generator, starts `leash local` on a free loopback port
# with a temporary data folder, runs bench/load against it (-url, -pid for
# the server's CPU and memory from /proc), prints the table and whether the
# target was met, and stops the server. Then it runs bench/load once more
# with the server in the load generator's own process (the in-process
# figure), for comparison. The target is the two-process figure's.
#
# Usage: bench/local.sh [-mode both|two|one] [-profile FILE] [LOAD FLAGS...]
#   -mode both     two processes, then one (the default)
#   -mode two      two processes only
#   -mode one      one process only: the server inside bench/load
#   -profile FILE  write a CPU profile of the leash local process to FILE
#   LOAD FLAGS     go to bench/load in every run, e.g. -duration 5s -concurrency 4,8
#
# It exits non-zero only when something could not run; a missed target is
# printed, not an error.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

mode=both profile="" load_flags=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	-mode)
		mode="${2:-}"
		if [[ "$mode" != both && "$mode" != two && "$mode" != one ]]; then
			echo "local.sh: -mode ${mode@Q}: give both, two or one" >&2
			exit 2
		fi
		shift 2 ;;
	-profile)
		profile="${2:-}"
		if [[ -z "$profile" ]]; then
			echo "local.sh: -profile needs a file name" >&2
			exit 2
		fi
		shift 2 ;;
	*) load_flags+=("$1"); shift ;;
	esac
done
if [[ -n "$profile" && "$mode" == one ]]; then
	echo "local.sh: -profile profiles the leash local process, which -mode one does not start; give bench/load's -cpuprofile instead" >&2
	exit 2
fi
GO=${GO:-go}

work=$(mktemp -d)
server_pid=""
stop_server() {
	if [[ -n "$server_pid" ]]; then
		kill -TERM "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=""
	fi
}
trap 'stop_server; rm -rf "$work"' EXIT

"$GO" build -o "$work/leash" ./cmd/leash
"$GO" build -o "$work/load" ./bench/load

two_processes() {
	local server_flags=(local --data "$work/data" --listen 127.0.0.1:0)
	[[ -z "$profile" ]] || server_flags+=(--cpuprofile "$profile")
	# The server's log goes to a file; its first stdout line is
	# "leash local: listening on URL".
	"$work/leash" "${server_flags[@]}" >"$work/out.txt" 2>"$work/log.txt" &
	server_pid=$!
	local url=""
	for _ in $(seq 100); do
		url=$(sed -n 's/^leash local: listening on //p' "$work/out.txt")
		[[ -z "$url" ]] || break
		if ! kill -0 "$server_pid" 2>/dev/null; then
			echo "local.sh: leash local stopped at start:" >&2
			cat "$work/log.txt" >&2
			exit 1
		fi
		sleep 0.1
	done
	if [[ -z "$url" ]]; then
		echo "local.sh: leash local printed no URL in 10 s" >&2
		exit 1
	fi
	echo "== two processes: leash local (pid $server_pid) and bench/load; the target is this run's"
	"$work/load" -url "$url" -credentials "$work/data/admin-credentials" -pid "$server_pid" "${load_flags[@]}"
	stop_server
}

one_process() {
	echo "== one process: leash local inside bench/load, for comparison"
	"$work/load" "${load_flags[@]}"
}

case "$mode" in
both) two_processes; echo; one_process ;;
two) two_processes ;;
one) one_process ;;
esac
