#!/usr/bin/env bash
# bench/loop.sh: what `make test` costs, phase by phase, so that the price of every change
# to the test loop is visible. Each phase is the Makefile's own target, timed whole (wall,
# and CPU as user + system of the target and its children); the test phase also gives each
# package's wall time and the slowest scripts, from go test's JSON events.
#
#   bench/loop.sh          warm: the caches this machine has (Go's build and module
#                          caches, the control plane and goreleaser builds)
#   bench/loop.sh --cold   cold: every cache empty (fresh GOCACHE, GOMODCACHE and
#                          XDG_CACHE_HOME in a temporary folder, removed on exit), as a
#                          fresh clone on a fresh machine pays it
#
# Phases: modules (go mod download of the project and its tools modules), the tools'
# modules, tmux, gofmt and vet, the control plane (testbin), goreleaser's configuration
# loader, the lint gate, the cross-system type check, then the tests: those out of
# hack/race-packages.txt, those in it (under the race detector), the scripts. These are
# `make test`'s own targets, one after the other, so each one's CPU is its own; `make test`
# overlaps them (TEST_JOBS at a time), so its wall on two cores is less than the sum.
#
#   bench/loop.sh --whole  `make test` itself, timed whole (wall and CPU), after the
#                          modules phase: the overlapped wall (with --cold too).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in /usr/bin/time jq; do
  if ! command -v "$tool" >/dev/null; then
    echo "loop: $tool is needed: apt-get install -y time jq" >&2
    exit 2
  fi
done
tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mode=warm whole=
for arg in "$@"; do
  case "$arg" in
  --cold)
    mode=cold
    export GOCACHE="$tmp/gocache" GOMODCACHE="$tmp/gomodcache" XDG_CACHE_HOME="$tmp/xdg"
    ;;
  --whole) whole=1 ;;
  *) echo "loop: unknown argument $arg (bench/loop.sh [--cold] [--whole])" >&2; exit 2 ;;
  esac
done
export KUBEBUILDER_ASSETS BUTLER_GORELEASER_CONFIGCHECK
KUBEBUILDER_ASSETS="$(hack/testbin.sh --dir)"
BUTLER_GORELEASER_CONFIGCHECK="$(hack/goreleaser.sh --configcheck --path)"

rows=()
# phase NAME COMMAND...: runs it, keeps its output in $tmp/NAME.log, adds a row.
phase() {
  local name="$1"; shift
  local start=$SECONDS
  if ! /usr/bin/time -f '%U %S' -o "$tmp/$name.time" "$@" >"$tmp/$name.log" 2>&1; then
    echo "loop: phase $name failed; its last lines:" >&2
    tail -20 "$tmp/$name.log" >&2
    exit 1
  fi
  local wall=$((SECONDS - start))
  local cpu
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$tmp/$name.time")
  rows+=("$(printf '| %s | %d | %d |' "$name" "$wall" "$cpu")")
  echo "loop: $name: ${wall}s wall, ${cpu}s CPU" >&2 # as it goes: a long cold run shows progress
}

total=$SECONDS
# The prerequisites of `make test`, in its order, then its test run.
phase modules bash -c 'go mod download && for m in hack/tools hack/k8s-tools hack/etcd-tools hack/goreleaser hack/lint; do (cd "$m" && GOWORK=off go mod download) || exit 1; done'
if [ -n "$whole" ]; then
  phase make-test make test
  echo "# make test whole, $mode, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
  echo
  echo "| phase | wall s | CPU s |"
  echo "| --- | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
  exit 0
fi
phase prep make codegen-deps test-deps fmt-check vet
phase control-plane make testbin
phase goreleaser-config make goreleaser-config
phase lint make lint
phase cross make cross
phase tests-plain make unit-plain UNITFLAGS=-json UNITVET=-vet=off
phase tests-race make unit-race UNITFLAGS=-json UNITVET=-vet=off
phase scripts make unit-scripts UNITFLAGS=-json UNITVET=-vet=off
cat "$tmp/tests-plain.log" "$tmp/tests-race.log" "$tmp/scripts.log" >"$tmp/tests.log"
echo "# make test, $mode, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
echo
echo "| phase | wall s | CPU s |"
echo "| --- | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo "| total | $((SECONDS - total)) | |"
echo
# The JSON events: a package's own pass/fail event carries its elapsed seconds; a script's,
# its test's (TestScripts/NAME, TestLiveScripts/NAME).
json="$tmp/tests.log"
echo "| package | wall s |"
echo "| --- | ---: |"
grep '^{' "$json" | jq -r 'select(.Test == null and (.Action == "pass" or .Action == "fail")) | [.Package, .Elapsed] | @tsv' |
  sort -t$'\t' -k2 -n -r | sed 's|github.com/butlerdotdev/butler-toolkit/||' | awk -F'\t' '$2 >= 2 {printf "| %s | %.0f |\n", $1, $2}'
echo
echo "Slowest scripts:"
echo
echo "| script | wall s |"
echo "| --- | ---: |"
grep '^{' "$json" | jq -r 'select(.Test != null and (.Test | test("^Test(Live)?Scripts/")) and .Action == "pass") | [.Test, .Elapsed] | @tsv' |
  sort -t$'\t' -k2 -n -r | head -10 | awk -F'\t' '{printf "| %s | %.1f |\n", $1, $2}'
echo
echo "tests: $(grep '^{' "$json" | jq -r 'select(.Test != null and .Action == "pass") | .Test' | wc -l) passed"
