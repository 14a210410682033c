#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy for
# controller-runtime's envtest, and the matching kubectl, into DIR (default: a folder in the CI cache),
# and prints DIR. Use it as KUBEBUILDER_ASSETS:
#
#   export KUBEBUILDER_ASSETS="$(hack/envtest/build.sh)"
#
# The versions come from this folder's go.mod (regenerate it with
# gen-go-mod.sh). When DIR already holds both binaries and a version stamp for
# this go.mod and go.sum, nothing is built. The first build takes 5 to 10
# minutes on 2 cores; only Go is needed.
set -euo pipefail

k8s_version=v1.34.4
etcd_version=v3.6.5

go="${GO:-go}"
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:-${LEASH_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/leash-ci}/envtest/k8s-${k8s_version#v}}"

# go.mod must agree with the versions above (gen-go-mod.sh writes it).
grep -qE "^	k8s.io/kubernetes $k8s_version( |\$)" "$here/go.mod" &&
	grep -qE "^	go.etcd.io/etcd/server/v3 $etcd_version( |\$)" "$here/go.mod" || {
	echo "build.sh: $here/go.mod does not require k8s.io/kubernetes $k8s_version and etcd $etcd_version; run gen-go-mod.sh" >&2
	exit 1
}

stamp="kube-apiserver kubectl $k8s_version etcd $etcd_version $(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)"
if [ -x "$dir/kube-apiserver" ] && [ -x "$dir/kubectl" ] && [ -x "$dir/etcd" ] && [ "$(cat "$dir/VERSION" 2>/dev/null)" = "$stamp" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
rm -f "$dir/VERSION"
echo "build.sh: building kube-apiserver and kubectl $k8s_version and etcd $etcd_version into $dir (5 to 10 minutes the first time)" >&2
(
	cd "$here"
	# Our own module only: no workspace, no vendor folder; go.sum is committed.
	export GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0
	v=k8s.io/component-base/version
	minor="${k8s_version#v1.}"
	minor="${minor%%.*}"
	"$go" build -trimpath -o "$dir/kube-apiserver" \
		-ldflags "-s -w -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
		k8s.io/kubernetes/cmd/kube-apiserver
	# kubectl of the same version: the tests read printer columns and
	# install deploy/ with its built-in kustomize.
	"$go" build -trimpath -o "$dir/kubectl" \
		-ldflags "-s -w -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
		k8s.io/kubernetes/cmd/kubectl
	"$go" build -trimpath -o "$dir/etcd" -ldflags "-s -w" go.etcd.io/etcd/server/v3
)
echo "$stamp" >"$dir/VERSION"
echo "$dir"
