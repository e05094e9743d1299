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
  // Three workers, not jest's default of one per core less one (1 on the 2-core machines this runs
  // on): most suites spend their time waiting on servers, child processes and timers (the soak
  // alone sleeps a minute), so with fewer workers the machine stood partly idle. One worker to two:
  // 629 s -> 351-353 s on 2026-11-26. Two to three: 574 s -> 492 s on 2026-11-27 (a slower day of
  // this machine; with two, its two cores were busy 83 % of the run), every suite passing.
  maxWorkers: 3,
  // How long a worker may take to end after its last test file before jest kills it and says "A
  // worker process has failed to exit gracefully" (default 500 ms). On these machines a worker that
  // ran backtests ends its event loop at once (no handle left: its exit handlers run within ~2 ms
  // of jest's end message) but the process then takes 0.5-1 s to be gone, freeing its memory: a
  // node process holding 2 GB took 280 ms from its exit handlers to its parent's exit event, and
  // jest's workers hold more. A handle left open (a server, a socket, an interval) keeps a worker
  // alive for good and is still reported.
  workerGracefulExitTimeout: 3000,
  // The longest files first, also on a clean clone with no durations of its own in jest's cache
  // (CI): tools/jest-order.cjs, with test/durations.json.
  testSequencer: '<rootDir>/tools/jest-order.cjs',
  // One temporary folder per run (TMPDIR for the workers and every process they start), removed
  // at the end: test/helpers/temp-root-setup.ts.
  globalSetup: '<rootDir>/test/helpers/temp-root-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/temp-root-teardown.ts',
};
