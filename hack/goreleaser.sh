#!/usr/bin/env bash
# Builds goreleaser from source through the Go module proxy (the tools module
# hack/goreleaser, so its dependencies never reach the project's go.mod) into a cache folder
# outside the work tree, named by the version, and prints the binary's path. What is already
# there is kept. `hack/goreleaser.sh --path` only prints the path, building nothing.
#
# `hack/goreleaser.sh --configcheck [--path]` does the same for configcheck (in the same
# module): goreleaser's own configuration loader alone, which `make test` runs on
# .goreleaser.yaml. It builds in seconds to a minute, where goreleaser takes a quarter of an
# hour cold on two cores, so only `make release-check` and releases build goreleaser.
#
# The version must match hack/goreleaser/go.mod. v2.16.0 is the newest release this
# toolchain can build from the proxy: v2.18 needs Go 1.27, and v2.17 depends on
# go.digitalxero.dev/go-msix v0.3.1, whose zip the proxy refuses (403).
set -euo pipefail

GORELEASER_VERSION=v2.16.0

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
name=goreleaser
pkg=github.com/goreleaser/goreleaser/v2
if [ "${1:-}" = "--configcheck" ]; then
  name=configcheck
  pkg=./configcheck
  shift
fi
out="${BUTLER_TOOLS_DIR:-$cache/butler-tools}/goreleaser-${GORELEASER_VERSION}"
bin="$out/$name"
if [ "${1:-}" = "--path" ]; then
  echo "$bin"
  exit 0
fi
if [ ! -x "$bin" ]; then
  mkdir -p "$out"
  echo "goreleaser: building $name ${GORELEASER_VERSION}" >&2
  start=$SECONDS
  # The project's compile flags, so the standard library is compiled once (hack/testbin.sh).
  (cd "$root/hack/goreleaser" && GOWORK=off GOFLAGS=-mod=readonly \
    "$GO" build -ldflags "-s -w -X main.version=${GORELEASER_VERSION}" \
    -o "$bin.tmp.$$" "$pkg")
  mv -f "$bin.tmp.$$" "$bin"
  echo "goreleaser: built $name in $((SECONDS - start))s" >&2
fi
echo "$bin"
