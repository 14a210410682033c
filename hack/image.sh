#!/usr/bin/env bash
# Builds leash's container image for linux/amd64 and linux/arm64 without a
# container engine: static binaries (hack/release.sh), then one archive per
# platform (hack/image) in dist/, which `docker load`, `kind load
# image-archive`, skopeo and crane accept. IMAGE names the repository
# (default leash), VERSION the tag (default git describe), SOURCE the source
# label (default the origin remote's URL, else the module path), PLATFORMS the platforms.
set -euo pipefail

cd "$(dirname "$0")/.."
GO="${GO:-go}"
dist="${DIST:-dist}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
revision="$(git rev-parse HEAD)"
created="$(git log -1 --format=%cI)"
source="${SOURCE:-$(git remote get-url origin 2>/dev/null || echo https://leash.dev/leash)}"
platforms="${PLATFORMS:-linux/amd64 linux/arm64}"

bin="$dist/image-bin"
GO="$GO" VERSION="$version" DIST="$bin" PLATFORMS="$platforms" hack/release.sh
args=()
for platform in $platforms; do
	args+=("$platform=$bin/leash-$version-${platform%/*}-${platform#*/}")
done
"$GO" run ./hack/image -repo "${IMAGE:-leash}" -version "$version" -revision "$revision" \
	-created "$created" -source "$source" -out "$dist" "${args[@]}"
rm -rf "$bin"
