/**
 * Parity: one strategy on the local exchange in `replay:` mode (over HTTP and WebSocket, through
 * LiveVenue) and in a backtest (SimVenue, virtual clock) on the same recording with zero latency
 * must place the same orders and get the same fills.
 *
 * The replay runs in lock-step: the exchange's clock is set to each recorded event's time before
 * the event is applied, and the next event waits until the bot has caught up (every engine event
 * of the participant and every public trade/mark push has reached the bot, the executor is idle,
 * and so on until nothing moves). The market maker gets a refresh period longer than the
 * recording, so only market events (marks, its own fills) drive it; see docs/backtesting.md,
 * "Parity", for what this leaves out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SystemScheduler } from '../../src/core/clock';
import type { ExecutionType } from '../../src/core/enums';
import { Bot, type StrategySlot } from '../../src/bot/bot';
import type { BotEvent } from '../../src/bot/bus/events';
import type { StrategyDefinition } from '../../src/bot/strategy/api';
import { LiveVenue, type LiveVenueOptions } from '../../src/bot/venue/live-venue';
import type { AmendParams, OrderRef } from '../../src/bot/venue/venue';
import { PerpClient } from '../../src/client';
import type { BatchResult } from '../../src/protocol/rest/common';
import type { PlaceOrderParams } from '../../src/protocol/rest/orders';
import { parseBacktestConfig } from '../../src/backtest/backtest/config';
import { openSource } from '../../src/backtest/backtest/open-source';
import { runBacktest } from '../../src/backtest/backtest/run';
import type { BacktestResult } from '../../src/backtest/backtest/result';
import { SYNTH_EPOCH, synthesize } from '../../src/market-data/synth';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import type { EngineEvent } from '../../src/exchange/engine/events';
import { readRecording } from '../../src/market-data/reader';
import type { RecordedEvent } from '../../src/market-data/format';
import { ReplayService } from '../../src/exchange/market/replay-service';
import marketMaker, { type MarketMakerParams } from '../../strategies/market-maker';
import { startTestExchange, TestClock, type TestExchange } from '../helpers/exchange';
import { silentLogger } from '../bot/harness';

const SYMBOL = 'BTCUSDT';
const BALANCE = '10000';
/** Longer than the recording: the refresh timer never fires, market events alone drive the quotes. */
const PARAMS = { symbol: SYMBOL, quantity: '0.01', minSpreadBps: '2', skewBps: '3', maxInventory: '0.05', refreshMs: 3_600_000 };
const MINUTES = 12;
/** Half way through the recording is an 8-hour boundary: one funding settlement. */
const START = SYNTH_EPOCH + 8 * 3600_000 - (MINUTES / 2) * 60_000;

/** What the strategy saw of its orders and fills, in order (the bot's view, as the strategy gets it). */
interface Seen {
  orders: Array<{ time: number; cid: string; orderId: string; exec: ExecutionType; status: string; side: string; type: string; price: string; quantity: string; executedQty: string }>;
  fills: Array<{ time: number; cid: string; side: string; price: string; quantity: string; fee: string; realizedPnl: string; role: string }>;
  /** Venue refusals the strategy heard of (a makerOnly amend that would cross), when it heard. */
  rejections: Array<{ time: number; code: number; message: string }>;
}

/** The market maker, with every order and fill event it receives written down. */
function recorded(def: StrategyDefinition<MarketMakerParams>, seen: Seen): StrategyDefinition<MarketMakerParams> {
  return {
    ...def,
    create(ctx) {
      const inner = def.create(ctx);
      const note = (e: BotEvent): void => {
        if (e.type === 'order') {
          const o = e.order;
          seen.orders.push({ time: e.time, cid: o.clientOrderId, orderId: o.orderId, exec: e.executionType, status: o.status, side: o.side, type: o.type, price: o.price, quantity: o.quantity, executedQty: o.executedQty });
        } else if (e.type === 'rejection') {
          seen.rejections.push({ time: e.time, code: e.code, message: e.message });
        } else if (e.type === 'fill') {
          const f = e.fill;
          seen.fills.push({ time: e.time, cid: f.clientOrderId, side: f.side, price: f.price, quantity: f.quantity, fee: f.fee, realizedPnl: f.realizedPnl, role: f.role });
        }
      };
      // Its typed hooks (onMark, onFill, ...) as they are, with every event noted on the way.
      return {
        ...inner,
        onEvent: (e) => {
          note(e);
          return inner.onEvent?.(e);
        },
      };
    },
  };
}

