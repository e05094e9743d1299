/**
 * A sweep's strategy code (strategy-code.ts): part of its identity (sweepId, the queue's id), kept
 * in every row of results.jsonl and in sweep.json, and carried by every job. `--resume` refuses
 * rows computed with other code, and a worker thread whose loaded code is not the job's fails the
 * job instead of running stale code (a long-lived `perpkit worker` keeps what it loaded first).
 */
import type { BacktestConfig } from '../backtest/config';
import { strategyCodes, type DefinitionCache } from '../backtest/strategy-module';

/** Each strategy's code sha256 (16 hex digits), by strategy id. */
export type SweepCode = Record<string, string>;

export function sweepCode(cfg: BacktestConfig, cache?: DefinitionCache): SweepCode {
  return Object.fromEntries(strategyCodes(cfg, cache).map((c) => [c.id, c.code.sha256]));
}

/**
 * What changed between the code `then` (a row's, unknown: read from a file) and `now`, naming the
 * strategy and its module; undefined when nothing did, or when `then` is not a code record (a
 * row of an older perpkit: the sweep's id tells those apart).
 */
export function codeChange(cfg: BacktestConfig, then: unknown, now: SweepCode): string | undefined {
  if (typeof then !== 'object' || then === null) return undefined;
  const t = then as Record<string, unknown>;
  for (const s of cfg.strategies) {
    const was = t[s.id];
    if (was !== now[s.id]) return `strategy ${s.id} (${s.module}) has code sha256 ${typeof was === 'string' ? was : '(none)'} there, ${now[s.id]} now (the module or a local file it imports changed)`;
  }
  return undefined;
}

/**
 * Why this thread must not run a job submitted with `want`: the code it has loaded of a strategy
 * differs (loaded before the file changed, or after). undefined: the same code.
 */
export function staleCode(cfg: BacktestConfig, want: SweepCode, cache: DefinitionCache): string | undefined {
  for (const c of strategyCodes(cfg, cache)) {
    const w = want[c.id];
    if (w !== undefined && w !== c.code.sha256) {
      return `strategy ${c.id} (${c.module}): the code this worker loaded (sha256 ${c.code.sha256}, the module and the local files it imports as they were when it loaded them) is not the code the sweep was submitted with (sha256 ${w}): refusing to run other code; restart the worker (perpkit worker) to load the files as they are now, or submit the sweep again if they changed after it was submitted`;
    }
  }
  return undefined;
}
