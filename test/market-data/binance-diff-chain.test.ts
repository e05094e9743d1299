/**
 * Binance's depth update-id chain (binance-diff-chain.ts) step by step, for diffs read by the
 * general path (levels as arrays, no JSON text): the repeat of the diff just taken is dropped,
 * anything else that breaks the pu rule is a gap.
 */
import { breakChain, chainFromSnapshot, diffStep, R_BEFORE_SNAPSHOT, R_REPEATED, type DiffChain } from '../../src/market-data/import/binance-diff-chain';
import type { Diff } from '../../src/market-data/import/binance-scan';

const diff = (U: number, u: number, pu: number, q = '1.000', et = 1000 + u): Diff => ({ t: 5000 + u, et, U, u, pu, b: [['100.00', q]], a: [] });

/** A step as the importer takes it: an applied diff goes into the book (binance-futures.ts, writeBook). */
function take(c: DiffChain, d: Diff): ReturnType<typeof diffStep> {
  const step = diffStep(c, d);
  if (step.take === 'apply') c.book?.apply(d.b ?? [], d.a ?? [], d.u);
  return step;
}

function chain(): DiffChain {
  const c: DiffChain = { book: undefined, awaitingFirst: false, pending: [], taken: undefined };
  chainFromSnapshot(c, [['100.00', '2.000']], [['100.10', '1.000']], 10);
  return c;
}

test.each([
  ['a diff older than the snapshot', [diff(5, 8, 4)], 'skip', R_BEFORE_SNAPSHOT],
  ['the first diff straddling the snapshot', [diff(9, 12, 8)], 'apply', undefined],
  ['the next diff by its pu', [diff(9, 12, 8), diff(13, 15, 12)], 'apply', undefined],
  ['the diff just taken again (another receive time)', [diff(9, 12, 8), diff(13, 15, 12), { ...diff(13, 15, 12), t: 9999 }], 'skip', R_REPEATED],
  ['the diff just taken again, then the next by its pu', [diff(9, 12, 8), diff(13, 15, 12), diff(13, 15, 12), diff(16, 17, 15)], 'apply', undefined],
  ['the same ids, another quantity', [diff(9, 12, 8), diff(13, 15, 12), diff(13, 15, 12, '3.000')], 'gap', "pu 12 does not follow the previous diff's u 15"],
  ['the same ids, another event time', [diff(9, 12, 8), diff(13, 15, 12), diff(13, 15, 12, '1.000', 7)], 'gap', "pu 12 does not follow the previous diff's u 15"],
  ['a diff taken before the last one, again', [diff(9, 12, 8), diff(13, 15, 12), diff(9, 12, 8)], 'gap', "pu 8 does not follow the previous diff's u 15"],
  ['a diff that skips ids', [diff(9, 12, 8), diff(14, 15, 13)], 'gap', "pu 13 does not follow the previous diff's u 12"],
])('%s', (_name, diffs, expected, reason) => {
  const c = chain();
  let step = take(c, diffs[0]);
  for (const d of diffs.slice(1)) step = take(c, d);
  expect(step.take).toBe(expected);
  expect('reason' in step ? step.reason : undefined).toBe(reason);
});

test('after a gap and a new snapshot, the diff taken before the gap is no longer the one a repeat is of', () => {
  const c = chain();
  const first = diff(9, 12, 8);
  expect(take(c, first).take).toBe('apply');
  const broken = diff(20, 22, 19);
  expect(take(c, broken).take).toBe('gap');
  breakChain(c, broken);
  expect(chainFromSnapshot(c, [], [], 21)).toEqual([broken]);
  expect(take(c, broken).take).toBe('apply');
  expect(take(c, { ...broken }).take).toBe('skip');
  expect(take(c, { ...first })).toEqual({ take: 'gap', reason: "pu 8 does not follow the previous diff's u 22" });
});
