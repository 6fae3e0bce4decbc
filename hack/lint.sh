#!/usr/bin/env bash
# Builds the lint gate's tools, staticcheck and deadcode, from source through the Go module
# proxy (the tools module hack/lint, so their dependencies never reach the project's go.mod)
# into a cache folder outside the work tree, and prints that folder. What is already there
# is kept. `hack/lint.sh --dir` only prints the folder, building nothing; `hack/lint.sh
# --run` builds them and runs the gate over the project (`make lint`):
#   - staticcheck ./... with staticcheck.conf (the checks left off, each with its reason);
#   - deadcode -test ./...: every function is reached from a main or a test;
#   - deadcode ./cmd/...: every function is reached from the binaries' mains, but for those
#     listed in hack/lint/deadcode-tests-only.txt with the reason each is kept. A function
#     found there and not listed fails, and so does one listed and no longer found: the
#     list only shrinks.
# The tools are deterministic over the same sources; the GOOS/GOARCH is the host's.
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
# The project's compile flags (no -trimpath, cgo as the host has it): the standard library
# compiled here is the one vet and the tests use (hack/testbin.sh says why).
build() {
  local name="$1" pkg="$2"
  [ -x "$out/$name" ] && return
  echo "lint: building $name ($pkg)" >&2
  local start=$SECONDS
  (cd "$root/hack/lint" && GOWORK=off GOFLAGS=-mod=readonly \
    "$GO" build -o "$out/$name.tmp" "$pkg")
  mv -f "$out/$name.tmp" "$out/$name"
  echo "lint: built $name in $((SECONDS - start))s" >&2
}

build staticcheck honnef.co/go/tools/cmd/staticcheck
build deadcode golang.org/x/tools/cmd/deadcode

if [ "${1:-}" != "--run" ]; then
  echo "$out"
  exit 0
fi

cd "$root"
echo "lint: staticcheck ./..." >&2
"$out/staticcheck" ./...

echo "lint: deadcode -test ./..." >&2
dead="$("$out/deadcode" -test ./...)"
if [ -n "$dead" ]; then
  printf '%s\n' "$dead"
  echo "lint: these functions are reached from no main and no test: delete them" >&2
  exit 1
fi

echo "lint: deadcode ./cmd/..." >&2
module="$(GOWORK=off "$GO" list -m)"
allow="hack/lint/deadcode-tests-only.txt"
found="$("$out/deadcode" -f '{{range .Funcs}}{{$.Path}}.{{.Name}}{{"\n"}}{{end}}' ./cmd/... |
  sed "s|^$module/||" | sed '/^$/d' | LC_ALL=C sort)"
listed="$(sed 's/#.*//; s/[[:space:]]*$//; /^$/d' "$allow" | LC_ALL=C sort)"
new="$(LC_ALL=C comm -23 <(printf '%s\n' "$found") <(printf '%s\n' "$listed") | sed '/^$/d')"
gone="$(LC_ALL=C comm -13 <(printf '%s\n' "$found") <(printf '%s\n' "$listed") | sed '/^$/d')"
if [ -n "$new" ]; then
  printf '%s\n' "$new"
  echo "lint: the binaries never call these: delete them, move a test's helper beside its tests, or list one in $allow with the reason it stays" >&2
fi
if [ -n "$gone" ]; then
  printf '%s\n' "$gone"
  echo "lint: these are listed in $allow but the binaries call them (or they are gone): remove them from it" >&2
fi
[ -z "$new$gone" ]
