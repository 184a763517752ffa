#!/usr/bin/env bash
# The cluster's CI-sized subset (docs/deploy.md, "Tests and benchmarks against the cluster"), run
# by scripts/test.sh after the main jest run: builds what the cluster needs if missing
# (scripts/setup-cluster-tools.sh), starts the compiled cluster launcher under a data folder and
# address of its own (.test-data/cluster, a free PORT: a cluster a person runs is left alone),
# runs the subset with TEST_TARGET=cluster against it, and stops it whatever happens.
# Expects dist/ compiled (scripts/test.sh does it first). Writes jest's JSON to the file named by
# its first argument; exits non-zero when the cluster did not start or a test failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
results="$1"
rm -f "$results"

# A call's lifecycle, campaigns through the API, webhook deliveries: each of them runs workflows
# on the cluster's Temporal (PostgreSQL, a process per service) and writes FerretDB on PostgreSQL.
SUBSET=(
  test/integration/calls/lifecycle.test.ts
  test/integration/campaigns/campaignsApi.test.ts
  test/integration/webhooks/delivery.test.ts
)

say() { printf '[test:cluster] %s\n' "$*" >&2; }
began=$SECONDS
pg="$(bash scripts/setup-cluster-tools.sh | tail -n 1)"
export "${pg?}"
say "cluster tools ready in $((SECONDS - began))s"

data=.test-data/cluster
# A fresh cluster each run, as on a clean clone: nothing left from an earlier run's databases.
rm -rf "$data"
mkdir -p "$data"
state="$data/cluster/cluster.json"
log="$data/launcher.log"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

launcher=""
stop_cluster() {
  [ -n "$launcher" ] || return 0
  local t0=$SECONDS
  # SIGINT: the launcher stops its children in reverse order (src/local/shutdown.ts); its
  # watchdog takes them down if the launcher itself dies.
  kill -INT "$launcher" 2>/dev/null || true
  wait "$launcher" 2>/dev/null || true
  launcher=""
  say "cluster stopped in $((SECONDS - t0))s"
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

say "starting the cluster (DATA_DIR=$data, PORT=$port; log $log)"
t0=$SECONDS
DATA_DIR="$data" PORT="$port" node dist/src/main/startCluster.js >"$log" 2>&1 &
launcher=$!
until [ -f "$state" ]; do
  if ! kill -0 "$launcher" 2>/dev/null; then
    launcher=""
    say "the cluster did not start; the end of $log:"
    tail -n 30 "$log" >&2
    exit 1
  fi
  if [ $((SECONDS - t0)) -gt 600 ]; then
    say "the cluster was not ready after 600s; the end of $log:"
    tail -n 30 "$log" >&2
    exit 1
  fi
  sleep 1
done
say "cluster ready in $((SECONDS - t0))s"

t0=$SECONDS
set +e
TEST_TARGET=cluster TEST_CLUSTER_FILE="$PWD/$state" npx --no-install jest --ci --maxWorkers=1 --json --outputFile="$results" "${SUBSET[@]}"
status=$?
set -e
say "subset took $((SECONDS - t0))s"
stop_cluster
say "cluster part took $((SECONDS - began))s"
exit $status
