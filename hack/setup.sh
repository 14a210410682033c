#!/usr/bin/env bash
# Installs or builds what `make test` needs on a Debian machine that has
# only Go, says what it does on stderr, and prints on stdout the variables
# the tests read, for the caller to eval:
#
#   eval "$(hack/setup.sh)"    # KUBEBUILDER_ASSETS and HELM
#
# - Debian packages, with apt-get: nodejs and npm (the peer IAM engine in
#   test/peer), awscli (test/e2e drives leash local with the AWS CLI),
#   graphviz (who-can's dot output is checked with dot), skopeo (test/image
#   reads the image archives with it). Run by root, it installs them; run by
#   a user who can sudo, it runs sudo apt-get; otherwise it prints the
#   command to run and exits 1, before any test runs.
# - npm packages: test/peer's and test/e2e/jsclient's, with npm ci, when a package-lock.json changed.
# - kube-apiserver, etcd and kubectl (hack/envtest/build.sh) unless
#   KUBEBUILDER_ASSETS is set, and helm (hack/helm.sh) unless HELM is set:
#   built once from the Go module proxy into a cache folder (LEASH_CI_CACHE,
#   default ~/.cache/leash-ci), about 10 and 3 minutes the first time.
#
# What is already there is found and skipped: a warm run takes about a second.
# SETUP_EXTRA names more commands and their packages, "command:package ...",
# as .ci/run does for make.
set -euo pipefail

cd "$(dirname "$0")/.."
go="${GO:-go}"

say() { echo "setup: $*" >&2; }

command -v "$go" >/dev/null || { say "Go ($go) is not installed; install Go 1.26 or later from https://go.dev/dl/"; exit 1; }

# Each command the suite runs, and the Debian package that has it.
needs="node:nodejs npm:npm aws:awscli dot:graphviz skopeo:skopeo ${SETUP_EXTRA:-}"
missing=()
for pair in $needs; do
	command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
	install="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
	if ! command -v apt-get >/dev/null; then
		say "missing Debian packages ${missing[*]}, and this machine has no apt-get: install their equivalents, then run make test again"
		exit 1
	elif [ "$(id -u)" = 0 ]; then
		say "installing ${missing[*]} with apt-get"
		apt-get update >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
	elif command -v sudo >/dev/null && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
		say "installing ${missing[*]} with sudo apt-get"
		sudo apt-get update >&2
		sudo apt-get install -y --no-install-recommends "${missing[@]}" >&2
	else
		say "the tests need the Debian packages ${missing[*]}; as root, run"
		echo "	$install" >&2
		say "then run make test again (nothing was tested)"
		exit 1
	fi
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
	say "node $(node --version) is older than the 20 test/peer needs; install nodejs 20 or later (Debian 13's, or https://nodejs.org/en/download)"
	exit 1
fi

# The npm packages of test/peer (the reference engine) and test/e2e/jsclient
# (the AWS SDK for JavaScript as a pod's client), each installed again only
# when its lock file changes.
for dir in test/peer test/e2e/jsclient; do
	lock="$(sha256sum "$dir/package-lock.json" | cut -c1-64)"
	if [ "$(cat "$dir/node_modules/.leash-lock" 2>/dev/null)" != "$lock" ]; then
		say "installing $dir's npm packages (npm ci)"
		(cd "$dir" && npm ci --no-audit --no-fund >&2)
		echo "$lock" >"$dir/node_modules/.leash-lock"
	fi
done

# The build scripts print where the binary is, and build it only when it is
# missing or of another version.
assets="${KUBEBUILDER_ASSETS:-}"
[ -n "$assets" ] || assets="$(GO="$go" hack/envtest/build.sh)"
helm="${HELM:-}"
[ -n "$helm" ] || helm="$(GO="$go" hack/helm.sh)"
say "ready: node $(node --version), $(command -v aws), $(command -v dot), $(command -v skopeo), KUBEBUILDER_ASSETS=$assets, HELM=$helm"
printf 'export KUBEBUILDER_ASSETS=%q HELM=%q\n' "$assets" "$helm"
