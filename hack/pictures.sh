#!/usr/bin/env bash
# Redraws the pictures docs/images/pictures.txt lists: each .dot from leash's
# own output, then its .svg from the .dot with Graphviz's dot, with the .dot's
# SHA-256 in an XML comment after the XML declaration, which test/pictures
# compares (so the test needs no Graphviz).
set -euo pipefail

cd "$(dirname "$0")/.."
GO="${GO:-go}"
if ! command -v dot >/dev/null; then
	echo "hack/pictures.sh: Graphviz's dot is not installed; install it (Debian: sudo apt-get install -y graphviz) and run make pictures again" >&2
	exit 1
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
"$GO" build -o "$bin/leash" ./cmd/leash

while read -r file args; do
	case "$file" in '' | '#'*) continue ;; esac
	dotfile="docs/images/$file" svg="docs/images/${file%.dot}.svg"
	# shellcheck disable=SC2086 # the arguments are words, split on purpose
	"$bin/leash" $args >"$dotfile"
	sum="$( (sha256sum "$dotfile" 2>/dev/null || shasum -a 256 "$dotfile") | cut -d' ' -f1)"
	dot -Tsvg "$dotfile" |
		awk -v c="<!-- rendered from $file sha256:$sum by make pictures; do not edit -->" 'NR == 1 { print; print c; next } { print }' >"$svg"
	echo "drew $dotfile and $svg" >&2
done <docs/images/pictures.txt
