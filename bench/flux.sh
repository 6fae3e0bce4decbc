#!/usr/bin/env bash
# Render-path benchmark (issue 23, "Speed"): in one run, generates the tree of
# bench/manifests.sh (10,000 TenantClusters in 20 teams, one file each) twice: as plain
# files, and laid out as Butler's GitOps export lays it out for Flux (Teams and the
# ProviderConfig under infrastructure/configs/ with a kustomization.yaml, each team's
# clusters under apps/base/<team>/ with one, an apps/prod overlay with a patch, and
# clusters/mgmt/ holding flux-system and the Flux Kustomizations of both), then times in
# turn, round after round:
#
#   floor               bench/manifestfloor FLUX-TREE (reads and parses every file, all cores)
#   check, plain files  butlerctl check --manifests PLAIN-TREE
#   check, Flux render  butlerctl check --manifests FLUX-TREE (kustomize builds, Flux entry
#                       points, positions mapped back to the files)
#
# It prints wall-time medians, their ratio to the floor and the render's to the plain check,
# CPU seconds (user + system: on a busy machine the steadier figure) and peak memory.
#
#   bench/flux.sh                       # builds bin/butlerctl with `make build` first
#   RUNS=9 CLUSTERS=2000 TEAMS=5 bench/flux.sh
#   BUTLERCTL=/path/butlerctl bench/flux.sh
#   KEEP=/tmp/flux-tree bench/flux.sh     # keep the Flux tree there
#
# Not part of make test: it takes minutes and wants a quiet machine. Most of the render's
# time is kustomize's own build (over 90% of its CPU in a profile at 1,000 clusters:
# go test -run '^$' -bench LoadTree -cpuprofile cpu.out ./pkg/gitops with
# BUTLER_FLUX_TREE set to a tree kept with KEEP), and kustomize's resource map checks each
# object it adds against those it holds, so one build of N objects costs about N squared:
# at 10,000 clusters in one overlay, expect many minutes (kubectl kustomize costs the same).
# Where exactly: resmap's Append looks for an object of the same id by a linear scan
# (GetMatchingResourcesByCurrentId), and takes each held object's id by reading its kind
# and version out of its YAML node again (Resource.CurId, resid.GvkFromNode); every level
# of the overlay appends again what its bases built (MergeAccumulator, AppendAll). At 1,000
# clusters that scan is already 31% of the render's CPU, the YAML parse of the bases 19%;
# the loader's own work (decoding what kustomize rendered and placing it) under 5%. The
# cure is an index by id in kustomize's resource map, not anything the loader does.
# Measured on the 2-CPU development machine under a load of 5 to 17 (single runs, noisy):
# 2,000 clusters: render 26.8x the floor (wall), 26.0x (CPU), 10.3x the plain check;
# 4,000: 29.7 s against a 1.4 s floor (about 22x wall, 27x CPU), 632 MiB;
# 10,000: 412 s against a 3.1 s floor (about 133x wall, 123x CPU), 1.5 GiB.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
CLUSTERS="${CLUSTERS:-10000}"
TEAMS="${TEAMS:-20}"
if [ ! -x /usr/bin/time ]; then
  echo "flux: /usr/bin/time (GNU time) is needed for peak memory: apt-get install -y time" >&2
  exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -z "${BUTLERCTL:-}" ]; then
  make --no-print-directory build >/dev/null
  BUTLERCTL=bin/butlerctl
fi
go build -o "$tmp/bin/" ./bench/manifestgen ./bench/manifestfloor
export XDG_CONFIG_HOME="$tmp" HOME="$tmp" KUBECONFIG="$tmp/none" NO_COLOR=1

plain="$tmp/plain"
gen="$("$tmp/bin/manifestgen" -dir "$plain" -clusters "$CLUSTERS" -teams "$TEAMS")"

# The export's layout of the same objects.
flux="${KEEP:-$tmp/flux}"
rm -rf "$flux"
mkdir -p "$flux/infrastructure/configs" "$flux/apps/prod" "$flux/clusters/mgmt/flux-system"
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
cp "$plain/platform/provider.yaml" "$flux/infrastructure/configs/"
configs=(provider.yaml)
overlay=()
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

names=("floor (yaml.v3, all cores)" "check, plain files" "check, Flux render")
cmds=("$tmp/bin/manifestfloor $flux" "$BUTLERCTL check --manifests $plain" "$BUTLERCTL check --manifests $flux")

echo "butlerctl: $BUTLERCTL ($("$BUTLERCTL" version | sed -n 1p))"
echo "tree:      $CLUSTERS clusters in $TEAMS teams: $gen; the Flux layout adds $(find "$flux" -name kustomization.yaml | wc -l) kustomization files"
echo "machine:   $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS rounds after 1 warm-up"
echo

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for round in $(seq 0 "$RUNS"); do
  for i in "${!cmds[@]}"; do
    read -r -a argv <<<"${cmds[$i]}"
    rc=0
    /usr/bin/time -f '%e %M %U %S' -o "$tmp/t" "${argv[@]}" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" != 0 ] && ! { [ "$rc" = 4 ] && [[ "${names[$i]}" == check* ]]; }; then
      echo "flux: ${names[$i]} failed:" >&2
      head -5 "$tmp/out" >&2
      exit 2
    fi
    [ "$round" = 0 ] && continue
    read -r wall rss user sys < <(tail -1 "$tmp/t")
    echo "$wall" >>"$tmp/w$i"
    awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}' >>"$tmp/c$i"
    echo "$rss" >>"$tmp/r$i"
  done
done

declare -a wall cpu rssmax
for i in "${!cmds[@]}"; do
  wall[$i]="$(median <"$tmp/w$i")"
  cpu[$i]="$(median <"$tmp/c$i")"
  rssmax[$i]="$(sort -n "$tmp/r$i" | tail -1)"
  spread[$i]="$(sort -n "$tmp/w$i" | sed -n '1p;$p' | paste -sd- -)"
done
printf '%-28s %9s %13s %9s %8s %9s %12s\n' "command" "median s" "min-max s" "vs floor" "CPU s" "vs floor" "max RSS MiB"
for i in "${!cmds[@]}"; do
  printf '%-28s %9s %13s %9s %8s %9s %12s\n' "${names[$i]}" "${wall[$i]}" "${spread[$i]}" \
    "$(awk -v a="${wall[$i]}" -v b="${wall[0]}" 'BEGIN {printf "%.2fx", a / b}')" \
    "${cpu[$i]}" "$(awk -v a="${cpu[$i]}" -v b="${cpu[0]}" 'BEGIN {printf "%.2fx", a / b}')" \
    "$(awk -v k="${rssmax[$i]}" 'BEGIN {printf "%.1f", k / 1024}')"
done
echo
echo "render vs plain check: wall $(awk -v a="${wall[2]}" -v b="${wall[1]}" 'BEGIN {printf "%.2fx", a / b}'), CPU $(awk -v a="${cpu[2]}" -v b="${cpu[1]}" 'BEGIN {printf "%.2fx", a / b}')"
