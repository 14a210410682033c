#!/usr/bin/env bash
# Cross-builds leash for linux and darwin on amd64 and arm64 into dist/,
# static (CGO off) and reproducible (-trimpath, no local paths), with the
# version stamped in (leash version prints it) and a SHA256SUMS file that
# `sha256sum -c` checks. VERSION defaults to `git describe`; set it for a
# release: VERSION=v0.3.0 make release. PLATFORMS and DIST choose others
# (hack/image.sh builds the linux ones for the image this way).
set -euo pipefail

cd "$(dirname "$0")/.."
GO="${GO:-go}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
dist="${DIST:-dist}"
case "$version" in
*[!A-Za-z0-9._+-]*) echo "hack/release.sh: VERSION $version: use letters, digits, '.', '_', '+' and '-' only (e.g. v0.3.0)" >&2; exit 2 ;;
esac

mkdir -p "$dist"
rm -f "$dist/leash-$version-"* "$dist/SHA256SUMS"
for platform in ${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}; do
	os="${platform%/*}" arch="${platform#*/}"
	out="$dist/leash-$version-$os-$arch"
	CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" "$GO" build -trimpath -buildvcs=auto \
		-ldflags "-s -w -X leash.dev/leash/internal/buildinfo.version=$version" \
		-o "$out" ./cmd/leash
	echo "built $out" >&2
done
(cd "$dist" && sha256sum "leash-$version-"* >SHA256SUMS)
echo "$dist/SHA256SUMS" >&2
