/**
 * What a backtest counts per strategy besides its fills: orders, cancels, risk denials and venue
 * rejections by code, and the errors it threw (the first one kept with its stack frame).
 */
import * as path from 'node:path';

export interface StrategyCounters {
  /** Orders the engine accepted (NEW events). */
  ordersAccepted: number;
  rejections: number;
  denials: number;
  cancels: number;
  /** Risk denials by risk code, and venue rejections by venue error code. */
  denialsByCode: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** Times the strategy threw, the first of them, and whether it was stopped for them. */
  errors: number;
  firstError: StrategyErrorRow | null;
  stopped: { time: number; reason: string } | null;
}

export interface StrategyErrorRow {
  time: number;
  /** onStart, onEvent(<type>), onStop... */
  where: string;
  message: string;
  /** The first frame of the stack, file paths relative to the config's folder. */
  at: string;
}

export const newCounters = (): StrategyCounters => ({ ordersAccepted: 0, rejections: 0, denials: 0, cancels: 0, denialsByCode: {}, rejectionsByCode: {}, errors: 0, firstError: null, stopped: null });

/** The first `at ...` line of a stack, with absolute paths under `baseDir` made relative. */
export function stackTop(stack: string, baseDir: string): string {
  const line = stack.split('\n').find((l) => l.trimStart().startsWith('at '));
  if (line === undefined) return '';
  const prefix = baseDir.endsWith(path.sep) ? baseDir : `${baseDir}${path.sep}`;
  return line.trim().split(prefix).join('');
}
