#!/usr/bin/env bash
# Render-path benchmark: for each size in SIZES, generates the tree of bench/manifests.sh
# (TenantClusters in TEAMS teams, one file each) twice: as plain files, and laid out as
# Butler's GitOps export lays it out for Flux (Teams and the ProviderConfig under
# infrastructure/configs/ with a kustomization.yaml, each team's clusters under
# apps/base/<team>/ with one, an apps/prod overlay with a patch, and clusters/mgmt/ holding
# flux-system and the Flux Kustomizations of both), then times in turn, round after round:
#
#   floor               bench/manifestfloor FLUX-TREE (reads and parses every file, all cores)
#   check, plain files  butlerctl check --manifests PLAIN-TREE
#   check, Flux render  butlerctl check --manifests FLUX-TREE (Flux entry points, kustomize
#                       builds, positions mapped back to the files)
#   ..., BASELINE       the same render by another binary (BASELINE=/path/butlerctl)
#
# It prints, per size, wall-time medians, their ratio to the floor and the render's to the
# plain check, CPU seconds (user + system: on a busy machine the steadier figure), peak
# memory and CPU microseconds per cluster; and, over the sizes, the render's CPU per
# cluster at the largest size against the smallest (1x: linear growth; the ratio of the
# sizes: square).
#
#   bench/flux.sh                       # 2,500 and 10,000 clusters; builds bin/butlerctl
#   RUNS=5 SIZES="1000 4000" bench/flux.sh
#   BUTLERCTL=/path/butlerctl BASELINE=/path/old-butlerctl bench/flux.sh
#   KEEP=/tmp/flux-tree bench/flux.sh     # keep the (last) Flux tree there
#
# Not part of make test: it takes minutes and wants a quiet machine. The Go benchmark of the
# render alone: go test -run '^$' -bench LoadTree -cpuprofile cpu.out ./pkg/gitops with
# BUTLER_FLUX_TREE set to a tree kept with KEEP.
# kustomize's resource map checks each object it adds against those it holds by a linear
# scan (resmap's Append, GetMatchingResourcesByCurrentId), so a kustomize build of N objects
# costs about N squared: 412 s at 10,000 clusters in one overlay. The render therefore
# builds a kustomization of plain resources (and a Flux directory without one) from the
# objects the load decoded, and gives kustomize only the files a patch may select
# (pkg/gitops/direct.go). Measured on the 2-CPU development machine under a load of 5 to
# 12, SIZES="1000 4000" RUNS=3, BASELINE the binary before that change (CPU seconds):
# render CPU per cluster at 4,000 vs 1,000 clusters 0.93x (before: 3.48x); render vs plain
# check 1.31x at 1,000 and 0.95x at 4,000 (before: 5.88x and 16.07x); peak 162 MiB at 4,000
# (before: 635 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

RUNS="${RUNS:-3}"
SIZES="${SIZES:-${CLUSTERS:-2500 10000}}"
TEAMS="${TEAMS:-20}"
bench_init flux
tmp="$BENCH_TMP"
if [ -z "${BUTLERCTL:-}" ]; then
  make --no-print-directory build >/dev/null
  BUTLERCTL=bin/butlerctl
fi
go build -o "$tmp/bin/" ./bench/manifestgen ./bench/manifestfloor
export XDG_CONFIG_HOME="$tmp" HOME="$tmp" KUBECONFIG="$tmp/none" NO_COLOR=1

kust() { # kust DIR ENTRY...: DIR/kustomization.yaml listing the entries
  local d="$1"
  shift
  {
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "resources:"
    for e in "$@"; do echo "  - $e"; done
  } >"$d/kustomization.yaml"
}

