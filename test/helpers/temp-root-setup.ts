/**
 * Jest's globalSetup: one temporary folder per test run. TMPDIR points into it before the workers
 * start, so every suite's `os.tmpdir()` and every process a suite starts (the CLI, the daemon,
 * Chromium, redis-server) make their temporary files there, and the teardown
 * (temp-root-teardown.ts) removes it whole. Suites clean up after themselves where they can; this
 * is the guarantee for what a failed or killed child leaves: two full runs had left ~170 folders
 * in the system's temp folder.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const TEMP_ROOT_ENV = 'PERPKIT_TEST_TEMP_ROOT';

export default function setup(): void {
  const root = mkdtempSync(path.join(tmpdir(), 'perpkit-test-'));
  process.env[TEMP_ROOT_ENV] = root;
  process.env.TMPDIR = root;
}
