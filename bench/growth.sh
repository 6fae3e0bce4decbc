#!/usr/bin/env bash
# Growth benchmark: how `butlerctl check --manifests` scales with the size of the tree. For
# each size in SIZES it generates the tree of bench/manifests.sh (TenantClusters in TEAMS
# teams, one file each) and times, in turn and round after round, the floor
# (bench/manifestfloor: reads and parses every file with yaml.v3 on all cores), check, and
# kubeconform when it is found (KUBECONFORM, else on PATH), with schemas generated from the
# project's CRDs (bench/crdschema, as kubeconform's openapi2jsonschema makes them) and
# -strict. It prints, per size, the medians of wall and CPU seconds, their ratios to the
# floor, the largest peak memory, and per cluster: CPU microseconds and KiB of peak memory
# (flat columns mean linear growth); and kubeconform's files per second against check's.
#
#   bench/growth.sh                                 # 1,000 10,000 30,000 100,000 clusters
#   SIZES="1000 10000" RUNS=5 bench/growth.sh
#   BUTLERCTL=/path/butlerctl KUBECONFORM=/path/kubeconform bench/growth.sh
#
# kubeconform: go install github.com/yannh/kubeconform/cmd/kubeconform@latest
# Targets (the exit status is 1 when one is missed): peak memory at most 200 MiB at
# 100,000 clusters; check faster than kubeconform in files per second at every size.
# Measured once the loader had its own parser for plain YAML (1 round, quiet machine):
# check's CPU 0.83x, 0.52x, 0.61x, 0.70x the floor's at 1,000, 10,000, 30,000, 100,000
# clusters (170-250 us a cluster: linear); 2.6x, 3.0x, 3.4x, 3.5x kubeconform's files per
# second; peak 49, 155, 425, 1,328 MiB (14 KiB a cluster: the 200 MiB target is missed).
# Once check loaded a plain tree lean (a record a cluster, each read again when judged;
# the soft memory limit following the live heap), 1 round, quiet machine: CPU 1.08x,
# 1.06x, 1.37x the floor's at 10,000, 30,000, 100,000 (324, 328, 359 us a cluster:
# linear); 2.0x, 2.0x, 2.2x kubeconform's files per second; peak 59, 89, 167 MiB (1.7 KiB
# a cluster at 100,000: the target is met).
# Once the clusters of a set were one collection (pkg/manifest Set.Clusters, records past a
# load's first 256 KiB), main's binary and this one's interleaved, 1 round, load 11 to 15,
# check's CPU-s and max RSS MiB, main -> this: 3.18 -> 3.33 and 93 -> 96 at 10,000 (an
# earlier build of this one); 29.17 -> 27.60 and 231 -> 234 at 100,000.
# Not part of make test: at 100,000 clusters (about 360 MiB of YAML) it takes many minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
SIZES="${SIZES:-1000 10000 30000 100000}"
TEAMS="${TEAMS:-20}"
. bench/lib.sh
bench_init growth
tmp="$BENCH_TMP"
if [ -z "${BUTLERCTL:-}" ]; then
  make --no-print-directory build >/dev/null
  BUTLERCTL=bin/butlerctl
fi
KUBECONFORM="${KUBECONFORM:-$(command -v kubeconform || true)}"
go build -o "$tmp/bin/" ./bench/manifestgen ./bench/manifestfloor ./bench/crdschema
"$tmp/bin/crdschema" -out "$tmp/schemas" config/crd/*.yaml >/dev/null
export XDG_CONFIG_HOME="$tmp" HOME="$tmp" KUBECONFIG="$tmp/none" NO_COLOR=1

echo "butlerctl:   $BUTLERCTL ($("$BUTLERCTL" version | sed -n 1p))"
echo "kubeconform: ${KUBECONFORM:-not found (KUBECONFORM=/path, or go install github.com/yannh/kubeconform/cmd/kubeconform@latest)}"
echo "machine:     $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS rounds after 1 warm-up per size"
echo

printf '%8s %-12s %9s %9s %8s %9s %12s %12s %14s\n' clusters command "median s" "vs floor" "CPU s" "vs floor" "max RSS MiB" "CPU us/clu" "RSS KiB/clu"
ok=0
for n in $SIZES; do
  tree="$tmp/tree-$n"
  "$tmp/bin/manifestgen" -dir "$tree" -clusters "$n" -teams "$TEAMS" >/dev/null
  names=(floor check)
  cmds=("$tmp/bin/manifestfloor $tree" "$BUTLERCTL check --manifests $tree")
  if [ -n "$KUBECONFORM" ]; then
    names+=(kubeconform)
    cmds+=("$KUBECONFORM -strict -summary -schema-location $tmp/schemas/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json $tree")
  fi
  bench_rounds "$RUNS" "at $n clusters"
  bench_stats
  for i in "${!cmds[@]}"; do
    rss[$i]="${rssmax[$i]}" # the largest peak
    printf '%8s %-12s %9s %9s %8s %9s %12s %12s %14s\n' "$n" "${names[$i]}" "${wall[$i]}" \
      "$(ratio "${wall[$i]}" "${wall[0]}")" "${cpu[$i]}" "$(ratio "${cpu[$i]}" "${cpu[0]}")" \
      "$(awk -v k="${rss[$i]}" 'BEGIN {printf "%.1f", k / 1024}')" \
      "$(awk -v c="${cpu[$i]}" -v n="$n" 'BEGIN {printf "%.0f", c * 1e6 / n}')" \
      "$(awk -v k="${rss[$i]}" -v n="$n" 'BEGIN {printf "%.2f", k / n}')"
  done
  if [ -n "$KUBECONFORM" ]; then
    faster=$(awk -v a="${wall[1]}" -v b="${wall[2]}" 'BEGIN {print (a < b) ? "yes" : "no"}')
    echo "         check vs kubeconform, files per second: $(ratio "${wall[2]}" "${wall[1]}") (faster: $faster)"
    [ "$faster" = yes ] || ok=1
  fi
  if [ "$n" = 100000 ]; then
    m=$(awk -v k="${rss[1]}" 'BEGIN {print (k <= 200 * 1024) ? "yes" : "no"}')
    echo "         target: check peak RSS <= 200 MiB at 100,000 clusters: $m"
    [ "$m" = yes ] || ok=1
  fi
  rm -rf "$tree"
done
exit $ok
