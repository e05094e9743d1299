/**
 * The order jest starts test files in (tools/jest-order.cjs): jest's cached duration of a file,
 * else test/durations.json, else unknown (first); files that failed last time before all.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LongestFirst = require('../../tools/jest-order.cjs') as new (o: object) => {
  sort(tests: FakeTest[]): FakeTest[];
  _cache: Map<object, Record<string, [number, number]>>;
};

interface FakeTest {
  path: string;
  context: object;
  duration?: number;
}

const table = JSON.parse(readFileSync(path.join(ROOT, 'test', 'durations.json'), 'utf8')) as Record<string, number>;
const byTable = Object.entries(table).sort((a, b) => b[1] - a[1]);
// Three files of the table with different durations: the longest, one in the middle, the shortest.
const [long, mid, short] = [byTable[0], byTable[Math.floor(byTable.length / 2)], byTable[byTable.length - 1]].map(([f]) => f);

function order(files: string[], cache: Record<string, [number, number]> = {}): string[] {
  const context = { config: { cache: false }, hasteFS: { getSize: () => 0 } };
  const seq = new LongestFirst({});
  // jest's perf cache of this context, as read from its cache directory: [0 failed | 1 passed, ms].
  seq._cache.set(context, Object.fromEntries(Object.entries(cache).map(([f, v]) => [path.join(ROOT, f), v])));
  return seq.sort(files.map((f) => ({ path: path.join(ROOT, f), context }))).map((t) => path.relative(ROOT, t.path).split(path.sep).join('/'));
}

test('the table has every test file of a full run, with durations that differ', () => {
  expect(byTable.length).toBeGreaterThan(100);
  expect(table[long]).toBeGreaterThan(table[mid]);
  expect(table[mid]).toBeGreaterThan(table[short]);
  // Paths of this checkout: a table written from a run in another worktree once held only
  // `../ft/test/...` keys, which match no file, and CI started its files in jest's size order.
  expect(Object.keys(table).filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
});

test('without jest durations, files start longest first by the table', () => {
  expect(order([short, long, mid])).toEqual([long, mid, short]);
});

test("jest's cached duration of a file wins over the table", () => {
  expect(order([short, long, mid], { [short]: [1, table[long] * 1000 + 1000] })).toEqual([short, long, mid]);
});

test('a file neither knows (a new one) starts first; a file that failed last time before it', () => {
  const fresh = 'test/a-new-file.test.ts';
  expect(order([short, fresh, long])).toEqual([fresh, long, short]);
  expect(order([short, fresh, long], { [short]: [0, 10] })).toEqual([short, fresh, long]);
});
