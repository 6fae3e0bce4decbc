#!/usr/bin/env bash
# Migration benchmark on the test control plane: `butleradm env migrate` over 1,000
# TenantClusters, against the plain kubectl way (annotate, label, annotate-remove, each over
# the selection) over 1,000 others, in the same run. Prints both times and the ratio.
#
#   bench/migrate.sh            # 1,000 clusters
#   BUTLER_BENCH_CLUSTERS=200 bench/migrate.sh
#   BUTLER_BENCH_CONCURRENCY=16 bench/migrate.sh   # passes --concurrency to the tool
#
# Needs the control plane binaries (`make testbin`).
set -euo pipefail
cd "$(dirname "$0")/.."
BUTLER_BENCH_MIGRATE=1 exec go test -count=1 -timeout 30m -run '^TestMigrate1000$' -v ./bench/ "$@"
