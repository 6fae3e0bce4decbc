#!/usr/bin/env bash
# Webhook load benchmark on the test control plane: 20 clients at once creating and scaling
# TenantClusters in a namespace holding 10,000 (which the webhook reads, as the team's usage,
# on every create and every scale-up), with Butler's validating webhook registered and
# enforcing, and, alternating with it in the same run, the same writes with the webhook
# configuration removed. Prints p50/p99 latency and throughput of both, and the ratios.
#
#   bench/webhook.sh                           # 10,000 clusters, 2 rounds of 20x10 writes per mode
#   BUTLER_BENCH_CLUSTERS=2000 bench/webhook.sh
#   BUTLER_BENCH_WRITES=20 BUTLER_BENCH_ROUNDS=3 bench/webhook.sh
#   BUTLER_BENCH_CLIENTS=4 bench/webhook.sh      # fewer writers at once
#
# Needs the control plane binaries (`make testbin`). Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUTLER_BENCH_WEBHOOK_LOAD=1 exec go test -count=1 -timeout 60m -run '^TestWebhookLoad$' -v ./bench/ "$@"
