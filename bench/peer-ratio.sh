#!/usr/bin/env bash
# peer-ratio.sh times leash's Decide and the peer engine
# @cloud-copilot/iam-simulate (runUnsafeSimulation and runSimulation strict)
# on one corpus, checks that they decide alike, and prints the table.
#
# Usage: bench/peer-ratio.sh [-o DIR] [-- REPORT_FLAGS...]
#   -o DIR  keep the corpus, the peer's results and the table in DIR
#   REPORT_FLAGS go to `ratio report` (-rounds N, -round-time D); the peer
#   takes its own from PEER_FLAGS, such as PEER_FLAGS="--rounds 9 --round-ms 500".
#
# It exits non-zero when the engines disagree. The two sides run one after
# the other, never at once, so that neither slows the other down.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

out=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	--) shift; break ;;
	*) echo "peer-ratio.sh: unknown argument $1 (use -o DIR, then -- and report flags)" >&2; exit 2 ;;
	esac
done

peer_dir=test/peer
peer_version=0.1.173
if [[ ! -f "$peer_dir/package.json" ]]; then
	echo "peer-ratio.sh: $peer_dir/package.json is missing; it pins @cloud-copilot/iam-simulate@$peer_version" >&2
	exit 1
fi
if [[ ! -d "$peer_dir/node_modules/@cloud-copilot/iam-simulate" ]]; then
	(cd "$peer_dir" && npm ci --no-audit --no-fund)
fi
installed=$(node -p "require('./$peer_dir/node_modules/@cloud-copilot/iam-simulate/package.json').version")
if [[ "$installed" != "$peer_version" ]]; then
	echo "peer-ratio.sh: $peer_dir has @cloud-copilot/iam-simulate@$installed, want $peer_version; run npm ci there" >&2
	exit 1
fi

work=${out:-$(mktemp -d)}
mkdir -p "$work"
[[ -n "$out" ]] || trap 'rm -rf "$work"' EXIT

go build -o "$work/ratio" ./bench/cmd/ratio
"$work/ratio" corpus -docs policy/testdata/bench >"$work/corpus.json"
# shellcheck disable=SC2086 # PEER_FLAGS is a list of flags
node bench/peer_bench.js "$peer_dir" "$work/corpus.json" ${PEER_FLAGS:-} >"$work/peer.json"
"$work/ratio" report -corpus "$work/corpus.json" -peer "$work/peer.json" "$@" | tee "$work/table.txt"
