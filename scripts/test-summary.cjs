#!/usr/bin/env node
// `npm test`'s closing line (scripts/test.sh), last on purpose: CI reads the final test-runner
// summary, and schemathesis ends with a pytest-style line that counts no tests.
//
//   node scripts/test-summary.cjs <fuzz failed: 0|1> [<jest --json output> <jest's exit status>]...
//
// Sums the jest runs named (the main run, the cluster subset). A failed fuzzing run counts one
// failure, and so does a jest part that exited non-zero with no failed test in its results (jest
// or the cluster did not start, or no results were written). Prints nothing when nothing ran.
const { existsSync, readFileSync } = require('node:fs');

/** @param {{ fuzzFailed: boolean, parts: { results: any, status: number }[] }} run */
function summarize({ fuzzFailed, parts }) {
  const total = { passed: 0, failed: fuzzFailed ? 1 : 0, skipped: 0, counted: 0 };
  for (const { results, status } of parts) {
    const failures = results ? results.numFailedTests + results.numRuntimeErrorTestSuites : 0;
    if (results) {
      total.passed += results.numPassedTests;
      total.skipped += results.numPendingTests;
      total.counted += 1;
    }
    total.failed += failures + (status !== 0 && failures === 0 ? 1 : 0);
  }
  if (total.counted === 0 && total.failed === 0) return null;
  return `Tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
}

if (require.main === module) {
  const [fuzzFailed, ...rest] = process.argv.slice(2);
  const parts = [];
  for (let i = 0; i < rest.length; i += 2) {
    const file = rest[i];
    parts.push({ results: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null, status: Number(rest[i + 1]) });
  }
  const line = summarize({ fuzzFailed: fuzzFailed !== '0', parts });
  if (line) console.log(line);
}

module.exports = { summarize };
