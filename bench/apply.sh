#!/usr/bin/env bash
# Apply benchmark on the test control plane: `butlerctl apply -f DIR` against
# `kubectl apply --server-side -f DIR` (the testbin's kubectl) over 1,000 TenantClusters, a
# file each, in the same run, alternating: each creates them (deleted before), then applies
# them again (unchanged). Prints the median wall times and the ratios (target: at most 1.5).
#
#   bench/apply.sh                              # 1,000 clusters, 3 runs each
#   BUTLER_BENCH_CLUSTERS=200 bench/apply.sh
#   BUTLER_BENCH_RUNS=5 bench/apply.sh
#   BUTLER_BENCH_CONCURRENCY=4 bench/apply.sh     # passes --concurrency to the tool
#
# Needs the control plane binaries (`make testbin`).
set -euo pipefail
cd "$(dirname "$0")/.."
BUTLER_BENCH_APPLY=1 exec go test -count=1 -timeout 30m -run '^TestApply1000$' -v ./bench/ "$@"
