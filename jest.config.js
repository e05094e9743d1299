/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/strategies'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type-checking is done once by `npm run typecheck`; jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  testTimeout: 30000,
  // Two workers, not jest's default of one per core less one (1 on the 2-core machines this runs
  // on): most suites spend their time waiting on servers, child processes and timers (the soak
  // alone sleeps a minute), so with one worker the machine stood half idle. 629 s -> 351-353 s
  // for the whole suite on 2026-11-26, every suite passing in each of two runs.
  maxWorkers: 2,
  // One temporary folder per run (TMPDIR for the workers and every process they start), removed
  // at the end: test/helpers/temp-root-setup.ts.
  globalSetup: '<rootDir>/test/helpers/temp-root-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/temp-root-teardown.ts',
};
