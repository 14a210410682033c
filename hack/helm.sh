#!/usr/bin/env bash
# Builds helm from the Go module proxy into the CI cache's bin folder (or
# DIR) once, and prints its path. The chart tests (test/deploy) render
# deploy/helm/leash with it:
#
#   export HELM="$(hack/helm.sh)"
#
# About 3 minutes on 2 cores the first time; only Go is needed.
set -euo pipefail

helm_version=v3.22.0

go="${GO:-go}"
dir="${1:-${LEASH_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/leash-ci}/bin}"
if [ -x "$dir/helm" ] && [ "$(cat "$dir/helm.version" 2>/dev/null)" = "$helm_version" ]; then
	echo "$dir/helm"
	exit 0
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
echo "helm.sh: building helm $helm_version into $dir (about 3 minutes the first time)" >&2
GOBIN="$dir" GOFLAGS=-buildvcs=false "$go" install "helm.sh/helm/v3/cmd/helm@$helm_version" >&2
echo "$helm_version" >"$dir/helm.version"
echo "$dir/helm"
