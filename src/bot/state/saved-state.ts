/**
 * What a bot keeps across a restart (the runtime's state file, src/runtime/state-store.ts, saves
 * it): the strategies' own state, the loss limits' references, pauses and the kill switch.
 */
import type { RiskMemory } from '../risk/risk-engine';

export interface SavedBotState {
  savedAt: number;
  strategies: Record<string, unknown>;
  /** The loss limits' references (the day's first equity reading, the peak). */
  risk?: RiskMemory;
  /**
   * Strategies an operator paused, by id, with why (the pause's reason): a restart keeps them
   * paused. Someone paused them because something was wrong; a crash or a restart must not
   * resume them behind that person's back.
   */
  paused?: Record<string, string>;
  /**
   * The kill switch, when an operator pulled it (a signal, POST /kill, the dashboard; not the
   * config's `killSwitch`, which the config itself keeps): a restart starts HALTED again until it
   * is started with the halt cleared. A crash and systemd's restart must not trade again unseen.
   */
  halted?: KillRecord;
}

/** Why and when the kill switch was pulled. */
export interface KillRecord {
  reason: string;
  at: number;
}

export interface BotStateStore {
  load(): Promise<SavedBotState | undefined>;
  save(state: SavedBotState): Promise<void>;
}
