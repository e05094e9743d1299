/**
 * The one wiring function (DESIGN.md): a Bot from its settings plus what is injected. Live, paper
 * and backtest differ only in the Venue, Clock, Scheduler, logger and store passed here; nothing
 * below this file knows which it is in.
 *
 * Wiring order matters for restarts: saved orders go back into the tracker before the bot starts,
 * so the start-up reconciliation confirms them with their tags (state-store.ts), and a bot that
 * starts halted is HALTED before any strategy's onStart intents reach the risk engine.
 */
import type { Clock, Scheduler } from '../core/clock';
import { Bot, type BotOptions, type StrategySlot } from '../bot/bot';
import type { KillRecord } from '../bot/state/saved-state';
import type { StrategyErrorLimit } from '../bot/strategy/errors';
import type { RiskLimits } from '../bot/risk/limits';
import type { Venue } from '../bot/venue/venue';
import { LiveVenue } from '../bot/venue/live-venue';
import { PerpClient } from '../client';
import type { Logger } from 'pino';
import type { BotConfig, VenueCredentials } from './config';
import { FileStateStore, restoreOrders } from './state-store';
import { TimedVenue, type VenueCallObserver } from './timed-venue';

export interface BotSettings {
  strategies: StrategySlot[];
  risk: RiskLimits;
  pollPositionsMs: number;
  cancelOnStop: boolean;
  flattenOnStop?: boolean;
  strategyErrors?: StrategyErrorLimit | false;
  /** Start HALTED (kill switch engaged from the config). */
  killSwitch: boolean;
  /** Start without the kill switch an earlier run saved in the state file (`perpkit run --clear-kill`). */
  clearKill?: boolean;
}

export interface Injected {
  venue: Venue;
  clock: Clock;
  scheduler: Scheduler;
  logger: BotOptions['logger'];
  store?: FileStateStore;
  /** Times every venue call (the daemon's latency histogram). */
  observeVenueCall?: VenueCallObserver;
}

export interface WiredBot {
  bot: Bot;
  /**
   * Restores saved orders, honours the kill switch (the config's, or one an earlier run saved),
   * starts the bot (connect, reconcile, trade). Says which saved kill switch it kept or cleared.
   */
  start(): Promise<{ restoredOrders: number; keptKill?: KillRecord; clearedKill?: KillRecord }>;
}

export function settingsFromConfig(config: BotConfig, strategies: StrategySlot[]): BotSettings {
  return { strategies, risk: config.risk, pollPositionsMs: config.pollPositionsMs, cancelOnStop: config.cancelOnStop, flattenOnStop: config.flattenOnStop, strategyErrors: config.strategyErrors, killSwitch: config.killSwitch };
}

export function wireBot(settings: BotSettings, injected: Injected): WiredBot {
  const venue = injected.observeVenueCall ? new TimedVenue(injected.venue, injected.observeVenueCall) : injected.venue;
  const bot = new Bot({
    venue,
    strategies: settings.strategies,
    risk: settings.risk,
    clock: injected.clock,
    scheduler: injected.scheduler,
    logger: injected.logger,
    pollPositionsMs: settings.pollPositionsMs,
    cancelOnStop: settings.cancelOnStop,
    flattenOnStop: settings.flattenOnStop === true,
    ...(settings.strategyErrors !== undefined ? { strategyErrors: settings.strategyErrors } : {}),
    ...(injected.store ? { store: injected.store } : {}),
  });
  const store = injected.store;
  return {
    bot,
    async start() {
      let restoredOrders = 0;
      let savedKill: KillRecord | undefined;
      if (store) {
        store.trackOrders(bot.tracker);
        const saved = await store.read();
        if (saved) restoredOrders = restoreOrders(bot.tracker, saved.orders, new Set(settings.strategies.map((s) => s.id)), injected.clock.now());
        savedKill = saved?.halted;
      }
      const keptKill = settings.clearKill === true ? undefined : savedKill;
      if (settings.killSwitch) bot.risk.setState('HALTED', 'kill switch set in the config');
      else if (keptKill !== undefined) bot.risk.setState('HALTED', `kill switch: ${keptKill.reason}`);
      await bot.start();
      // Halted from the start: whatever the venue still holds from an earlier run is cancelled.
      if (keptKill !== undefined) await bot.kill(keptKill.reason, { at: keptKill.at });
      if (settings.killSwitch) await bot.kill('kill switch set in the config', { keep: false });
      return { restoredOrders, ...(keptKill !== undefined ? { keptKill } : {}), ...(settings.clearKill === true && savedKill !== undefined ? { clearedKill: savedKill } : {}) };
    },
  };
}

/**
 * The live venue for a config: the SDK client signed in (password login or API key) and the
 * LiveVenue over it. The client logs through the daemon's logger, with its own redaction.
 */
export async function connectLiveVenue(config: BotConfig, creds: VenueCredentials, logger: Logger, clock?: Clock): Promise<{ client: PerpClient; venue: LiveVenue }> {
  const client = new PerpClient({
    baseUrl: config.venue.baseUrl,
    logger,
    ...(clock ? { clock } : {}),
    ...(creds.kind === 'apiKey' ? { apiKey: { apiKey: creds.apiKey, secret: creds.secret } } : {}),
  });
  // keepSignedIn: a restart of the venue forgets sessions, and the bot must not stop trading for it.
  if (creds.kind === 'password') await client.login(creds.username, creds.password, { keepSignedIn: true });
    const { pingIntervalMs, pongTimeoutMs, silenceTimeoutMs } = config.venue.stream;
  const heartbeat = { pingIntervalMs, pongTimeoutMs };
  return { client, venue: new LiveVenue({ client, silenceTimeoutMs, privateStream: heartbeat, publicStream: heartbeat, ...(clock ? { clock } : {}) }) };
}
