const { summarize } = require('../../../scripts/test-summary.cjs') as {
  summarize: (run: { fuzzFailed: boolean; parts: { results: JestCounts | null; status: number }[] }) => string | null;
};

interface JestCounts {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numRuntimeErrorTestSuites: number;
}

const counts = (passed: number, failed: number, skipped = 0, runtimeErrors = 0): JestCounts => ({
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: skipped,
  numRuntimeErrorTestSuites: runtimeErrors,
});

/** `npm test`'s closing line (scripts/test.sh), which CI reads: the main run and the cluster subset summed. */
describe('scripts/test-summary.cjs', () => {
  it('sums the main run and the cluster subset', () => {
    const line = summarize({ fuzzFailed: false, parts: [{ results: counts(2300, 0, 12), status: 0 }, { results: counts(46, 0), status: 0 }] });
    expect(line).toBe('Tests: 2346 passed, 0 failed, 12 skipped');
  });

  it("counts the cluster subset's failed tests and suites that did not run", () => {
    const line = summarize({ fuzzFailed: false, parts: [{ results: counts(2300, 0, 12), status: 0 }, { results: counts(45, 1, 0, 1), status: 1 }] });
    expect(line).toBe('Tests: 2345 passed, 2 failed, 12 skipped');
  });

  it('counts one failure for a cluster that did not start (no results, a non-zero status)', () => {
    expect(summarize({ fuzzFailed: false, parts: [{ results: counts(2300, 0), status: 0 }, { results: null, status: 1 }] })).toBe('Tests: 2300 passed, 1 failed, 0 skipped');
    expect(summarize({ fuzzFailed: false, parts: [{ results: null, status: 0 }, { results: null, status: 1 }] })).toBe('Tests: 0 passed, 1 failed, 0 skipped');
  });

  it('counts one failure for a jest run that exited non-zero with no failed test', () => {
    expect(summarize({ fuzzFailed: false, parts: [{ results: counts(0, 0), status: 1 }] })).toBe('Tests: 0 passed, 1 failed, 0 skipped');
  });

  it('counts one failure for a failed fuzzing run', () => {
    expect(summarize({ fuzzFailed: true, parts: [{ results: counts(8, 0, 1), status: 0 }, { results: counts(46, 0), status: 0 }] })).toBe('Tests: 54 passed, 1 failed, 1 skipped');
  });

  it('prints nothing when no part ran and nothing failed (the cluster subset skipped, no results)', () => {
    expect(summarize({ fuzzFailed: false, parts: [{ results: null, status: 0 }, { results: null, status: 0 }] })).toBeNull();
  });
});

export {};
