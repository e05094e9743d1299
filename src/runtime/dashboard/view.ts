/**
 * The dashboard's model of a running bot: listens to the bot's bus, keeps per-strategy figures
 * (fills, volume, realized PnL, fees, denials and rejections by code), the equity curve since
 * start and the latest fills, writes what an operator wants to read into the event journal, and
 * builds the snapshot and live state the page shows.
 *
 * It subscribes to no market-data event: a subscriber would make the bot publish every mark and
 * trade (Bot.wants), a cost paid whether or not a page is open. Equity is sampled on a timer.
 */
import { Dec } from '../../core/decimal';
import type { Clock } from '../../core/clock';
import type { Bot, StrategySlot } from '../../bot/bot';
import type { BotEvent } from '../../bot/bus/events';
import type { StatusTracker } from '../status';
import type { EventJournal, JournalEntry } from './journal';
import type { EquityPoint, FillPoint, LiveState, Snapshot, StrategyView } from './types';

interface StrategyFigures {
  fills: number;
  volume: Dec;
  realized: Dec;
  fees: Dec;
  position: Map<string, Dec>;
  denials: Record<string, number>;
  rejections: Record<string, number>;
}

export interface ViewOptions {
  bot: Bot;
  status: StatusTracker;
  strategies: StrategySlot[];
  journal: EventJournal;
  clock: Clock;
  phase(): string;
  startedAt: number;
  /** Points kept on the equity curve; past it, every other point goes and sampling slows by half. */
  maxEquityPoints?: number;
  /** Initial time between equity samples, ms. */
  equityEveryMs?: number;
  maxFills?: number;
}

const short = (d: Dec): string => d.toFixed(4);

/** At most one journal entry per bot-error context in this long (the log folds the same way, per 10 s). */
const BOT_ERROR_FOLD_MS = 10_000;

export class DashboardView {
  private readonly figures = new Map<string, StrategyFigures>();
  private readonly equity: EquityPoint[] = [];
  private readonly fills: FillPoint[] = [];
  private readonly streams: LiveState['streams'] = { private: undefined, public: undefined };
  private equityEveryMs: number;
  private lastEquityAt = 0;
  private readonly unsubscribe: Array<() => void> = [];
  /**
   * The bot's own errors (a failed venue call, an exception of its pipeline) by context: one
   * entry per context per BOT_ERROR_FOLD_MS, the next one saying how many were held back, so a
   * venue failing every call for an hour does not push the fills out of the journal.
   */
  private readonly botErrors = new Map<string, { at: number; held: number }>();
  /** Called when something the live state shows has changed (the server throttles). */
  onChange: () => void = () => undefined;

