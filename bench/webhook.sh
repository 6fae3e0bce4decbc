#!/usr/bin/env bash
# Webhook load benchmark on the test control plane: 20 clients at once creating and scaling
# TenantClusters in a namespace already holding N clusters, with `butleradm webhook serve`
# (built from this tree, a process of its own) registered and enforcing, and, alternating
# with it in the same run, the same writes with the webhook configuration removed. Prints
# p50/p99 latency and throughput of both, the ratios, and the webhook's peak memory; one
# run (one control plane) per size.
#
#   bench/webhook.sh                                   # 1,000, 10,000 and 30,000 clusters
#   BUTLER_BENCH_SIZES=2000 bench/webhook.sh
#   BUTLER_BENCH_WRITES=20 BUTLER_BENCH_ROUNDS=3 bench/webhook.sh
#   BUTLER_BENCH_CLIENTS=4 bench/webhook.sh              # fewer writers at once
#
# Needs the control plane binaries (`make testbin`). Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
for n in ${BUTLER_BENCH_SIZES:-1000 10000 30000}; do
	BUTLER_BENCH_WEBHOOK_LOAD=1 BUTLER_BENCH_CLUSTERS=$n go test -count=1 -timeout 60m -run '^TestWebhookLoad$' -v ./bench/ "$@" |
		grep -E '^(--- |ok|FAIL|PASS)|webhook_test.go'
done
