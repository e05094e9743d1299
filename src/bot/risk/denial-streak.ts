/**
 * A strategy whose every order the risk engine denies, for long: a parameter the venue's grid
 * rounds to nothing (`quantity: "0.0001"` under a 0.001 step is OFF_GRID, 13 times a second), a
 * limit below the order size. It trades nothing, and /healthz said ok while it did. A streak is
 * the denials of its placements and amends since the last one that passed; the denials the
 * operator or the bot's own state asked for (HALTED, REDUCING, a pause, the stop) are no part of
 * it: they are as asked.
 */
import type { RiskCode } from './decision';

const AS_ASKED: ReadonlySet<RiskCode> = new Set<RiskCode>(['STATE_HALTED', 'STATE_REDUCING', 'STRATEGY_PAUSED', 'BOT_STOPPING']);
/** How long every order must have been denied before the strategy is called blocked. */
export const BLOCKED_AFTER_MS = 60_000;
/** And how many denials at least (a strategy that asks once a minute is not judged on two). */
export const BLOCKED_MIN_DENIALS = 10;

export class DenialStreak {
  private since = -1;
  private lastAt = -1;
  private count = 0;
  private last = '';
  private said = false;

  /** An order of the strategy passed the risk engine: the streak ends. */
  passed(): void {
    this.since = -1;
    this.count = 0;
    this.said = false;
  }

  /** A denial of one of its orders; true the first time the streak makes the strategy blocked (say it once). */
  denied(code: RiskCode, reason: string, now: number): boolean {
    if (AS_ASKED.has(code)) return false;
    if (this.since < 0) this.since = now;
    this.lastAt = now;
    this.count++;
    this.last = `${code}: ${reason}`;
    if (this.said || this.blocked() === undefined) return false;
    this.said = true;
    return true;
  }

  /** Why the strategy trades nothing, while every order it asked for over BLOCKED_AFTER_MS was denied. */
  blocked(): string | undefined {
    if (this.since < 0 || this.count < BLOCKED_MIN_DENIALS || this.lastAt - this.since < BLOCKED_AFTER_MS) return undefined;
    return `every order it asked for was denied for ${Math.round((this.lastAt - this.since) / 1000)} s (${this.count} denials; last: ${this.last})`;
  }
}
