/**
 * The dashboard of one daemon: its journal, its model of the bot and its HTTP routes, built
 * together from what the daemon has. The daemon creates it when the config has `http.dashboard`
 * and hands it every request before its own routes.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { Bot, StrategySlot } from '../../bot/bot';
import type { StrategyAction, StrategyActionResult } from '../../bot/strategy/controls';
import type { StatusTracker } from '../status';
import { defaultAssetsDir } from './assets';
import { EventJournal } from './journal';
import { DashboardServer } from './server';
import { DashboardView } from './view';

export interface DashboardOptions {
  bot: Bot;
  status: StatusTracker;
  strategies: StrategySlot[];
  clock: Clock;
  log: Logger;
  token: string | undefined;
  name: string;
  venue: string;
  phase(): string;
  kill(reason: string): Promise<void>;
  /** Pause, resume or cancel one strategy's orders (the daemon's, which saves a pause at once). */
  control(strategyId: string, action: StrategyAction, reason: string): Promise<StrategyActionResult>;
  /** Where the built page is; by default dist/web/dashboard of this package. */
  assetsDir?: string;
}

export function createDashboard(o: DashboardOptions): DashboardServer {
  const startedAt = o.clock.now();
  const journal = new EventJournal(String(startedAt));
  const view = new DashboardView({ bot: o.bot, status: o.status, strategies: o.strategies, journal, clock: o.clock, phase: o.phase, startedAt });
  return new DashboardServer({
    view,
    journal,
    bot: o.bot,
    log: o.log,
    token: o.token,
    botInfo: { name: o.name, venue: o.venue },
    phase: o.phase,
    kill: o.kill,
    control: o.control,
    assetsDir: o.assetsDir ?? defaultAssetsDir(),
  });
}
