#!/usr/bin/env bash
# Helm render benchmark: in one run, generates the tree of bench/manifests.sh (TenantClusters
# in TEAMS teams, one file each, with the Teams and the ProviderConfig they need) twice: as
# plain files, and with the same clusters rendered by a Helm chart of the repository
# (charts/clusters, whose template writes each cluster of its values) through HelmReleases
# sourced from the repository's GitRepository (flux-system/flux-system), each with its
# clusters in a values file (spec.chart.spec.valuesFiles). PER_RELEASE clusters a release:
# 200 by default (50 releases for 10,000 clusters: a values file stays under the loader's
# 1 MiB a document, since values files outside a chart are read as YAML too);
# PER_RELEASE=1 is one release a cluster,
# each with its cluster in spec.values. Then times in turn, round after round, with the
# same binary:
#
#   check, plain files   butlerctl check --manifests PLAIN-TREE
#   check, Helm charts   butlerctl check --manifests CHART-TREE
#
# It prints wall-time medians, CPU seconds (user + system: on a busy machine the steadier
# figure), peak memory, and the ratio of the chart tree's to the plain tree's.
#
#   bench/charts.sh                     # 10,000 clusters; builds bin/butlerctl
#   RUNS=5 CLUSTERS=2000 bench/charts.sh
#   PER_RELEASE=1 CLUSTERS=2000 bench/charts.sh
#   BUTLERCTL=/path/butlerctl KEEP=/tmp/charts bench/charts.sh
#
# Target: the chart tree's check at most 2x the plain tree's (wall). The exit status is 1
# when it is missed. Not part of make test: it takes minutes and wants a quiet machine.
# The third line is the floor, Helm's engine alone (bench/helmfloor) on the same releases,
# each loading its chart as `helm template` does: no check of the charts can cost much
# less than Helm rendering them (the check loads a chart once, a small saving).
#
# Measured on the shared 2-CPU development machine (RUNS=3, medians, load 14 to 19, so the
# CPU seconds are the figures to go by), 10,000 clusters in 60 releases, each binary with
# its own floor and plain rounds in the same run:
#   935bc08 (one core)            plain 3.28 CPU-s, charts 22.2 CPU-s (6.8x), floor 12.2
#                                 (3.7x); wall 9.5 s, 95.2 s, 39.4 s; 88, 179, 74 MiB
#   fe49798 (every core)          plain 4.12 CPU-s, charts 22.6 CPU-s (5.5x), floor 12.6
#                                 (3.1x); wall 12.9 s, 62.2 s, 38.0 s; 84, 195, 62 MiB
# The floor alone is 3 to 4 times the plain check's CPU: Helm's toYaml (JSON, then YAML),
# reading the values files (YAML to JSON to maps) and copying them (copystructure) are
# Helm's cost per document, so 2x cannot be met while charts render with Helm's library.
# A profile of the load at this size (go test -bench LoadTree with BUTLER_FLUX_TREE):
# Helm's engine (toYaml) 30%, decoding the rendered documents as manifests 25% (as the
# plain load decodes the same objects), reading the values 20%, coalescing them 8%; the
# split of Helm's output by its regular expression (9% before) is gone.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
CLUSTERS="${CLUSTERS:-10000}"
TEAMS="${TEAMS:-20}"
PER_RELEASE="${PER_RELEASE:-200}"
. bench/lib.sh
bench_init charts
tmp="$BENCH_TMP"
if [ -z "${BUTLERCTL:-}" ]; then
  make --no-print-directory build >/dev/null
  BUTLERCTL=bin/butlerctl
fi
go build -o "$tmp/bin/" ./bench/manifestgen ./bench/helmfloor
export XDG_CONFIG_HOME="$tmp" HOME="$tmp" KUBECONFIG="$tmp/none" NO_COLOR=1

plain="$tmp/plain"
gen="$("$tmp/bin/manifestgen" -dir "$plain" -clusters "$CLUSTERS" -teams "$TEAMS")"

