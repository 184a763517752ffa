#!/usr/bin/env bash
# `npm test`: install what is missing, build the tools and the browser if missing, type-check,
# lint, compile (the end-to-end test runs the compiled launcher) and build the web console
# (its browser tests load it), then run jest, whose global setup starts
# private servers on free ports and stops them, then the cluster's CI-sized subset against a
# cluster of its own (scripts/test-cluster.sh), then a bounded fuzzing run. Exits non-zero
# on any failure.
#   TEST_CLUSTER  unset: the cluster subset runs with the whole suite, not with `npm test -- <paths>`
#                 (a focused run; the subset is three fixed files, about three minutes);
#                 0: never; 1: also with paths; only: the cluster subset alone (no type-check,
#                 lint, main jest run or fuzzing), for work on the cluster.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
began=$SECONDS
case "${TEST_CLUSTER:-}" in
  '') if [ $# = 0 ]; then cluster=1; else cluster=0; fi ;;
  0 | 1 | only) cluster=$TEST_CLUSTER ;;
  *) echo "[test] TEST_CLUSTER is '$TEST_CLUSTER': use 0, 1 or only" >&2; exit 2 ;;
esac
# The main run uses its own private servers: a TEST_TARGET left in the shell must not send it to a cluster.
unset TEST_TARGET TEST_CLUSTER_FILE
bash scripts/ensure-deps.sh
if [ "$cluster" = 0 ]; then bash scripts/setup-tools.sh; else bash scripts/setup-tools.sh --with-cluster; fi
# PostgreSQL (Debian's, installed when missing) for the cluster and for the main run's test of
# FerretDB's PostgreSQL handler (test/integration/platform/ferretdbPgIdIndex.test.ts).
if [ "$cluster" != 0 ]; then
  pg="$(bash scripts/setup-cluster-tools.sh | tail -n 1)"
  export "${pg?}"
fi
[ "$cluster" = only ] || bash scripts/ensure-browser.sh
[ "$cluster" = only ] || bash scripts/ensure-audio.sh
if [ "$cluster" != only ]; then
  echo "[test] type-checking and linting" >&2
  npx --no-install tsc -p tsconfig.json --noEmit
  npx --no-install oxlint --type-aware --deny-warnings
fi
echo "[test] compiling" >&2
npx --no-install tsc -p tsconfig.build.json
bash scripts/build-web.sh
mkdir -p .test-data
results=.test-data/jest-results.json
cluster_results=.test-data/jest-cluster-results.json
rm -f "$results" "$cluster_results"
main_status=0
if [ "$cluster" != only ]; then
  set +e
  npx --no-install jest --ci --json --outputFile="$results" "$@"
  main_status=$?
  set -e
fi
cluster_status=0
if [ "$cluster" != 0 ]; then
  echo "[test] the cluster's CI-sized subset against a cluster of its own (scripts/test-cluster.sh)" >&2
  set +e
  bash scripts/test-cluster.sh "$cluster_results"
  cluster_status=$?
  set -e
fi
status=$main_status
[ $status = 0 ] && status=$cluster_status
# A bounded fuzzing run (a few hundred requests, about a minute and a half) against a
# launched system: scripts/fuzz.sh, which `npm run fuzz` runs at full size.
fuzz_status=0
if [ "$cluster" != only ]; then
  echo "[test] fuzzing the public and console APIs (FUZZ_MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-5})" >&2
  set +e
  FUZZ_MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-5} FUZZ_KEYS=${FUZZ_KEYS:-10} bash scripts/fuzz.sh
  fuzz_status=$?
  set -e
fi
[ $status = 0 ] && status=$fuzz_status
echo "[test] whole run took $((SECONDS - began))s" >&2
# The run's closing line, last on purpose (CI reads it): both jest runs summed, a failed
# fuzzing run or a part that failed without a failed test counting one failure each.
node scripts/test-summary.cjs "$([ $fuzz_status = 0 ] && echo 0 || echo 1)" "$results" "$main_status" "$cluster_results" "$cluster_status"
exit $status
