#!/usr/bin/env bash
# Migration benchmark on the test control plane: `butleradm env migrate` over 1,000
# TenantClusters, then the plain kubectl way (annotate, label, annotate-remove, each over
# the selection) over the same clusters put back as they were, then the floor: the same two
# patches per cluster from a bare HTTP client. Prints the times, the ratios and the CPU
# seconds of each process (client, kube-apiserver, etcd).
#
#   bench/migrate.sh            # 1,000 clusters
#   BUTLER_BENCH_CLUSTERS=200 bench/migrate.sh
#   BUTLER_BENCH_CONCURRENCY=16 bench/migrate.sh   # passes --concurrency to the tool
#   BUTLER_BENCH_WEBHOOK=1 bench/migrate.sh        # Butler's webhook registered and enforcing
#   BUTLER_BENCH_PPROF=/tmp/prof bench/migrate.sh  # API server CPU profiles of each phase
#   BUTLER_BENCH_RTT=2ms bench/migrate.sh          # clients a 2 ms round trip from the server
#   taskset -c 0 bench/migrate.sh                  # everything on one core
#
# Needs the control plane binaries (`make testbin`).
set -euo pipefail
cd "$(dirname "$0")/.."
BUTLER_BENCH_MIGRATE=1 exec go test -count=1 -timeout 30m -run '^TestMigrate1000$' -v ./bench/ "$@"
