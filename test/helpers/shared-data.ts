/**
 * Real market data for tests (../shared/data, see its README): not part of the repository.
 *
 * The data directory is $PERPKIT_SHARED_DATA when set, else `<project root>/../shared/data`.
 * When a file is missing, the tests that need it FAIL with a message saying where it was looked
 * for, unless PERPKIT_ALLOW_MISSING_DATA=1 (outside CI only): then they are skipped, and the
 * reason is printed once per file. In CI (`CI` set) missing data is always a failure, and
 * `.ci/run` refuses to start without it.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export function sharedDataDir(): string {
  return process.env.PERPKIT_SHARED_DATA ?? path.resolve(ROOT, '..', 'shared', 'data');
}

/** The shared Binance USD-M capture (about 6 minutes of BTCUSDT, 2024-08-08). */
export const BINANCE_BTCUSDT = 'binance-usdm/btcusdt_20240808.gz';

/**
 * `describe` for tests that need the shared data file `rel`: runs `body(file)` with its absolute
 * path, or (missing file) one failing test, or a skipped block when missing data is allowed.
 */
export function describeWithSharedData(name: string, rel: string, body: (file: string) => void): void {
  const file = path.join(sharedDataDir(), rel);
  if (existsSync(file)) {
    describe(name, () => body(file));
    return;
  }
  const why = `${file} is missing (the real-data tests need ../shared/data; set PERPKIT_SHARED_DATA to its directory)`;
  if (process.env.CI === undefined && process.env.PERPKIT_ALLOW_MISSING_DATA === '1') {
    process.stderr.write(`SKIPPED "${name}": ${why}; PERPKIT_ALLOW_MISSING_DATA=1 allowed the skip\n`);
    describe.skip(name, () => body(file));
    return;
  }
  describe(name, () => {
    test('needs the shared data file', () => {
      throw new Error(`${why}. Outside CI, PERPKIT_ALLOW_MISSING_DATA=1 skips these tests instead.`);
    });
  });
}
