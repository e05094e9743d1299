/**
 * Prometheus metrics of one bot (prom-client), on a registry of its own so that several bots in
 * one process (tests, the demo) do not collide on the global one.
 *
 * Event-driven numbers (events, denials, rejections, fills, reconnects, reconciliations) count bus
 * events as they happen; state (orders by tracker state, equity, PnL, exposure, positions, trading
 * state) is read at scrape time, so a scrape always shows the current picture.
 */
import type { NotifierStats } from './notify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Bot } from '../bot/bot';
import { LOCAL_STATES } from '../bot/execution/order-tracker';
import { EXPIRED_UNFILLED, isExpiredUnfilled, isRejectedOnArrival } from '../bot/execution/refusals';
import { TRADING_STATES } from '../bot/risk/decision';
import type { StatusTracker } from './status';
import type { VenueCallObserver } from './timed-venue';

export const METRIC_NAMES = [
  'perpkit_bot_events_total',
  'perpkit_bot_intents_total',
  'perpkit_bot_denials_total',
  'perpkit_bot_rejections_total',
  'perpkit_bot_orders_rejected_total',
  'perpkit_bot_orders_expired_unfilled_total',
  'perpkit_bot_fills_total',
  'perpkit_bot_orders',
  'perpkit_bot_reconnects_total',
  'perpkit_bot_reconciliations_total',
  'perpkit_bot_errors_total',
  'perpkit_bot_equity_usdt',
  'perpkit_bot_pnl_usdt',
  'perpkit_bot_exposure_usdt',
  'perpkit_bot_position',
  'perpkit_bot_trading_state',
  'perpkit_bot_private_stream_up',
  'perpkit_venue_call_duration_seconds',
  'perpkit_strategy_errors_total',
  'perpkit_strategy_stopped',
  'perpkit_strategy_halted',
] as const;

/**
 * The `where` label of a strategy error: the hook without what follows it in brackets
 * (`onEvent(markPrice)` -> `onEvent`, `onMark (the Promise it returned)` -> `onMark`; the latter
 * was `onMark ` with its space, a second series beside `onMark`).
 */