const slotFor = (seen: Seen): StrategySlot => ({ id: 'mm', definition: recorded(marketMaker, seen), params: PARAMS });

/** Per order, in order of first appearance: side, type, last price, quantity, final status, filled. */
function orderSummary(seen: Seen): Array<{ cid: string; side: string; type: string; price: string; quantity: string; status: string; executedQty: string }> {
  const byCid = new Map<string, { cid: string; side: string; type: string; price: string; quantity: string; status: string; executedQty: string }>();
  for (const o of seen.orders) byCid.set(o.cid, { cid: o.cid, side: o.side, type: o.type, price: o.price, quantity: o.quantity, status: o.status, executedQty: o.executedQty });
  return [...byCid.values()];
}

async function until(cond: () => boolean, what: () => string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`lock-step: timed out waiting for ${what()}`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

/**
 * LiveVenue whose order calls, once `streamFirst` is set, answer only after the stream events
 * they caused have reached the bot, as SimVenue always does. Set for the bot's stop only:
 * Bot.stop unsubscribes as soon as its last cancels are answered, and their pushes could
 * otherwise arrive too late for the strategy to see. During the replay the HTTP answers and the
 * WebSocket pushes race as they do live.
 */
class ParityVenue extends LiveVenue {
  streamFirst = false;
  constructor(
    opts: LiveVenueOptions,
    private readonly delivered: () => Promise<void>,
  ) {
    super(opts);
  }
  private async after<T>(r: T): Promise<T> {
    if (this.streamFirst) await this.delivered();
    return r;
  }
  override async placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult> {
    return this.after(await super.placeOrders(orders));
  }
  override async cancelOrders(refs: OrderRef[]): Promise<BatchResult> {
    return this.after(await super.cancelOrders(refs));
  }
  override async amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult> {
    return this.after(await super.amendOrders(symbol, amends));
  }
}

async function firstEventTime(file: string): Promise<number> {
  for await (const x of readRecording([file])) if (!('type' in x)) return x.t;
  throw new Error('empty recording');
}

async function backtestRun(file: string, seen: Seen): Promise<BacktestResult> {
  const cfg = parseBacktestConfig({ data: { files: [file], cache: false }, account: { balance: BALANCE }, strategies: [{ id: 'mm', module: 'market-maker', params: PARAMS }] }, { file: '' });
  const { source } = await openSource(cfg.data.files, { cache: false });
  // The local exchange's replay re-enacts every trade: so does this run (same engine ids).
  return runBacktest(cfg, { slots: [slotFor(seen)], source, fullTape: true });
}

interface VenueEnd {
  steps: number;
  funding: Array<{ time: number; symbol: string; amount: string }>;
  walletBalance: string;
  positions: Array<{ symbol: string; positionSide: string; quantity: string; entryPrice: string }>;
}

async function replayRun(file: string, seen: Seen): Promise<VenueEnd> {
  const clock = new TestClock();
  clock.freeze(await firstEventTime(file));
  let ex: TestExchange | undefined;
  let replay: ReplayService | undefined;
  let bot: Bot | undefined;
  try {
    // Tokens are stamped on the recorded clock: keep them valid for the whole replay.
    ex = await startTestExchange({ auth: { accessTokenTtlMs: 24 * 3600_000 } }, { clock });
    const core = ex.server.core;
    const user = await ex.createUser({ balance: BALANCE });
    const client = new PerpClient({ baseUrl: ex.url, clock });
    await client.login(user.username, user.password);

    // Events the bot must receive: the participant's private events and the public trade and
    // mark pushes of its symbol (depth and ticker are snapshots pushed on timers; the market
    // maker does not read them). Counted from when the bot connects.
    let counting = false;
    let emitted = 0;
    let received = 0;
    const reaches = (e: EngineEvent): boolean => {
      switch (e.kind) {
        case 'order':
        case 'account':
        case 'condition':
        case 'strategy':
          return e.userId === user.userId;
        case 'trade':
        case 'markPrice':
          return e.symbol === SYMBOL;
        default:
          return false;
      }
    };
    core.emitter.on('events', (events) => {
      if (counting) for (const e of events) if (reaches(e)) emitted++;
    });
    const delivered = (): Promise<void> => until(() => received >= emitted, () => `stream events: ${received} of ${emitted} received`);
    const venue = new ParityVenue({ client, clock, silenceTimeoutMs: 3_600_000 }, delivered);
    venue.events.subscribe((v) => {
      if (v.type === 'order' || v.type === 'account' || v.type === 'condition' || v.type === 'strategyOrder' || v.type === 'trade' || v.type === 'markPrice') received++;
    });
    // Built at the first recorded time, as the backtest builds its bot (same clientOrderIds).
    const b = new Bot({ venue, strategies: [slotFor(seen)], risk: {}, clock, scheduler: new SystemScheduler(), logger: silentLogger });
    bot = b;

    /** Until the bot has heard everything, sent everything, been answered, and nothing moves. */
    const catchUp = async (): Promise<void> => {
      for (;;) {
        const e0 = emitted;
        const i0 = b.stats.intents;
        await delivered();
        await b.idle();
        await delivered();
        if (emitted === e0 && b.stats.intents === i0) return;
      }
    };
    let started = false;
    let steps = 0;
    /** A barrier that fails stops the replay; the test reports why instead of waiting for its end. */
    let failure: unknown;
    const r = new ReplayService({
      core,
      files: [file],
      speed: 'max',
      lockStep: {
        before: (x: RecordedEvent) => clock.freeze(x.t),
        barrier: async (x: RecordedEvent) => {
          steps++;
          try {
            if (!started) {
              // Like the backtest: the bot starts right after the first mark of its symbol.
              if (x.k !== 'mark' || x.s !== SYMBOL) return;
              started = true;
              counting = true;
              await b.start();
            }
            await catchUp();
          } catch (e) {
            failure ??= e;
            throw e;
          }
        },
      },
    });
    replay = r;
    await r.init();
    r.start();
    await until(() => r.finished || failure !== undefined, () => `the end of the replay (${steps} steps)`, 50_000);
    if (failure !== undefined) throw failure;
    venue.streamFirst = true;
    await b.stop();
    bot = undefined;
    const funding = core.engine
      .accountData(user.userId)
      .changes.toArray()
      .filter((c) => c.changeType === 'FUNDING_FEE')
      .map((c) => ({ time: c.createdAt, symbol: c.symbol, amount: c.amount }));
    const positions = core.engine.positions(user.userId).map((p) => ({ symbol: p.symbol, positionSide: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, unrealizedPnl: p.unrealizedPnl }));
    return { steps, funding, walletBalance: core.engine.asset(user.userId).walletBalance, positions };
  } finally {
    await bot?.stop().catch(() => undefined);
    await replay?.stop();
    await ex?.stop();
  }
}

describe('parity: backtest vs the local exchange replaying the same recording (lock-step, zero latency)', () => {
  let dir = '';
  let file = '';
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-parity-'));
    file = path.join(dir, 'rec.jsonl.gz');
    await synthesize({ out: file, market: synthSymbolsOf(), symbols: [SYMBOL], hours: MINUTES / 60, seed: 3, tradeRate: 3, startTime: START });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the market maker places the same orders and gets the same fills', async () => {
    const bt: Seen = { orders: [], fills: [], rejections: [] };
    const live: Seen = { orders: [], fills: [], rejections: [] };
    const result = await backtestRun(file, bt);
    const end = await replayRun(file, live);
    expect(end.steps).toBe(result.events.read);

    // Not a vacuous comparison: the strategy quoted, moved its quotes and was filled.
    expect(bt.fills.length).toBeGreaterThan(5);
    expect(bt.orders.filter((o) => o.exec === 'AMENDED').length).toBeGreaterThan(50);

    // Every order event, in order, with the engine's time stamps and ids.
    expect(live.orders).toEqual(bt.orders);
    expect(orderSummary(live)).toEqual(orderSummary(bt));
    expect(live.fills).toEqual(bt.fills);
    expect(live.rejections).toEqual(bt.rejections);
    expect(bt.fills.map((f) => [f.price, f.quantity, f.fee])).toEqual(result.fills.map((f) => [f.price, f.quantity, f.fee]));
    // The funding settlement at the recorded time, and the account at the end.
    expect(result.funding.length).toBe(1);
    expect(end.funding).toEqual(result.funding);
    expect(end.walletBalance).toBe(result.finalAsset.walletBalance);
    expect(end.positions).toEqual(result.finalPositions);
  }, 60_000);
});
