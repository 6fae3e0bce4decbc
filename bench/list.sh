#!/usr/bin/env bash
# Listing benchmark on the test control plane: `butlerctl cluster list -A` against
# `kubectl get tenantclusters -A` (the testbin's kubectl) over 5,000 TenantClusters, in the
# same run, alternating. Prints the median wall time and peak RSS of both, and the ratios.
#
#   bench/list.sh                              # 5,000 clusters, 5 runs each
#   BUTLER_BENCH_CLUSTERS=1000 bench/list.sh
#   BUTLER_BENCH_RUNS=9 bench/list.sh
#
# Needs the control plane binaries (`make testbin`).
set -euo pipefail
cd "$(dirname "$0")/.."
BUTLER_BENCH_LIST=1 exec go test -count=1 -timeout 30m -run '^TestList5000$' -v ./bench/ "$@"
