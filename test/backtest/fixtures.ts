import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { synthesize } from '../../src/market-data/synth';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';

/** A short synthetic recording in a fresh temporary directory (`depthEveryMs`: synth's, 1 s by default). */
export async function recording(minutes = 15, seed = 3, depthEveryMs?: number): Promise<{ dir: string; file: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bt-'));
  const file = path.join(dir, 'rec.jsonl.gz');
  await synthesize({ out: file, market: synthSymbolsOf(), symbols: ['BTCUSDT'], hours: minutes / 60, seed, tradeRate: 3, depthEveryMs });
  return { dir, file };
}

export const MM = { id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '2', skewBps: '3', refreshMs: 1000 } };

/** Writes a backtest config beside the recording and returns its path. */
export function writeConfig(dir: string, name: string, doc: Record<string, unknown>): string {
  const file = path.join(dir, name);
  writeFileSync(file, stringify({ data: { files: ['rec.jsonl.gz'] }, account: { balance: '10000' }, strategies: [MM], ...doc }));
  return file;
}

/**
 * A strategy module (CommonJS) with real timers, which a backtest (virtual time) has no use for.
 * `late` leaves an interval that marks the thread and throws once a later job has started on the
 * same thread; `early` throws from a timer right away; `ok` fails if an earlier job's timer ran in
 * its thread.
 */
export const STRAY = `const g = globalThis;
module.exports.default = {
  name: 'stray', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ mode: String(raw.mode ?? 'ok') }),
  create: (ctx) => ({
    onStart() {
      if (g.strayTicks !== undefined) throw new Error('a timer of an earlier job ran in this thread');
      g.jobs = (g.jobs ?? 0) + 1;
      const mine = g.jobs;
      if (ctx.params.mode === 'late') {
        const t = setInterval(() => {
          g.strayTicks = (g.strayTicks ?? 0) + 1;
          if (g.jobs > mine) { clearInterval(t); throw new Error('stray timer of the late job'); }
        }, 1);
      }
      if (ctx.params.mode === 'early') setTimeout(() => { throw new Error('timer of the early job'); }, 0);
      return [];
    },
  }),
};
`;

/**
 * A strategy module (CommonJS) that walks its position through `targets`, a list of `[n, position]`:
 * from the n-th mark price (from 1) on, it sends a market order for the difference whenever it has
 * none working (a market order the tape quotes cannot fill expires, and the next mark tries again).
 */
export const TARGETS = `module.exports.default = {
  name: 'targets', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ targets: raw.targets }),
  create: (ctx) => {
    let n = 0;
    let working = false;
    return {
      onOrder(e) {
        if (['FILLED', 'EXPIRED', 'CANCELED', 'REJECTED'].includes(e.order.status)) working = false;
        return [];
      },
      onMark() {
        n++;
        const due = ctx.params.targets.filter((t) => t[0] <= n);
        if (working || due.length === 0) return [];
        const diff = Number(due[due.length - 1][1]) - ctx.position().toNumber();
        if (Math.abs(diff) < 1e-9) return [];
        working = true;
        return [{ kind: 'place', symbol: 'BTCUSDT', side: diff > 0 ? 'BUY' : 'SELL', type: 'MARKET', quantity: ctx.quantity.round(Math.abs(diff).toFixed(3)) }];
      },
    };
  },
};
`;