  constructor(private readonly o: ViewOptions) {
    this.equityEveryMs = o.equityEveryMs ?? 1000;
    for (const s of o.strategies) this.figures.set(s.id, { fills: 0, volume: new Dec(0), realized: new Dec(0), fees: new Dec(0), position: new Map(), denials: {}, rejections: {} });
    const bus = o.bot.bus;
    const on = <T extends BotEvent['type']>(type: T, f: (e: Extract<BotEvent, { type: T }>) => void): void => {
      this.unsubscribe.push(bus.subscribe(type, (e) => {
        f(e);
        this.onChange();
      }));
    };
    on('fill', (e) => this.onFill(e));
    on('denial', (e) => {
      const f = this.figures.get(e.strategyId);
      if (f) f.denials[e.code] = (f.denials[e.code] ?? 0) + 1;
      this.add({ kind: 'denial', level: 'info', strategyId: e.strategyId, code: e.code, text: `${e.intent.kind} denied: ${e.reason}` });
    });
    on('rejection', (e) => {
      const f = this.figures.get(e.strategyId);
      if (f) f.rejections[String(e.code)] = (f.rejections[String(e.code)] ?? 0) + 1;
      this.add({ kind: 'rejection', level: 'warn', strategyId: e.strategyId, code: String(e.code), text: `${e.intent.kind} rejected by the venue: ${e.message}` });
    });
    on('riskState', (e) => this.add({ kind: 'riskState', level: e.state === 'ACTIVE' ? 'info' : 'warn', strategyId: undefined, code: e.state, text: `trading state ${e.state}: ${e.reason}` }));
    on('reconciled', (e) => this.add({ kind: 'reconciled', level: e.corrected > 0 || e.revived !== undefined ? 'warn' : 'info', strategyId: undefined, code: undefined, text: `reconciled (${e.reason}): ${e.adopted} order(s) adopted, ${e.corrected} order(s) the bot had otherwise set to the venue's state and fills${e.revived === undefined ? '' : `, ${e.revived.length} working again after they had ended (${e.cancelled ?? 0} cancelled)`}` }));
    on('stream', (e) => {
      this.streams[e.stream] = { status: e.status, detail: e.detail, since: e.time };
      this.add({ kind: 'stream', level: e.status === 'connected' || e.status === 'reconnected' ? 'info' : e.status === 'unauthenticated' ? 'error' : 'warn', strategyId: undefined, code: e.status, text: `${e.stream} stream ${e.status}${e.detail ? `: ${e.detail}` : ''}` });
    });
    on('strategyError', (e) => this.add({ kind: 'strategyError', level: 'error', strategyId: e.strategyId, code: undefined, text: `${e.where} threw: ${e.message}` }));
    on('strategyStopped', (e) => this.add({ kind: 'strategyStopped', level: 'error', strategyId: e.strategyId, code: undefined, text: `stopped: ${e.reason}` }));
    const botError = (time: number, context: string, message: string): void => {
      const seen = this.botErrors.get(context);
      if (seen !== undefined && time - seen.at < BOT_ERROR_FOLD_MS) {
        seen.held++;
        return;
      }
      this.botErrors.set(context, { at: time, held: 0 });
      const held = seen?.held ?? 0;
      this.add({ kind: 'botError', level: 'error', strategyId: undefined, code: context, text: `${context} failed: ${message}${held > 0 ? ` (and ${held} more since the last entry)` : ''}` });
    };
    on('errorReported', (e) => botError(e.time, e.context, e.message));
    on('positionMismatch', (e) => this.add({ kind: 'positionMismatch', level: 'warn', strategyId: undefined, code: e.symbol, text: `${e.symbol} ${e.positionSide}: bot had ${e.local}, venue has ${e.venue}` }));
    on('order', () => undefined);
    on('position', () => undefined);
    on('account', () => undefined);
  }

  now(): number {
    return this.o.clock.now();
  }

  close(): void {
    for (const u of this.unsubscribe) u();
    this.unsubscribe.length = 0;
  }

  private add(entry: Omit<JournalEntry, 'time'> & { time?: number }): void {
    this.o.journal.add({ time: this.o.clock.now(), ...entry });
  }

  private onFill(e: Extract<BotEvent, { type: 'fill' }>): void {
    const f = e.fill;
    const point: FillPoint = { time: e.time, strategyId: e.strategyId, symbol: f.symbol, side: f.side, price: f.price, quantity: f.quantity, fee: f.fee, realizedPnl: f.realizedPnl, role: f.role, orderId: f.orderId };
    const fig = e.strategyId === undefined ? undefined : this.figures.get(e.strategyId);
    if (fig) {
      fig.fills++;
      fig.volume = fig.volume.plus(new Dec(f.price).times(f.quantity));
      fig.realized = fig.realized.plus(f.realizedPnl);
      fig.fees = fig.fees.plus(f.fee);
      const signed = f.side === 'BUY' ? new Dec(f.quantity) : new Dec(f.quantity).negated();
      fig.position.set(f.symbol, (fig.position.get(f.symbol) ?? new Dec(0)).plus(signed));
    }
    this.fills.push(point);
    if (this.fills.length > (this.o.maxFills ?? 2000)) this.fills.shift();
    this.add({ kind: 'fill', level: 'info', strategyId: e.strategyId, code: f.role, text: `${f.side} ${f.quantity} ${f.symbol} @ ${f.price} (${f.role}, fee ${f.fee})`, fill: point });
    // A point on the curve at the fill, so its marker sits on the line.
    this.sampleEquity(true);
  }