export function errorSite(where: string): string {
  return where.replace(/\s*\(.*$/, '');
}

export class BotMetrics {
  readonly registry = new Registry();
  /** Feed of the latency histogram; pass it to the wiring as `observeVenueCall`. */
  readonly observeVenueCall: VenueCallObserver;
  private bot: Bot | undefined;
  private status: StatusTracker | undefined;
  private seenIntents = 0;
  private seenErrors = 0;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'perpkit_' });
    const latency = new Histogram({
      name: 'perpkit_venue_call_duration_seconds',
      help: 'Duration of venue calls made by the bot (REST round trip on a live venue), by method and outcome',
      labelNames: ['method', 'outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.observeVenueCall = (method, seconds, ok) => latency.observe({ method, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  /** Starts counting the bot's bus events and exposes its state at scrape time. */
  attach(bot: Bot, status: StatusTracker): void {
    this.bot = bot;
    this.status = status;
    const registers = [this.registry];
    const events = new Counter({ name: 'perpkit_bot_events_total', help: 'Bus events by type', labelNames: ['type'] as const, registers });
    const denials = new Counter({ name: 'perpkit_bot_denials_total', help: 'Intents refused by the risk engine, by strategy and risk code', labelNames: ['strategy', 'code'] as const, registers });
    const rejections = new Counter({ name: 'perpkit_bot_rejections_total', help: 'Orders the venue refused, and amends the bot refused itself with the venue code (their order ended: 30007; not acknowledged yet: 30001), by strategy and venue error code', labelNames: ['strategy', 'code'] as const, registers });
    const ordersRejected = new Counter({ name: 'perpkit_bot_orders_rejected_total', help: 'Orders that ended REJECTED on arrival (a makerOnly order that would have taken liquidity), by strategy and symbol', labelNames: ['strategy', 'symbol'] as const, registers });
    const ordersExpiredUnfilled = new Counter({ name: 'perpkit_bot_orders_expired_unfilled_total', help: `Orders ${EXPIRED_UNFILLED}, by strategy and symbol`, labelNames: ['strategy', 'symbol'] as const, registers });
    const fills = new Counter({ name: 'perpkit_bot_fills_total', help: 'Fills of the bot orders, by strategy, symbol, side and role', labelNames: ['strategy', 'symbol', 'side', 'role'] as const, registers });
    const reconnects = new Counter({ name: 'perpkit_bot_reconnects_total', help: 'Stream resyncs (reconnect, gap, silence) and drops, by stream and status', labelNames: ['stream', 'status'] as const, registers });
    const reconciliations = new Counter({ name: 'perpkit_bot_reconciliations_total', help: 'Reconciliations with the venue over REST', registers });
    const strategyErrors = new Counter({ name: 'perpkit_strategy_errors_total', help: 'Exceptions thrown by a strategy, by strategy and where (onStart, onEvent(type), ...)', labelNames: ['strategy', 'where'] as const, registers });
    const strategyStopped = new Gauge({ name: 'perpkit_strategy_stopped', help: '1 when the strategy was stopped for its errors', labelNames: ['strategy'] as const, registers });
    const strategyHalted = new Gauge({
      name: 'perpkit_strategy_halted',
      help: '1 when the strategy said it stopped trading for good (ctx.halt)',
      labelNames: ['strategy'] as const,
      registers,
      collect: () => {
        for (const h of this.bot?.strategyHealth() ?? []) strategyHalted.set({ strategy: h.id }, h.halted === undefined ? 0 : 1);
      },
    });
    for (const h of bot.strategyHealth()) {
      strategyErrors.inc({ strategy: h.id, where: 'onEvent' }, 0);
      strategyStopped.set({ strategy: h.id }, 0);
    }
    const intents = new Counter({
      name: 'perpkit_bot_intents_total',
      help: 'Intents produced by strategies',
      registers,
      collect: () => {
        const n = this.bot?.stats.intents ?? 0;
        if (n > this.seenIntents) intents.inc(n - this.seenIntents);
        this.seenIntents = n;
      },
    });
    const errors = new Counter({
      name: 'perpkit_bot_errors_total',
      help: 'Errors the bot reported (failed venue calls, handler exceptions)',
      registers,
      collect: () => {
        const n = this.bot?.stats.errors ?? 0;
        if (n > this.seenErrors) errors.inc(n - this.seenErrors);
        this.seenErrors = n;
      },
    });
    const orders = new Gauge({
      name: 'perpkit_bot_orders',
      help: 'Orders the bot tracks, by local state (final ones are kept a while, then forgotten)',
      labelNames: ['state'] as const,
      registers,
      collect: () => {
        const c = this.bot?.tracker.countByState();
        for (const s of LOCAL_STATES) orders.set({ state: s }, c?.[s] ?? 0);
      },
    });
    const equity = new Gauge({
      name: 'perpkit_bot_equity_usdt',
      help: 'Wallet balance plus unrealized PnL at the latest mark',
      registers,
      collect: () => {
        const e = this.status?.equity();
        if (e !== undefined) equity.set(e.toNumber());
      },
    });
    const pnl = new Gauge({
      name: 'perpkit_bot_pnl_usdt',
      help: 'Equity change since the bot started (realized, unrealized, fees and funding)',
      registers,
      collect: () => {
        const p = this.status?.pnl();
        if (p !== undefined) pnl.set(p.toNumber());
      },
    });
    const exposure = new Gauge({
      name: 'perpkit_bot_exposure_usdt',
      help: 'Sum of absolute position notionals at mark',
      registers,
      collect: () => {
        if (this.status) exposure.set(this.status.exposure().toNumber());
      },
    });
    const position = new Gauge({
      name: 'perpkit_bot_position',
      help: 'Position quantity (base asset, signed in one-way mode) by symbol and position side',
      labelNames: ['symbol', 'side'] as const,
      registers,
      collect: () => {
        position.reset();
        for (const p of this.bot?.cache.positions() ?? []) position.set({ symbol: p.symbol, side: p.positionSide }, Number(p.quantity));
      },
    });
    const tradingState = new Gauge({
      name: 'perpkit_bot_trading_state',
      help: 'Risk trading state: 1 for the current one',
      labelNames: ['state'] as const,
      registers,
      collect: () => {
        for (const s of TRADING_STATES) tradingState.set({ state: s }, this.bot?.risk.state === s ? 1 : 0);
      },
    });
    const streamUp = new Gauge({
      name: 'perpkit_bot_private_stream_up',
      help: '1 while the private stream is connected',
      registers,
      collect: () => {
        streamUp.set(this.status?.privateStream === 'connected' ? 1 : 0);
      },
    });
    // Per-event work stays a few map lookups: this runs on the bot's hot path.
    bot.bus.subscribeAll((e) => {
      events.inc({ type: e.type });
      switch (e.type) {
        case 'denial':
          denials.inc({ strategy: e.strategyId, code: e.code });
          break;
        case 'rejection':
          rejections.inc({ strategy: e.strategyId, code: String(e.code) });
          break;
        case 'order':
          if (e.strategyId === undefined) break;
          if (isRejectedOnArrival(e)) ordersRejected.inc({ strategy: e.strategyId, symbol: e.order.symbol });
          else if (isExpiredUnfilled(e)) ordersExpiredUnfilled.inc({ strategy: e.strategyId, symbol: e.order.symbol });
          break;
        case 'fill':
          fills.inc({ strategy: e.strategyId ?? 'none', symbol: e.fill.symbol, side: e.fill.side, role: e.fill.role });
          break;
        case 'stream':
          if (e.status !== 'connected') reconnects.inc({ stream: e.stream, status: e.status });
          break;
        case 'reconciled':
          reconciliations.inc();
          break;
        case 'strategyError':
          strategyErrors.inc({ strategy: e.strategyId, where: errorSite(e.where) });
          break;
        case 'strategyStopped':
          strategyStopped.set({ strategy: e.strategyId }, 1);
          break;
        default:
          break;
      }
    });
  }

  /** Counters of the alerts a notifier sent and failed to send. */
  attachNotifier(stats: NotifierStats): void {
    const registers = [this.registry];
    let seen = { sent: 0, failed: 0, suppressed: 0 };
    const alerts = new Counter({
      name: 'perpkit_alerts_total',
      help: 'Alerts to humans by outcome: sent (per target), failed (per target, after retries), suppressed (rate limit)',
      labelNames: ['outcome'] as const,
      registers,
      collect: () => {
        for (const k of ['sent', 'failed', 'suppressed'] as const) if (stats[k] > seen[k]) alerts.inc({ outcome: k }, stats[k] - seen[k]);
        seen = { sent: stats.sent, failed: stats.failed, suppressed: stats.suppressed };
      },
    });
    for (const k of ['sent', 'failed', 'suppressed']) alerts.inc({ outcome: k }, 0);
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
