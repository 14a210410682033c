#!/usr/bin/env bash
# Regenerates api/v1/zz_generated.deepcopy.go and the CredentialsRequest CRD
# (deploy/crd/cloudcredential.openshift.io_credentialsrequests.yaml) from the
# Go types in api/v1 with controller-gen, and copies the CRD into the Helm
# chart (deploy/helm/leash/crds), which Helm installs before the templates.
#
# Usage, from anywhere in the repository:
#   hack/crd/generate.sh           # rewrite the committed files
#   hack/crd/generate.sh OUTDIR    # write both files into OUTDIR instead
#                                  # (used by api/v1's up-to-date test)
set -euo pipefail

CONTROLLER_GEN_VERSION=v0.19.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

object_dir=api/v1
crd_dir=deploy/crd
if [[ $# -ge 1 ]]; then
	mkdir -p "$1"
	object_dir="$1"
	crd_dir="$1"
fi

go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}" \
	object \
	crd \
	paths=./api/... \
	"output:object:dir=${object_dir}" \
	"output:crd:dir=${crd_dir}"
if [[ $# -eq 0 ]]; then
	cp "$crd_dir/cloudcredential.openshift.io_credentialsrequests.yaml" deploy/helm/leash/crds/
fi
