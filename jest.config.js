/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // One Temporal dev server, one FerretDB and one workflow bundle for the whole run.
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  setupFiles: ['<rootDir>/test/support/quietRuntime.ts', '<rootDir>/test/support/featureHooks.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
  // A worker grows over the run's ~290 files; one ran out of heap on a CI run (fakeCallerTurns,
  // "Jest worker ran out of memory and crashed"). Past this it is replaced between files.
  workerIdleMemoryLimit: '1.5GB',
};
