'use strict';
/**
 * The order jest starts the test files in (jest.config.js `testSequencer`): the longest first, so
 * that no long file starts late and runs on alone at the end while the other workers stand idle.
 *
 * jest's own order does this only with durations from an earlier run on the same machine (its
 * cache); without them, as on a clean clone in CI, it goes by file size, and size says little
 * here: the package test (npm pack, a clean build, installs, a user's project; ~2.5 min) is the
 * 21st largest file, the report rendered in Chromium (~1 min) the 103rd, the soak (a minute of
 * faults) the 54th. So a file's duration is, in turn: jest's cache (this machine's last run), then
 * test/durations.json (a full run's figures, committed), then unknown: a new file, started first as
 * jest starts files it has no duration for. Files that failed last time still start first.
 *
 * `node tools/jest-order.cjs <jest --json output>` writes test/durations.json from a full run
 * (`npx jest --json --outputFile=<file>`): seconds per file, relative to the repository.
 */
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TABLE = path.join(ROOT, 'test', 'durations.json');

/** Seconds per file (repository-relative, '/' separated) from the committed table; {} without one. */
function committed() {
  try {
    return JSON.parse(readFileSync(TABLE, 'utf8'));
  } catch (e) {
    if (e && e.code === 'ENOENT') return {};
    throw new Error(`${TABLE}: ${e.message} (rewrite it: node tools/jest-order.cjs <jest --json output>)`);
  }
}

const relative = (file, root = ROOT) => path.relative(root, file).split(path.sep).join('/');

/**
 * The checkout a test file of a run belongs to: the nearest directory above it with a
 * jest.config.js. A run made in another worktree (/work/ft) is written by paths relative to that
 * worktree, not as `../ft/test/...`, which no checkout's files would ever match.
 */
function checkoutOf(file) {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'jest.config.js'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`${file}: no jest.config.js above it; run the tool where the tests ran`);
  }
}

if (require.main === module) {
  const from = process.argv[2];
  if (!from) {
    process.stderr.write('usage: node tools/jest-order.cjs <jest --json output of a full run>\n');
    process.exit(2);
  }
  const run = JSON.parse(readFileSync(from, 'utf8'));
  if (!Array.isArray(run.testResults) || run.testResults.length === 0) {
    process.stderr.write(`${from}: no testResults; expected the output of jest --json --outputFile\n`);
    process.exit(2);
  }
  // By path, so that a rewrite's diff shows the files whose figure moved.
  const table = {};
  for (const [file, secs] of run.testResults.map((t) => [relative(t.name, checkoutOf(t.name)), (t.endTime - t.startTime) / 1000]).sort((a, b) => (a[0] < b[0] ? -1 : 1))) table[file] = Math.round(secs * 10) / 10;
  writeFileSync(TABLE, `${JSON.stringify(table, null, 2)}\n`);
  process.stdout.write(`wrote ${relative(TABLE)}: ${run.testResults.length} files\n`);
} else {
  const Sequencer = require('@jest/test-sequencer').default;

  module.exports = class LongestFirst extends Sequencer {
    sort(tests) {
      const table = committed();
      for (const t of tests) {
        const cached = this.time(t);
        const known = table[relative(t.path)];
        // jest's cache is in ms, the table in seconds.
        t.duration = cached !== undefined ? cached : known !== undefined ? known * 1000 : undefined;
      }
      return tests.sort((a, b) => {
        const failedA = this.hasFailed(a);
        if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
        if ((a.duration === undefined) !== (b.duration === undefined)) return a.duration === undefined ? -1 : 1;
        if (a.duration !== b.duration) return b.duration - a.duration;
        return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
      });
    }
  };
}
