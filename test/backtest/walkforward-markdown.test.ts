/**
 * walkforward.md's window rows: a test window the objective did not score (fewer closed trades
 * than sweep.minTrades) showed `-` with no reason, while walkforward.json had it and the window's
 * return still counted in the stitched out-of-sample curve.
 */
import { walkForwardMarkdown, type WalkForwardOutcome, type WalkForwardWindow } from '../../src/backtest/sweep/walkforward';

const H = 3_600_000;
const T0 = Date.UTC(2024, 0, 1);

function window(i: number, result: WalkForwardWindow['result']): WalkForwardWindow {
  return { train: { from: T0 + i * H, to: T0 + (i + 2) * H }, test: { from: T0 + (i + 2) * H, to: T0 + (i + 3) * H }, best: { index: i, point: { 'mm.q': '0.01' }, score: 1.5 }, ranked: 4, result };
}

test('a test window not scored says why in walkforward.md, and that its return still counts; a scored one shows its score', () => {
  const outcome: WalkForwardOutcome = {
    objective: 'calmar',
    spec: { trainMs: 2 * H, testMs: H, stepMs: H },
    range: { from: T0, to: T0 + 4 * H },
    windows: [
      window(0, { index: 10, return: 0.002, score: 0.8, fills: 12, error: null, excluded: null }),
      window(1, { index: 11, return: -0.001, score: null, fills: 2, error: null, excluded: '1 closed trades (2 fills), fewer than sweep.minTrades (3)' }),
    ],
    inSample: null,
    outOfSample: { return: 0.001, annualized: 0.5, spanMs: 2 * H, windows: 2, equity: [] },
    ratio: null,
    failed: [],
    ranAgain: [],
    jobs: { windows: 2, points: 1, inSample: 2, outOfSample: 2, failedInSample: 0, failedOutOfSample: 0 },
  };
  const rows = walkForwardMarkdown(outcome, ['mm.q']).split('\n').filter((l) => /^\| [01] \|/.test(l));
  expect(rows).toHaveLength(2);
  expect(rows[0]).toMatch(/\| 0\.200% \| 0\.8 \| 12 \|$/);
  expect(rows[1]).toMatch(/\| -0\.100% \| not scored: 1 closed trades \(2 fills\), fewer than sweep\.minTrades \(3\) \(its return counts in the stitched curve\) \| 2 \|$/);
});
