#!/usr/bin/env bash
# bench/loop.sh: what `make test` costs, phase by phase, so that the price of every change
# to the test loop is visible. Each phase is the Makefile's own target, timed whole (wall,
# and CPU as user + system of the target and its children); the test phases also give each
# package's test process, wall and CPU (bench/testcpu.sh, go test's -exec), the slowest
# scripts (go test's JSON events), and hack/race-packages.txt in the order just measured
# (longest first: the race run's order, which internal/structure holds it to).
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
# Each test process's wall and CPU, by package directory (bench/testcpu.sh).
for part in tests-plain:unit-plain tests-race:unit-race scripts:unit-scripts; do
  LOOP_TESTCPU="$tmp/${part%%:*}.cpu" phase "${part%%:*}" make "${part#*:}" \
    UNITFLAGS="-json -exec $PWD/bench/testcpu.sh" UNITVET=-vet=off
done
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
# A test process's line: its directory, wall, user and system seconds ("Command exited
# with non-zero status" lines, which time adds for a failing test, are left out).
root="$PWD/"
cpu_rows() { # FILE RUN: "dir<TAB>wall<TAB>cpu<TAB>run", dir relative to the repository
  awk -v root="$root" -v run="$2" '$1 != "Command" && NF == 4 {
    dir = $1 "/"; if (index(dir, root) == 1) dir = substr(dir, length(root) + 1)
    sub("/$", "", dir); if (dir == "") dir = "."
    printf "%s\t%.0f\t%.0f\t%s\n", dir, $2, $3 + $4, run }' "$1"
}
{ cpu_rows "$tmp/tests-plain.cpu" plain; cpu_rows "$tmp/tests-race.cpu" race; cpu_rows "$tmp/scripts.cpu" scripts; } >"$tmp/cpu.tsv"
echo "Test processes (2 s or more of wall or CPU): the package's test binary, its children included."
echo
echo "| package | run | wall s | CPU s |"
echo "| --- | --- | ---: | ---: |"
sort -t$'\t' -k2 -n -r "$tmp/cpu.tsv" | awk -F'\t' '$2 >= 2 || $3 >= 2 {printf "| %s | %s | %s | %s |\n", $1, $4, $2, $3}'
awk -F'\t' '{w[$4] += $2; c[$4] += $3} END {for (r in w) printf "sum of the %s test processes: %d s wall, %d CPU-s\n", r, w[r], c[r]}' "$tmp/cpu.tsv" | sort
echo
echo "hack/race-packages.txt in the order measured (longest first), its lines as they would be:"
echo
echo '```'
awk -F'\t' '$4 == "race" {printf "./%s\t# %d s\n", $1, $2}' "$tmp/cpu.tsv" | sort -t$'\t' -k2.3 -n -r -s |
  awk -F'\t' '{printf "%-40s %s\n", $1, $2}'
echo '```'
echo
echo "Slowest scripts:"
echo
echo "| script | wall s |"
echo "| --- | ---: |"
grep '^{' "$json" | jq -r 'select(.Test != null and (.Test | test("^Test(Live)?Scripts/")) and .Action == "pass") | [.Test, .Elapsed] | @tsv' |
  sort -t$'\t' -k2 -n -r | head -10 | awk -F'\t' '{printf "| %s | %.1f |\n", $1, $2}'
echo
echo "tests: $(grep '^{' "$json" | jq -r 'select(.Test != null and .Action == "pass") | .Test' | wc -l) passed"
