#!/usr/bin/env bash
# Start-up benchmark: in one run, times `butlerctl version` and `butlerctl --help` against
# `kubectl version --client`, and reports wall-time medians, the ratios to kubectl, peak
# memory (max RSS) and what package initialisation costs (GODEBUG=inittrace=1).
#
#   bench/startup.sh                 # builds bin/butlerctl with `make build` first
#   RUNS=100 bench/startup.sh
#   BUTLERCTL=/path/butlerctl KUBECTL=/path/kubectl bench/startup.sh
#
# Timing uses hyperfine when installed (Debian package hyperfine), else bench/starttime (the
# commands in turn, each run timed from fork to reap; a shell loop timed with date would add
# its own process starts to both and inflate the ratio); memory always comes from GNU time
# (/usr/bin/time -f %M). kubectl is the test control plane's (`make testbin`,
# hack/testbin.sh --dir).
#
# Targets: `butlerctl version` at most 0.2x kubectl's wall time (kubectl: the test control
# plane's, which the harness builds, not one that happens to be on PATH), and under 30 MiB
# peak memory (GNU time's max RSS: most of it is the binary's own pages, read from the page
# cache, not memory the process allocated). The exit status is 1 when a target is missed.
#
# Measured here (2 cores, shared; medians of 50 runs, bench/starttime): `butlerctl version`
# 10.6 ms against kubectl's 71.6 ms, 0.15x (`--help` 0.15x); peak 21 MiB; package init about
# 5 ms over 242 packages. Before -o's printers stopped linking cli-runtime's print flags (and
# with them client-go's discovery and the registry of every core Kubernetes type), the same
# session gave 17.3 ms against 63.2 ms, 0.27x, 32 MiB, and 10 ms of init over 310 packages.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-50}"
WARMUP="${WARMUP:-5}"
if [ -z "${BUTLERCTL:-}" ]; then
  make --no-print-directory build >/dev/null
  BUTLERCTL=bin/butlerctl
fi
# The real kubectl the test harness builds: a kubectl on PATH may be a wrapper (a plugin
# manager's shim, a script) that measures something else.
KUBECTL="${KUBECTL:-$(hack/testbin.sh --dir)/kubectl}"
if [ ! -x "$KUBECTL" ]; then
  echo "startup: no kubectl at $KUBECTL: run make testbin (or set KUBECTL)" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "startup: /usr/bin/time (GNU time) is needed for peak memory: apt-get install -y time" >&2
  exit 2
fi

# No config file, kubeconfig or colour can change what is measured.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Built before HOME moves, so the build uses the usual Go caches.
command -v hyperfine >/dev/null 2>&1 || go build -o "$tmp/starttime" ./bench/starttime
export XDG_CONFIG_HOME="$tmp" HOME="$tmp" KUBECONFIG="$tmp/none" NO_COLOR=1

names=("butlerctl version" "butlerctl --help" "kubectl version --client")
cmds=("$BUTLERCTL version" "$BUTLERCTL --help" "$KUBECTL version --client")

echo "butlerctl: $BUTLERCTL ($("$BUTLERCTL" version | sed -n 1p))"
echo "kubectl:   $KUBECTL ($("$KUBECTL" version --client 2>/dev/null | sed -n 1p))"
echo "machine:   $(nproc) CPUs, $(uname -sr); $RUNS runs each after $WARMUP warm-up runs"
echo

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

declare -A wall rss
if command -v hyperfine >/dev/null 2>&1; then
  tool="hyperfine $(hyperfine --version | awk '{print $2}')"
  hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" \
    --export-csv "$tmp/h.csv" "${cmds[@]}" >/dev/null 2>&1
  # command,mean,stddev,median,user,system,min,max (seconds)
  i=0
  while IFS=, read -r _ _ _ med _; do
    wall[$i]="$(awk -v m="$med" 'BEGIN {printf "%.2f", m * 1000}')"
    i=$((i + 1))
  done < <(tail -n +2 "$tmp/h.csv")
else
  # bench/starttime: the commands in turn, timed from fork to reap, medians in ms.
  tool="bench/starttime (install hyperfine for its figures)"
  i=0
  while read -r ms; do
    wall[$i]="$ms"
    i=$((i + 1))
  done < <("$tmp/starttime" -runs "$RUNS" -warmup "$WARMUP" "${cmds[@]}")
fi

# Peak memory: GNU time's max RSS (KiB), median and maximum over the runs.
rssruns=$(( RUNS < 20 ? RUNS : 20 ))
declare -A rssmax
for i in "${!cmds[@]}"; do
  read -r -a argv <<<"${cmds[$i]}"
  for _ in $(seq "$rssruns"); do
    /usr/bin/time -f %M -o "$tmp/rss" "${argv[@]}" >/dev/null 2>&1
    cat "$tmp/rss"
  done >"$tmp/r$i"
  rss[$i]="$(median <"$tmp/r$i")"
  rssmax[$i]="$(sort -n "$tmp/r$i" | tail -1)"
done

echo "wall time: $tool; peak memory: GNU time max RSS over $rssruns runs"
printf '%-26s %12s %14s %16s %14s\n' "command" "median ms" "vs kubectl" "median RSS MiB" "max RSS MiB"
for i in "${!cmds[@]}"; do
  printf '%-26s %12s %14s %16s %14s\n' "${names[$i]}" "${wall[$i]}" \
    "$(awk -v a="${wall[$i]}" -v b="${wall[2]}" 'BEGIN {printf "%.2fx (1/%.1f)", a / b, b / a}')" \
    "$(awk -v k="${rss[$i]}" 'BEGIN {printf "%.1f", k / 1024}')" \
    "$(awk -v k="${rssmax[$i]}" 'BEGIN {printf "%.1f", k / 1024}')"
done
echo

# What package initialisation costs before main runs (GODEBUG=inittrace=1), median of 5.
for _ in 1 2 3 4 5; do
  GODEBUG=inittrace=1 "$BUTLERCTL" version 2>&1 >/dev/null | awk '/^init /{t += $5; b += $8; n++} END {printf "%.3f %d %d\n", t, b, n}'
done >"$tmp/init"
read -r init_ms init_bytes init_pkgs < <(sort -n "$tmp/init" | sed -n 3p)
echo "package init (GODEBUG=inittrace=1, median of 5): ${init_ms} ms, $((init_bytes / 1024)) KiB allocated, $init_pkgs packages; heaviest:"
GODEBUG=inittrace=1 "$BUTLERCTL" version 2>&1 >/dev/null | awk '/^init /{printf "  %-55s %6s ms %9s bytes\n", $2, $5, $8}' | sort -k2 -n -r | sed -n 1,5p
echo "  project packages:"
GODEBUG=inittrace=1 "$BUTLERCTL" version 2>&1 >/dev/null | awk '/^init github.com\/butlerdotdev/{printf "    %-53s %6s ms %9s bytes\n", $2, $5, $8}'
echo

ok=0
ratio=$(awk -v a="${wall[0]}" -v b="${wall[2]}" 'BEGIN {print (a * 5 <= b) ? "yes" : "no"}')
mem=$(awk -v k="${rssmax[0]}" 'BEGIN {print (k < 30 * 1024) ? "yes" : "no"}')
echo "target: butlerctl version <= 0.2x kubectl version --client: $ratio (${wall[0]} ms vs ${wall[2]} ms)"
echo "target: butlerctl version peak RSS < 30 MiB: $mem (max $(awk -v k="${rssmax[0]}" 'BEGIN {printf "%.1f", k / 1024}') MiB)"
[ "$ratio" = yes ] || ok=1
[ "$mem" = yes ] || ok=1
exit $ok