# The chart tree: every file but the clusters as it is; the clusters as values of
# HelmReleases of one chart.
charts="${KEEP:-$tmp/charts}"
rm -rf "$charts"
mkdir -p "$charts/charts/clusters/templates" "$charts/values" "$charts/releases"
(cd "$plain" && find . -name '*.yaml' ! -path '*/clusters/*' -exec cp --parents {} "$charts/" \;)
cat >"$charts/charts/clusters/Chart.yaml" <<'EOF'
apiVersion: v2
name: clusters
version: 0.1.0
EOF
cat >"$charts/charts/clusters/templates/clusters.yaml" <<'EOF'
{{- range .Values.clusters }}
---
{{ toYaml . }}
{{- end }}
EOF
# values DIR FILES...: the clusters of FILES as one values list (comments left out).
values() {
  echo "clusters:"
  for f in "$@"; do
    grep -v '^#' "$f" | sed '1s/^/  - /; 2,$s/^/    /'
  done
}
release() { # release NAME NAMESPACE: a HelmRelease of the chart, values to follow
  cat <<EOF
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: $1
  namespace: $2
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/clusters
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
EOF
}
for team in $(cd "$plain" && ls -d team-* 2>/dev/null); do
  mapfile -t files < <(find "$plain/$team/clusters" -name '*.yaml' | sort)
  if [ "$PER_RELEASE" = 1 ]; then
    for f in "${files[@]}"; do
      n="$(basename "$f" .yaml)"
      { release "$n" "$team"; echo "  values:"; values "$f" | sed 's/^/    /'; } >"$charts/releases/$n.yaml"
    done
    continue
  fi
  for ((i = 0; i < ${#files[@]}; i += PER_RELEASE)); do
    n="$team-$((i / PER_RELEASE))"
    values "${files[@]:i:PER_RELEASE}" >"$charts/values/$n.yaml"
    { release "$n" "$team"; printf '      valuesFiles:\n        - values/%s.yaml\n' "$n"; } >"$charts/releases/$n.yaml"
  done
done

names=("check, plain files" "check, Helm charts" "Helm's engine alone")
cmds=("$BUTLERCTL check --manifests $plain" "$BUTLERCTL check --manifests $charts")
if [ "$PER_RELEASE" != 1 ]; then # the floor: the same releases, Helm's library only
  cmds+=("$tmp/bin/helmfloor $charts/charts/clusters $(find "$charts/values" -name '*.yaml' | sort | tr '\n' ' ')")
else
  names=("${names[@]:0:2}")
fi
echo "butlerctl: $BUTLERCTL ($("$BUTLERCTL" version | sed -n 1p))"
echo "tree:      $CLUSTERS clusters in $TEAMS teams: $gen; $(find "$charts/releases" -name '*.yaml' | wc -l) HelmReleases"
echo "machine:   $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS rounds after 1 warm-up"
echo

BENCH_FINDINGS='*check*'
bench_rounds "$RUNS"
bench_stats
printf '%-22s %9s %9s %8s %9s %15s\n' "command" "median s" "vs plain" "CPU s" "vs plain" "max RSS MiB"
for i in "${!cmds[@]}"; do
  printf '%-22s %9s %9s %8s %9s %15s\n' "${names[$i]}" "${wall[$i]}" "$(ratio "${wall[$i]}" "${wall[0]}")" \
    "${cpu[$i]}" "$(ratio "${cpu[$i]}" "${cpu[0]}")" "$(awk -v k="${rssmax[$i]}" 'BEGIN {printf "%.1f", k / 1024}')"
done
echo
r=$(awk -v a="${wall[1]}" -v b="${wall[0]}" 'BEGIN {print (a <= 2 * b) ? "yes" : "no"}')
echo "target: check of the Helm charts <= 2x the plain check: $r ($(ratio "${wall[1]}" "${wall[0]}"); CPU $(ratio "${cpu[1]}" "${cpu[0]}"))"
if [ "${#cmds[@]}" = 3 ]; then
  echo "floor:  Helm's engine alone, the same releases: $(ratio "${wall[2]}" "${wall[0]}") the plain check (CPU $(ratio "${cpu[2]}" "${cpu[0]}")); the check of the charts is $(ratio "${wall[1]}" "${wall[2]}") of it (CPU $(ratio "${cpu[1]}" "${cpu[2]}"))"
fi
[ "$r" = yes ]
