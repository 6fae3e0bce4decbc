#!/usr/bin/env bash
# Builds goreleaser from source through the Go module proxy (the tools module
# hack/goreleaser, so its dependencies never reach the project's go.mod) into a cache folder
# outside the work tree, named by the version, and prints the binary's path. What is already
# there is kept. `hack/goreleaser.sh --path` only prints the path, building nothing.
#
# The version must match hack/goreleaser/go.mod. v2.16.0 is the newest release this
# toolchain can build from the proxy: v2.18 needs Go 1.27, and v2.17 depends on
# go.digitalxero.dev/go-msix v0.3.1, whose zip the proxy refuses (403).
set -euo pipefail

GORELEASER_VERSION=v2.16.0

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
out="${BUTLER_TOOLS_DIR:-$cache/butler-tools}/goreleaser-${GORELEASER_VERSION}"
bin="$out/goreleaser"
if [ "${1:-}" = "--path" ]; then
  echo "$bin"
  exit 0
fi
if [ ! -x "$bin" ]; then
  mkdir -p "$out"
  echo "goreleaser: building ${GORELEASER_VERSION} (a few minutes the first time)" >&2
  start=$SECONDS
  (cd "$root/hack/goreleaser" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 \
    "$GO" build -trimpath -ldflags "-s -w -X main.version=${GORELEASER_VERSION}" \
    -o "$bin.tmp" github.com/goreleaser/goreleaser/v2)
  mv -f "$bin.tmp" "$bin"
  echo "goreleaser: built in $((SECONDS - start))s" >&2
fi
echo "$bin"