  /**
   * Appends a point to the equity curve when the sampling interval has passed (or `force`). The
   * curve stays bounded for a bot that runs for weeks: when full, every other point is dropped and
   * sampling slows by half, so it always spans the whole run.
   */
  sampleEquity(force = false): void {
    const now = this.o.clock.now();
    if (!force && now - this.lastEquityAt < this.equityEveryMs) return;
    const eq = this.o.status.equity();
    const pnl = this.o.status.pnl();
    if (eq === undefined || pnl === undefined) return;
    this.lastEquityAt = now;
    const point: EquityPoint = { time: now, equity: short(eq), pnl: short(pnl) };
    this.equity.push(point);
    const max = this.o.maxEquityPoints ?? 5000;
    if (this.equity.length > max) {
      const kept = this.equity.filter((_, i) => i % 2 === 0 || i === this.equity.length - 1); // the first point (the start) stays
      this.equity.length = 0;
      this.equity.push(...kept);
      this.equityEveryMs *= 2;
    }
    this.o.journal.add({ time: now, kind: 'equity', level: 'info', strategyId: undefined, code: undefined, text: '', equity: point });
  }

  private strategyViews(): StrategyView[] {
    const health = new Map(this.o.bot.strategyHealth().map((h) => [h.id, h]));
    return this.o.strategies.map((s) => {
      const h = health.get(s.id);
      const f = this.figures.get(s.id) as StrategyFigures;
      const status = h?.stopped !== undefined ? 'stopped' : h?.paused !== undefined ? 'paused' : h?.halted !== undefined ? 'halted' : 'running';
      return {
        id: s.id,
        strategy: s.definition.name,
        status,
        statusReason: h?.stopped ?? h?.paused ?? h?.halted,
        params: s.params,
        fills: f.fills,
        volume: short(f.volume),
        realizedPnl: short(f.realized),
        fees: short(f.fees),
        netPnl: short(f.realized.minus(f.fees)),
        position: Object.fromEntries([...f.position].map(([k, v]) => [k, v.toString()])),
        errors: h?.errors ?? 0,
        lastError: h?.lastError,
        denials: { ...f.denials },
        rejections: { ...f.rejections },
        openOrders: this.o.bot.tracker.live(s.id).length,
      };
    });
  }

  live(): LiveState {
    const s = this.o.status.snapshot();
    return {
      phase: this.o.phase(),
      state: s.state,
      stateReason: s.stateReason,
      streams: { ...this.streams },
      startedAt: this.o.startedAt,
      now: this.o.clock.now(),
      equity: s.equity,
      pnl: s.pnl,
      exposure: s.exposure,
      fills: s.fills,
      strategies: this.strategyViews(),
      positions: s.positions,
      orders: this.o.bot.tracker.live().map((o) => ({ clientOrderId: o.clientOrderId, strategyId: o.strategyId, symbol: o.symbol, side: o.side, price: o.price, quantity: o.quantity, executedQty: o.executedQty, state: o.state, orderId: o.orderId, tag: o.tag, sentAt: o.sentAt })),
      counters: { ...s.stats },
    };
  }

  snapshot(bot: Snapshot['bot']): Snapshot {
    return {
      bot,
      lastId: this.o.journal.lastId,
      live: this.live(),
      events: this.o.journal.latest(500, (e) => e.kind !== 'equity'),
      equity: [...this.equity],
      fills: [...this.fills],
    };
  }
}
