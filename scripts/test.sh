#!/usr/bin/env bash
# `npm test`: install what is missing, build the tools and the browser if missing, type-check,
# lint, compile (the end-to-end test runs the compiled launcher) and build the web console
# (its browser tests load it), then run jest, whose global setup starts
# private servers on free ports and stops them, then a bounded fuzzing run. Exits non-zero
# on any failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
began=$SECONDS
bash scripts/ensure-deps.sh
bash scripts/setup-tools.sh
bash scripts/ensure-browser.sh
bash scripts/ensure-audio.sh
echo "[test] type-checking, linting and compiling" >&2
npx --no-install tsc -p tsconfig.json --noEmit
npx --no-install oxlint --type-aware --deny-warnings
npx --no-install tsc -p tsconfig.build.json
bash scripts/build-web.sh
mkdir -p .test-data
results=.test-data/jest-results.json
rm -f "$results"
set +e
npx --no-install jest --ci --json --outputFile="$results" "$@"
status=$?
set -e
# A bounded fuzzing run (a few hundred requests, about a minute and a half) against a
# launched system: scripts/fuzz.sh, which `npm run fuzz` runs at full size.
echo "[test] fuzzing the public and console APIs (FUZZ_MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-5})" >&2
set +e
FUZZ_MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-5} FUZZ_KEYS=${FUZZ_KEYS:-10} bash scripts/fuzz.sh
fuzz_status=$?
set -e
[ $status = 0 ] && status=$fuzz_status
echo "[test] whole run took $((SECONDS - began))s" >&2
# The run's closing line, last on purpose: CI reads the final test-runner summary, and
# schemathesis ends with a pytest-style line that counts no tests.
if [ -f "$results" ]; then
  node -e '
    const r = require(process.argv[1]);
    const failed = r.numFailedTests + r.numRuntimeErrorTestSuites + Number(process.argv[2]);
    console.log(`Tests: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests} skipped`);
  ' "$PWD/$results" "$([ $fuzz_status = 0 ] && echo 0 || echo 1)"
fi
exit $status