# fluxtree PLAIN FLUX: the export's layout of the objects of PLAIN, written to FLUX.
fluxtree() {
  local plain="$1" flux="$2" t team first ns k
  local configs=(provider.yaml) overlay=()
  rm -rf "$flux"
  mkdir -p "$flux/infrastructure/configs" "$flux/apps/prod" "$flux/clusters/mgmt/flux-system"
  cp "$plain/platform/provider.yaml" "$flux/infrastructure/configs/"
  for t in "$plain"/team-*; do
    team="$(basename "$t")"
    cp "$t/team.yaml" "$flux/infrastructure/configs/$team.yaml"
    configs+=("$team.yaml")
    mkdir -p "$flux/apps/base/$team"
    cp "$t"/clusters/*.yaml "$flux/apps/base/$team/"
    (cd "$flux/apps/base/$team" && kust . $(ls -1 *.yaml | sort))
    overlay+=("../base/$team")
  done
  kust "$flux/infrastructure/configs" "${configs[@]}"
  kust "$flux/apps/prod" "${overlay[@]}"
  first="$(ls -1 "$flux/apps/base/team-00" | grep -v kustomization | sort | head -1)"
  ns="$(sed -n 's/^  namespace: //p' "$flux/apps/base/team-00/$first" | head -1)"
  cat >>"$flux/apps/prod/kustomization.yaml" <<EOP
patches:
  - patch: |
      apiVersion: butler.butlerlabs.dev/v1alpha1
      kind: TenantCluster
      metadata:
        name: ${first%.yaml}
        namespace: $ns
      spec:
        workers:
          replicas: 2
EOP
  cat >"$flux/clusters/mgmt/flux-system/gotk-sync.yaml" <<'EOF2'
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, ref: {branch: main}, url: ssh://git@example.com/platform}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/mgmt, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
EOF2
  kust "$flux/clusters/mgmt/flux-system" gotk-sync.yaml
  for k in infra-configs:./infrastructure/configs apps:./apps/prod; do
    cat >"$flux/clusters/mgmt/${k%%:*}.yaml" <<EOF2
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: ${k%%:*}, namespace: flux-system}
spec: {interval: 10m, path: ${k#*:}, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
EOF2
  done
}

echo "butlerctl: $BUTLERCTL ($("$BUTLERCTL" version | sed -n 1p))"
echo "machine:   $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS rounds after 1 warm-up per size"

BENCH_FINDINGS='check*'
declare -a sizes per baseper
for n in $SIZES; do
  plain="$tmp/plain-$n"
  flux="${KEEP:-$tmp/flux-$n}"
  gen="$("$tmp/bin/manifestgen" -dir "$plain" -clusters "$n" -teams "$TEAMS")"
  fluxtree "$plain" "$flux"
  names=("floor (yaml.v3, all cores)" "check, plain files" "check, Flux render")
  cmds=("$tmp/bin/manifestfloor $flux" "$BUTLERCTL check --manifests $plain" "$BUTLERCTL check --manifests $flux")
  if [ -n "${BASELINE:-}" ]; then
    names+=("check, Flux render, BASELINE")
    cmds+=("$BASELINE check --manifests $flux")
  fi
  echo
  echo "tree:      $n clusters in $TEAMS teams: $gen; the Flux layout adds $(find "$flux" -name kustomization.yaml | wc -l) kustomization files"
  bench_rounds "$RUNS" "at $n clusters"
  bench_stats
  printf '%-28s %9s %13s %9s %8s %9s %12s %11s\n' "command" "median s" "min-max s" "vs floor" "CPU s" "vs floor" "max RSS MiB" "CPU us/clu"
  for i in "${!cmds[@]}"; do
    printf '%-28s %9s %13s %9s %8s %9s %12s %11s\n' "${names[$i]}" "${wall[$i]}" "${spread[$i]}" \
      "$(ratio "${wall[$i]}" "${wall[0]}")" "${cpu[$i]}" "$(ratio "${cpu[$i]}" "${cpu[0]}")" \
      "$(awk -v k="${rssmax[$i]}" 'BEGIN {printf "%.1f", k / 1024}')" \
      "$(awk -v c="${cpu[$i]}" -v n="$n" 'BEGIN {printf "%.0f", c * 1e6 / n}')"
  done
  echo "render vs plain check: wall $(ratio "${wall[2]}" "${wall[1]}"), CPU $(ratio "${cpu[2]}" "${cpu[1]}")"
  sizes+=("$n")
  per+=("$(awk -v c="${cpu[2]}" -v n="$n" 'BEGIN {print c / n}')")
  if [ -n "${BASELINE:-}" ]; then
    echo "BASELINE's render vs plain check: wall $(ratio "${wall[3]}" "${wall[1]}"), CPU $(ratio "${cpu[3]}" "${cpu[1]}")"
    baseper+=("$(awk -v c="${cpu[3]}" -v n="$n" 'BEGIN {print c / n}')")
  fi
  rm -rf "$plain"
  [ -n "${KEEP:-}" ] || rm -rf "$flux"
done
if [ "${#sizes[@]}" -gt 1 ]; then
  last=$((${#sizes[@]} - 1))
  echo
  echo "render CPU per cluster at ${sizes[$last]} vs ${sizes[0]} clusters: $(ratio "${per[$last]}" "${per[0]}") (1x: linear; $(ratio "${sizes[$last]}" "${sizes[0]}"): square)"
  if [ -n "${BASELINE:-}" ]; then
    echo "BASELINE's, the same:                    $(ratio "${baseper[$last]}" "${baseper[0]}")"
  fi
fi
