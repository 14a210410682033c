#!/usr/bin/env bash
# Regenerates go.mod and go.sum of this tools module, which builds
# kube-apiserver and etcd for controller-runtime's envtest (see build.sh).
# k8s.io/kubernetes is not meant to be a dependency: its go.mod replaces each
# staging module (k8s.io/api, k8s.io/client-go, ...) with ./staging/...,
# which only works inside its own repository. This script reads those replace
# lines and points each staging module at its matching release instead
# (Kubernetes v1.X.Y publishes them as v0.X.Y).
#
# To move to other versions, change these two lines (and the versions in
# build.sh), then run this script and commit go.mod and go.sum.
set -euo pipefail

k8s_version=v1.34.4
etcd_version=v3.6.5

cd "$(dirname "$0")"
export GOWORK=off GOFLAGS=-mod=mod

staging_version="v0.${k8s_version#v1.}"
k8s_gomod="$(go mod download -json "k8s.io/kubernetes@$k8s_version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
[ -n "$k8s_gomod" ] || { echo "gen-go-mod.sh: could not download k8s.io/kubernetes@$k8s_version" >&2; exit 1; }
mapfile -t staging < <(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$k8s_gomod")
[ "${#staging[@]}" -gt 0 ] || { echo "gen-go-mod.sh: no staging modules found in $k8s_gomod" >&2; exit 1; }

rm -f go.mod go.sum
go mod init leash.dev/leash/hack/envtest
go mod edit -go="$(go mod edit -json ../../go.mod | sed -n 's/^[[:space:]]*"Go": "\(.*\)",$/\1/p')"
args=()
for m in "${staging[@]}"; do
	args+=("-replace=$m=$m@$staging_version")
done
go mod edit "${args[@]}"
go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$k8s_version" "go.etcd.io/etcd/server/v3@$etcd_version"
go mod tidy
echo "gen-go-mod.sh: go.mod has k8s.io/kubernetes $k8s_version (${#staging[@]} staging modules at $staging_version) and etcd $etcd_version" >&2
