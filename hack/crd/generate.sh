#!/usr/bin/env bash
# Regenerates the deepcopy code of every API package (api/v1, api/v1alpha1:
# zz_generated.deepcopy.go in each) and their CRDs (deploy/crd, one file per
# kind) from the Go types with controller-gen, and copies the CRDs into the
# Helm chart (deploy/helm/leash/crds), which Helm installs before the
# templates.
#
# Usage, from anywhere in the repository:
#   hack/crd/generate.sh           # rewrite the committed files
#   hack/crd/generate.sh OUTDIR    # write OUTDIR/PACKAGE/zz_generated.deepcopy.go
#                                  # and OUTDIR/crd/*.yaml instead
#                                  # (used by api/v1's up-to-date test)
set -euo pipefail

CONTROLLER_GEN_VERSION=v0.19.0
packages=(v1 v1alpha1)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

object_root=api
crd_dir=deploy/crd
if [[ $# -ge 1 ]]; then
	object_root="$1"
	crd_dir="$1/crd"
	mkdir -p "$crd_dir"
fi

controller_gen=(go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}")
# One run per package for the deepcopy code: output:object:dir sends every
# package's file to one folder, where they would overwrite each other.
for pkg in "${packages[@]}"; do
	mkdir -p "$object_root/$pkg"
	"${controller_gen[@]}" object "paths=./api/$pkg" "output:object:dir=$object_root/$pkg"
done
"${controller_gen[@]}" crd paths=./api/... "output:crd:dir=$crd_dir"
if [[ $# -eq 0 ]]; then
	for crd in "$crd_dir"/*_*.yaml; do
		cp "$crd" deploy/helm/leash/crds/
	done
fi
