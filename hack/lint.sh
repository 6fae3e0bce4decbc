#!/usr/bin/env bash
# Builds the lint gate's tools, staticcheck and deadcode, from source through the Go module
# proxy (the tools module hack/lint, so their dependencies never reach the project's go.mod)
# into a cache folder outside the work tree, and prints that folder. What is already there
# is kept. `hack/lint.sh --dir` only prints the folder, building nothing.
#
# The folder is named by the tools' versions and the Go toolchain's: staticcheck reads the
# project with the go/types of the toolchain that built it, so a newer Go builds a new pair
# instead of reusing one that cannot read the newer language.
# The versions must match hack/lint/go.mod.
set -euo pipefail

STATICCHECK_VERSION=v0.8.2
XTOOLS_VERSION=v0.51.0

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
goversion="$(cd "$root/hack/lint" && GOWORK=off "$GO" env GOVERSION)"
out="${BUTLER_TOOLS_DIR:-$cache/butler-tools}/lint-staticcheck-${STATICCHECK_VERSION}-x-tools-${XTOOLS_VERSION}-${goversion}"
if [ "${1:-}" = "--dir" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"

# build NAME PACKAGE: into a temporary name, then renamed, so an interrupted build never
# leaves a half-written binary that later runs would keep.
build() {
  local name="$1" pkg="$2"
  [ -x "$out/$name" ] && return
  echo "lint: building $name ($pkg)" >&2
  local start=$SECONDS
  (cd "$root/hack/lint" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 \
    "$GO" build -trimpath -o "$out/$name.tmp" "$pkg")
  mv -f "$out/$name.tmp" "$out/$name"
  echo "lint: built $name in $((SECONDS - start))s" >&2
}

build staticcheck honnef.co/go/tools/cmd/staticcheck
build deadcode golang.org/x/tools/cmd/deadcode

echo "$out"
