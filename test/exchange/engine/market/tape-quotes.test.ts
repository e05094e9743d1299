/**
 * The engine's fast path for the tape quotes (engine.tapeQuotes, market/quote-orders.ts) against
 * the general commands it stands for (placeOrderStatus, cancelOrderQuiet, orderProgress): twin
 * engines driven alike, one through each, must end in the same state, snapshot for snapshot, with
 * the same events. Then whole replays: a TapeReplayer on an engine (fast path) against one on the
 * same engine behind a sink without `tapeQuotes` (the plain path), on a hand-made recording where
 * a participant rests at the quote prices, quotes cross it and trades hit it, and on the shared
 * Binance capture with a participant quoting and taking.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { symbolConfigOf } from '../../../../src/backtest/backtest/run';
import { ManualClock } from '../../../../src/core/clock';
import { ErrorCodes, VenueError } from '../../../../src/core/errors';
import { Engine } from '../../../../src/exchange/engine/engine';
import type { OrderRef, PlaceOrderInput } from '../../../../src/exchange/engine/inputs';
import type { TapeQuoteSink } from '../../../../src/exchange/engine/market/quote-orders';
import { TapeReplayer } from '../../../../src/exchange/engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER, type ReplaySink, type TapeReplayerOptions } from '../../../../src/exchange/engine/market/tape-sink';
import { DEFAULT_SYMBOLS, wireSpecOf, type SymbolConfig } from '../../../../src/exchange/engine/symbols';
import type { RecordedEvent, RecordingHeader } from '../../../../src/market-data/format';
import { importBinanceFutures } from '../../../../src/market-data/import/binance-futures';
import { Prng } from '../../../../src/market-data/prng';
import { readRecording } from '../../../../src/market-data/reader';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../../../helpers/shared-data';

const T0 = 1_700_000_000_000;
const S = 'BTCUSDT';
const SYM: SymbolConfig = { ...DEFAULT_SYMBOLS[0], markPrice: '100' };

/** An engine with the tape accounts set up as a backtest sets them (or not), and participants a and c. */
function engineOf(symbols: SymbolConfig[], backtestTape: boolean): { engine: Engine; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const engine = new Engine({ symbols, clock, insuranceFund: TAPE_BALANCE });
  for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.createAccount({ userId: u, balance: TAPE_BALANCE });
  if (backtestTape) {
    for (const u of [TAPE_MAKER, TAPE_TAKER]) {
      engine.muteEvents(u);
      engine.exemptFromMargin(u);
      engine.forgetFinalOrders(u);
    }
  }
  for (const u of ['a', 'c']) engine.createAccount({ userId: u, balance: '1000000' });
  engine.createAccount({ userId: 'h', balance: '1000000', positionMode: 'HEDGE' });
  return { engine, clock };
}

/** The engine as a sink without the fast path: the replayer takes the general commands. */
function plainSink(engine: Engine): ReplaySink {
  return {
    setMarkPrice: (s, m, i) => engine.setMarkPrice(s, m, i),
    placeOrder: (u, i) => engine.placeOrder(u, i),
    cancelOrder: (u, r) => engine.cancelOrder(u, r),
    settleFunding: (s, r) => engine.settleFunding(s, r),
    setFundingRate: (s, r) => engine.setFundingRate(s, r),
    queryOrder: (u, r) => engine.queryOrder(u, r),
    orderProgress: (u, r) => engine.orderProgress(u, r),
    placeOrderStatus: (u, i) => engine.placeOrderStatus(u, i),
    cancelOrderQuiet: (u, r) => engine.cancelOrderQuiet(u, r),
    restingThrough: (s, side, l, e) => engine.restingThrough(s, side, l, e),
    marketTrade: (s, p, q, side) => engine.marketTrade(s, p, q, side),
  };
}

/** The engine as a sink whose fast path counts its calls (what the replayer sends it is unchanged), with its book version. */
function countingSink(engine: Engine, calls: { place: number; cancel: number; progress: number }): ReplaySink {
  const q = engine.tapeQuotes;
  const tapeQuotes: TapeQuoteSink = {
    grids: (s) => q.grids(s),
    place: (...a) => (calls.place++, q.place(...a)),
    cancel: (...a) => (calls.cancel++, q.cancel(...a)),
    progress: (...a) => (calls.progress++, q.progress(...a)),
  };
  // With the book version too: the L2 mode reads the participants' orders again only when it changes.
  return { ...plainSink(engine), tapeQuotes, bookVersion: (s) => engine.bookVersion(s) };
}

/** Everything observable of an engine: its whole state and the events since the last look. */
const look = (engine: Engine): string => JSON.stringify({ state: engine.exportState(), events: engine.drain() });

/** What a call did: its answer, or the code of the VenueError it threw. */
function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() ?? null };
  } catch (e) {
    if (e instanceof VenueError) return { code: e.code };
    throw e;
  }
}

describe('engine.tapeQuotes: the same outcome as the general commands', () => {
  for (const backtestTape of [true, false]) {
    it(`place, cancel and progress by order id (tape maker ${backtestTape ? 'muted, margin-exempt and forgetful' : 'as any user'})`, () => {
      const fast = engineOf([SYM], backtestTape).engine;
      const slow = engineOf([SYM], backtestTape).engine;
      const ids = new Map<string, number>();
      const place = (user: string, side: 'BUY' | 'SELL', price: string, qty: string, cid: string): void => {
        const ticks = Math.round(Number(price) * 10);
        const steps = Math.round(Number(qty) * 1000);
        const a = outcome(() => fast.tapeQuotes.place(user, S, side, ticks, steps, cid));
        const input: PlaceOrderInput = { symbol: S, type: 'LIMIT', side, price, quantity: qty, timeInForce: 'GTC', makerOnly: true, clientOrderId: cid };
        const b = outcome(() => slow.placeOrderStatus(user, input));
        // The fast path answers the id of a resting order, 0 for a refused one; the general one its status.
        const status = (b as { ok?: string }).ok;
        const expected = status === undefined ? b : { ok: status === 'REJECTED' || status === 'EXPIRED' ? 0 : (a as { ok: number }).ok };
        expect(a).toEqual(expected);
        if (typeof (a as { ok?: unknown }).ok === 'number') ids.set(cid, (a as { ok: number }).ok);
        expect(look(fast)).toBe(look(slow));
      };
      const ref = (cid: string): OrderRef => ({ symbol: S, clientOrderId: cid });
      const cancel = (user: string, cid: string, id = ids.get(cid) ?? 999): void => {
        expect(outcome(() => fast.tapeQuotes.cancel(user, S, id))).toEqual(outcome(() => slow.cancelOrderQuiet(user, ref(cid))));
        expect(look(fast)).toBe(look(slow));
      };
      const progress = (user: string, cid: string): void => {
        const p = outcome(() => slow.orderProgress(user, ref(cid))) as { ok?: { status: string; executedQty: string } };
        const expected = p.ok === undefined || p.ok.status === 'REJECTED' || p.ok.status === 'EXPIRED' ? -1 : Math.round(Number(p.ok.executedQty) * 1000);
        expect(fast.tapeQuotes.progress(user, S, ids.get(cid) ?? 999)).toBe(expected);
      };
      const both = (f: (e: Engine) => void): void => {
        f(fast);
        f(slow);
        expect(look(fast)).toBe(look(slow));
      };
      expect(fast.tapeQuotes.grids(S)).toEqual({ tickSize: '0.1', stepSize: '0.001' });
      expect(fast.tapeQuotes.grids('NOPE')).toBeUndefined();
      // A participant rests at 100.5; the tape quotes around it, one crossing it (refused, id used).
      both((e) => e.placeOrder('a', { symbol: S, type: 'LIMIT', side: 'SELL', price: '100.5', quantity: '1', clientOrderId: 'ask-a' }));
      place(TAPE_MAKER, 'BUY', '100', '2', 'qb-1');
      place(TAPE_MAKER, 'SELL', '100.5', '3', 'qa-1');
      place(TAPE_MAKER, 'BUY', '100.5', '1', 'qb-2');
      place(TAPE_MAKER, 'BUY', '100.6', '1', 'qb-3');
      progress(TAPE_MAKER, 'qb-2');
      progress(TAPE_MAKER, 'qb-1');
      // Refused by the intake: below the minimum notional, off the quantity range, a client id in use, hedge mode.
      place(TAPE_MAKER, 'BUY', '0.1', '0.001', 'qb-4');
      place(TAPE_MAKER, 'BUY', '99', '0', 'qb-5');
      place(TAPE_MAKER, 'BUY', '99', '2', 'qb-1');
      place('h', 'BUY', '99', '1', 'h-1');
      // A participant takes part of the tape's ask at 100.5 behind its own... the tape's is behind a's.
      both((e) => e.placeOrder('c', { symbol: S, type: 'LIMIT', side: 'BUY', price: '100.5', quantity: '1.5', timeInForce: 'IOC' }));
      progress(TAPE_MAKER, 'qa-1');
      cancel(TAPE_MAKER, 'qa-1');
      progress(TAPE_MAKER, 'qa-1');
      cancel(TAPE_MAKER, 'qa-1');
      // Another user's order and an unknown id are not found.
      cancel('c', 'qb-1');
      cancel(TAPE_MAKER, 'none', 123456);
      // Filled quotes: the bid at 100 taken whole.
      both((e) => e.placeOrder('c', { symbol: S, type: 'MARKET', side: 'SELL', quantity: '2' }));
      progress(TAPE_MAKER, 'qb-1');
      cancel(TAPE_MAKER, 'qb-1');
      // Ordinary users through the fast path: the general intake, margin frozen.
      place('a', 'BUY', '99', '1', 'a-1');
      place('h', 'BUY', '99', '1', 'h-2');
      cancel('a', 'a-1');
      expect(fast.audit()).toEqual(slow.audit());
    });
  }
});

describe('engine.tapeQuotes: quotes of a backtest tape wait until something could meet them', () => {
  it('a client id given as a prefix and a number is a duplicate of a pending quote exactly when its text is', () => {
    const { engine } = engineOf([SYM], true);
    const q = engine.tapeQuotes;
    const code = (f: () => unknown): unknown => (outcome(f) as { code?: number }).code;
    expect(q.place(TAPE_MAKER, S, 'BUY', 1000, 1000, { prefix: 'qb-', n: 7 })).toBe(1);
    // Its text is 'qb-7': a quote with that id, as text or as the same pair, is refused as the general intake refuses it.
    expect(code(() => q.place(TAPE_MAKER, S, 'BUY', 999, 1000, 'qb-7'))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    const { engine: e2 } = engineOf([SYM], true);
    expect(e2.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 1000, 1000, 'qb-7')).toBe(1);
    expect(code(() => e2.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 999, 1000, { prefix: 'qb-', n: 7 }))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    const { engine: e3 } = engineOf([SYM], true);
    // A prefix ending in a digit: 'qb12' + 3 and 'qb1' + 23 are both 'qb123', compared by their texts.
    expect(e3.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 1000, 1000, { prefix: 'qb12', n: 3 })).toBe(1);
    expect(code(() => e3.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 999, 1000, { prefix: 'qb1', n: 23 }))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    // Different ids wait as before, and the order in the book carries the text.
    const { engine: e4 } = engineOf([SYM], true);
    expect(e4.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 1000, 1000, { prefix: 'qb-', n: 7 })).toBe(1);
    expect(e4.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 999, 1000, { prefix: 'qb-', n: 8 })).toBe(2);
    expect(e4.tapeQuotes.place(TAPE_MAKER, S, 'BUY', 998, 1000, { prefix: 'qa-', n: 7 })).toBe(3);
    expect(e4.orderProgress(TAPE_MAKER, { symbol: S, clientOrderId: 'qb-8' })).toMatchObject({ status: 'NEW' });
  });

  it('an accepted quote takes its id at once and enters the book at the next command or book query', () => {
    const { engine, clock } = engineOf([SYM], true);
    const q = engine.tapeQuotes;
    const bid = q.place(TAPE_MAKER, S, 'BUY', 1000, 2000, 'qb-1');
    const ask = q.place(TAPE_MAKER, S, 'SELL', 1005, 1000, 'qa-1');
    expect([bid, ask]).toEqual([1, 2]);
    // Deferred: not in the book yet (restingThrough reads the book itself), though known by id.
    expect(engine.restingThrough(S, 'BUY', 0)).toEqual([]);
    expect(q.progress(TAPE_MAKER, S, bid)).toBe(0);
    // A bid that would meet the pending ask is refused as makerOnly, and its id is used up.
    expect(q.place(TAPE_MAKER, S, 'BUY', 1005, 1000, 'qb-2')).toBe(0);
    // Cancelled while pending: it never reaches the book.
    q.cancel(TAPE_MAKER, S, bid);
    expect(q.progress(TAPE_MAKER, S, bid)).toBe(-1);
    clock.advance(5);
    const bid2 = q.place(TAPE_MAKER, S, 'BUY', 999, 3000, 'qb-3');
    expect(bid2).toBe(4);
    clock.advance(5);
    // A query of the book settles: the quotes rest with their ids, in the order they were placed.
    expect(engine.depth(S, 5)).toEqual({ bids: [['99.9', '3']], asks: [['100.5', '1']], lastUpdateTime: T0 + 10 });
    expect(engine.restingThrough(S, 'BUY', 0).map((o) => o.orderId)).toEqual([bid2]);
    // A participant's order gets the next id.
    expect(engine.placeOrder('a', limit('BUY', '99', '1')).orderId).toBe('5');
  });

  it('randomized: quotes, participant orders, marks and queries interleaved end as the general commands do', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const rnd = new Prng(seed);
      const fast = engineOf([SYM], true);
      const slow = engineOf([SYM], true);
      const live: Array<{ cid: string; id: number }> = [];
      let qn = 0;
      let pn = 0;
      const px = (t: number): string => (t / 10).toFixed(1);
      for (let step = 0; step < 600; step++) {
        const r = rnd.next();
        if (r < 0.02) {
          // Time passes between the quotes and what settles them: the orders keep their own times.
          const ms = 1 + Math.floor(rnd.next() * 50);
          for (const x of [fast, slow]) x.clock.advance(ms);
        }
        if (r < 0.6) {
          // The tape replaces a quote: cancel one of its live quotes, place a new one near 100.
          if (live.length > 0 && rnd.next() < 0.7) {
            const [o] = live.splice(Math.floor(rnd.next() * live.length), 1);
            expect(outcome(() => fast.engine.tapeQuotes.cancel(TAPE_MAKER, S, o.id))).toEqual(outcome(() => slow.engine.cancelOrderQuiet(TAPE_MAKER, { symbol: S, clientOrderId: o.cid })));
          }
          const side = rnd.next() < 0.5 ? 'BUY' : 'SELL';
          const ticks = side === 'BUY' ? 995 + Math.floor(rnd.next() * 8) : 998 + Math.floor(rnd.next() * 8);
          const steps = 1 + Math.floor(rnd.next() * 3000);
          const cid = `q-${++qn}`;
          const a = outcome(() => fast.engine.tapeQuotes.place(TAPE_MAKER, S, side, ticks, steps, cid));
          const b = outcome(() => slow.engine.placeOrderStatus(TAPE_MAKER, { symbol: S, type: 'LIMIT', side, price: px(ticks), quantity: (steps / 1000).toFixed(3), timeInForce: 'GTC', makerOnly: true, clientOrderId: cid }));
          const status = (b as { ok?: string }).ok;
          expect(typeof (a as { ok?: unknown }).ok === 'number' ? (a as { ok: number }).ok > 0 : a).toEqual(status === undefined ? b : status === 'NEW');
          if (typeof (a as { ok?: unknown }).ok === 'number' && (a as { ok: number }).ok > 0) live.push({ cid, id: (a as { ok: number }).ok });
        } else if (r < 0.8) {
          // A participant: a resting order at or near the quotes, a crossing one, or a cancel.
          const side = rnd.next() < 0.5 ? 'BUY' : 'SELL';
          const kind = rnd.next();
          const cid = `p-${++pn}`;
          const input: PlaceOrderInput =
            kind < 0.5
              ? limit(side, px(side === 'BUY' ? 996 + Math.floor(rnd.next() * 6) : 999 + Math.floor(rnd.next() * 6)), '0.5', cid)
              : kind < 0.7
                ? { symbol: S, type: 'MARKET', side, quantity: '0.3', clientOrderId: cid }
                : { ...limit(side, px(side === 'BUY' ? 1003 : 997), '0.4', cid), timeInForce: 'IOC' };
          const user = rnd.next() < 0.5 ? 'a' : 'c';
          expect(outcome(() => fast.engine.placeOrder(user, input))).toEqual(outcome(() => slow.engine.placeOrder(user, input)));
          if (rnd.next() < 0.3) {
            const ref = { symbol: S, clientOrderId: `p-${1 + Math.floor(rnd.next() * pn)}` };
            expect(outcome(() => fast.engine.cancelOrder(user, ref))).toEqual(outcome(() => slow.engine.cancelOrder(user, ref)));
          }
        } else if (r < 0.85) {
          const mark = px(997 + Math.floor(rnd.next() * 6));
          for (const x of [fast, slow]) x.engine.setMarkPrice(S, mark);
        } else if (r < 0.9) {
          expect(fast.engine.depth(S, 10)).toEqual(slow.engine.depth(S, 10));
          expect(fast.engine.marketState(S)).toEqual(slow.engine.marketState(S));
        } else {
          // The tape asks how much of a quote is left, as it does before a trade pulls it.
          const o = live[Math.floor(rnd.next() * live.length)];
          if (o !== undefined) {
            const p = outcome(() => slow.engine.orderProgress(TAPE_MAKER, { symbol: S, clientOrderId: o.cid })) as { ok?: { executedQty: string } };
            expect(fast.engine.tapeQuotes.progress(TAPE_MAKER, S, o.id)).toBe(p.ok === undefined ? -1 : Math.round(Number(p.ok.executedQty) * 1000));
          }
        }
        if (step % 150 === 149) expect(look(fast.engine)).toBe(look(slow.engine));
      }
      expect(look(fast.engine)).toBe(look(slow.engine));
      expect(fast.engine.audit()).toEqual(slow.engine.audit());
    }
  });
});

/** Twin replays: one replayer through the fast path, one through the general commands. */
class Twins {
  readonly fast: Engine;
  readonly slow: Engine;
  private readonly clocks: ManualClock[];
  readonly tapes: [TapeReplayer, TapeReplayer];
  readonly calls = { place: 0, cancel: 0, progress: 0 };

  constructor(symbols: SymbolConfig[], opts: TapeReplayerOptions) {
    const a = engineOf(symbols, true);
    const b = engineOf(symbols, true);
    this.fast = a.engine;
    this.slow = b.engine;
    this.clocks = [a.clock, b.clock];
    this.tapes = [new TapeReplayer(countingSink(a.engine, this.calls), opts), new TapeReplayer(plainSink(b.engine), opts)];
  }

  /** Applies an event to both; `same` compares everything after it. */
  apply(e: RecordedEvent, same = true): void {
    for (const c of this.clocks) if (e.t > c.now()) c.set(e.t);
    for (const t of this.tapes) t.apply(e);
    if (same) this.same();
  }

  /**
   * A participant's command on both engines, between the tape's `beforeTaker` and `afterTaker`.
   * The answers are compared at once; the whole state and the events after it too, unless `same`
   * is false: then at the next comparison, which still sees every event since the last one (they
   * wait in the engines' queues) and the state that every difference would have left behind.
   */
  both(f: (e: Engine) => unknown, taker?: { side: 'BUY' | 'SELL'; price?: string; qty?: string }, same = true): void {
    const outs = [this.fast, this.slow].map((e, i) => {
      if (taker) this.tapes[i].beforeTaker(S, taker.side, taker.price, taker.qty);
      const out = outcome(() => f(e));
      if (taker) this.tapes[i].afterTaker();
      return out;
    });
    expect(outs[0]).toEqual(outs[1]);
    if (same) this.same();
  }

  same(): void {
    expect(look(this.fast)).toBe(look(this.slow));
    expect(this.tapes[0].stats).toEqual(this.tapes[1].stats);
    expect(this.tapes[0].quotePrices(S)).toEqual(this.tapes[1].quotePrices(S));
  }
}

const limit = (side: 'BUY' | 'SELL', price: string, quantity: string, clientOrderId?: string): PlaceOrderInput => ({ symbol: S, type: 'LIMIT', side, price, quantity, timeInForce: 'GTC', clientOrderId });
const quote = (bp: string, bq: string, ap: string, aq: string): RecordedEvent => ({ t: T0, k: 'quote', s: S, bp, bq, ap, aq });
const trade = (p: string, q: string, side: 'BUY' | 'SELL', id = '1'): RecordedEvent => ({ t: T0, k: 'trade', s: S, id, p, q, side });

describe('TapeReplayer: the fast path replays as the general commands do', () => {
  for (const book of ['top', 'l2'] as const) {
    it(`${book}: a participant at the quote price keeps its priority, crossing quotes are refused, trades hit it`, () => {
      const w = new Twins([SYM], { specs: [wireSpecOf(SYM)], book, queue: { model: 'probabilistic' } });
      if (book === 'l2') w.apply({ t: T0, k: 'snapshot', s: S, u: 1, b: [['100', '5'], ['99.9', '3']], a: [['100.1', '1'], ['100.2', '2'], ['100.3', '5']] });
      w.apply(quote('100', '5', '100.1', '1'));
      // The participant joins the tape's bid at 100; a size-only change puts the tape's bid behind it.
      w.both((e) => e.placeOrder('a', limit('BUY', '100', '0.5', 'bid-a')));
      w.apply(quote('100', '4', '100.1', '1'));
      w.apply(quote('100', '4', '100.1', '1'));
      // A seller takes from the level: the participant first (priority), then the tape's quote.
      w.both((e) => e.placeOrder('c', { symbol: S, type: 'MARKET', side: 'SELL', quantity: '1' }), { side: 'SELL', qty: '1' });
      w.apply(quote('100', '4', '100.1', '1'));
      // A participant's limit buy takes part of the tape's ask; the same quote again replaces what is left.
      w.both((e) => e.placeOrder('a', limit('BUY', '100.1', '0.2', 'take-a')), { side: 'BUY', price: '100.1', qty: '0.2' });
      w.apply(quote('100', '4', '100.1', '1'));
      // A recorded ask at or below the participant's resting bid would cross it: refused, counted as crossed.
      w.both((e) => e.placeOrder('a', limit('BUY', '100', '0.2', 'bid-a2')));
      w.apply(quote('99.9', '2', '100.1', '3'));
      w.apply(quote('99.9', '2', '100', '3'));
      w.apply(quote('99.8', '2', '99.9', '3'));
      // Trades at and through the quotes: pulled, re-enacted against the participant, put back.
      w.apply(trade('100', '0.3', 'SELL'));
      w.apply(trade('99.9', '2.5', 'SELL', '2'));
      w.apply(quote('99.8', '1', '100.2', '2'));
      w.both((e) => e.placeOrder('c', limit('SELL', '100.2', '0.4', 'ask-c')));
      w.apply(quote('99.8', '1', '100.2', '2.5'));
      w.apply(trade('100.2', '1', 'BUY', '3'));
      w.apply(trade('100.3', '1', 'BUY', '4'));
      // Quotes above the maximum quantity are capped; an empty side leaves no quote.
      w.apply({ t: T0, k: 'depth', s: S, b: [['99.8', '5000']], a: [] });
      w.apply({ t: T0, k: 'depth', s: S, b: [['99.8', '5000']], a: [['100.5', '1']] });
      w.both((e) => e.placeOrder('c', { symbol: S, type: 'MARKET', side: 'BUY', quantity: '0.5' }), { side: 'BUY', qty: '0.5' });
      w.apply(quote('99.7', '1', '100.5', '1'));
      w.both((e) => e.cancelOrder('a', { symbol: S, clientOrderId: 'bid-a' }));
      w.apply(quote('99.7', '1', '100.4', '1'));
      expect(w.tapes[0].stats.quotes.crossed).toBeGreaterThan(0);
      expect(w.calls.place).toBe(w.tapes[0].stats.quotes.placed + w.tapes[0].stats.quotes.crossed);
      expect(w.calls.cancel).toBeGreaterThan(5);
    });
  }
});

describe('TapeReplayer.applyQuoteUnits: a quote event in ticks and steps, as apply of the event', () => {
  for (const book of ['top', 'l2'] as const) {
    it(`${book}: same engine state and counts as the decoded event, and refuses other grids`, () => {
      const a = engineOf([SYM], true).engine;
      const b = engineOf([SYM], true).engine;
      const opts: TapeReplayerOptions = { specs: [wireSpecOf(SYM)], book, queue: { model: 'probabilistic' } };
      const [strings, units] = [new TapeReplayer(a, opts), new TapeReplayer(b, opts)];
      const ticks = (p: string): number => Math.round(Number(p) * 10);
      const steps = (q: string): number => Math.round(Number(q) * 1000);
      const same = (): void => {
        expect(look(a)).toBe(look(b));
        expect(strings.stats).toEqual(units.stats);
        expect(strings.quotePrices(S)).toEqual(units.quotePrices(S));
      };
      const events: RecordedEvent[] = [
        { t: T0, k: 'snapshot', s: S, u: 1, b: [['100', '5'], ['99.9', '3']], a: [['100.1', '1'], ['100.2', '2']] },
        quote('100', '5', '100.1', '1'),
        quote('100', '4', '100.1', '1'),
        trade('100.1', '0.5', 'BUY'),
        quote('100', '4', '100.1', '0.5'),
        // A depth line's texts as recorded ("100.0" is not the grid's "100"), then the same levels in units.
        { t: T0, k: 'depth', s: S, b: [['100.0', '4']], a: [['100.1', '0.500']] },
        quote('100', '4', '100.1', '0.5'),
        { t: T0, k: 'depth', s: S, b: [['100', '4']], a: [['100.1', '0.5']] },
        quote('100', '4', '100.1', '0.5'),
        quote('100', '0', '100.2', '2000'),
        quote('99.9', '3', '100', '2'),
      ];
      for (const [i, e] of events.entries()) {
        if (i === 2) for (const x of [a, b]) x.placeOrder('a', limit('SELL', '100.1', '0.3', 'ask-a'));
        strings.apply(e);
        if (e.k === 'quote') expect(units.applyQuoteUnits(S, '0.1', '0.001', ticks(e.bp), steps(e.bq), ticks(e.ap), steps(e.aq))).toBe(true);
        else units.apply(e);
        same();
      }
      expect(units.applyQuoteUnits(S, '0.01', '0.001', 10000, 1000, 10010, 1000)).toBe(false);
      expect(units.applyQuoteUnits('NOPE', '0.1', '0.001', 1000, 1000, 1001, 1000)).toBe(false);
      same();
    });
  }
});

describe('tape quotes: a level is the same whatever its spelling', () => {
  it('l2: quotes that followed the book\'s top stay when a quote event spells the same levels otherwise ("100.10", "1.000"), as from the replay cache\'s units', () => {
    const a = engineOf([SYM], true).engine;
    const b = engineOf([SYM], true).engine;
    const opts: TapeReplayerOptions = { specs: [wireSpecOf(SYM)], book: 'l2', queue: { model: 'risk-averse' } };
    const [strings, units] = [new TapeReplayer(a, opts), new TapeReplayer(b, opts)];
    // A snapshot before any quote event (an import cut at --from, a backtest from data.from): the tape quotes follow its top.
    const snap: RecordedEvent = { t: T0, k: 'snapshot', s: S, u: 1, b: [['100.00', '5.000'], ['99.90', '3.000']], a: [['100.10', '1.000'], ['100.20', '2.000']] };
    strings.apply(snap);
    units.apply(snap);
    expect(strings.stats.quotes.placed).toBe(2);
    // The venue's first quote: the same levels, in its own spelling.
    strings.apply(quote('100.00', '5.000', '100.10', '1.000'));
    expect(units.applyQuoteUnits(S, '0.1', '0.001', 1000, 5000, 1001, 1000)).toBe(true);
    expect(strings.stats).toEqual(units.stats);
    expect(strings.stats.quotes.placed).toBe(2);
    expect(look(a)).toBe(look(b));
    // A quote that does change a level replaces it on both.
    strings.apply(quote('100.00', '4.000', '100.10', '1.000'));
    expect(units.applyQuoteUnits(S, '0.1', '0.001', 1000, 4000, 1001, 1000)).toBe(true);
    expect(strings.stats.quotes.placed).toBe(3);
    expect(strings.stats).toEqual(units.stats);
    expect(look(a)).toBe(look(b));
  });
});

describeWithSharedData('TapeReplayer fast path on the shared Binance capture', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  let recording: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-tape-quotes-'));
    recording = path.join(dir, 'btcusdt.jsonl.gz');
    await importBinanceFutures({ files: [capture], out: recording });
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('l2, probabilistic: a participant quoting at the touch and taking now and then ends in the same state', async () => {
    let w: Twins | undefined;
    let n = 0;
    let top: { bp: string; ap: string } | undefined;
    for await (const x of readRecording([recording])) {
      if ('type' in x) {
        const h: RecordingHeader = x;
        w = new Twins(h.symbols.map((s) => symbolConfigOf(s, undefined)), { specs: h.symbols, book: 'l2', queue: { model: 'probabilistic' } });
        continue;
      }
      const twins = w as Twins;
      n++;
      // Everything compared every 2000 events (a snapshot of both engines each time), and at the end.
      twins.apply(x, n % 2000 === 0);
      if (x.k === 'quote') top = { bp: x.bp, ap: x.ap };
      if (top === undefined || n % 97 !== 0) continue;
      const k = n / 97;
      const at = top;
      // Join the touch on both sides (the tape's quotes then change behind it), cancel, and sometimes take.
      // Each answer is compared at once; the states and events every 2000 events and at the end
      // (a whole snapshot of each engine after each of the ~970 commands took 30 s of the suite).
      if (k % 3 === 0) twins.both((e) => e.placeOrder('a', limit('BUY', at.bp, '0.01', `b${k}`)), undefined, false);
      if (k % 3 === 1) twins.both((e) => e.placeOrder('a', limit('SELL', at.ap, '0.01', `s${k}`)), undefined, false);
      if (k % 3 === 2) twins.both((e) => e.cancelAll('a', { symbol: S }), undefined, false);
      if (k % 11 === 0) twins.both((e) => e.placeOrder('c', { symbol: S, type: 'MARKET', side: k % 2 === 0 ? 'BUY' : 'SELL', quantity: '0.05' }), { side: k % 2 === 0 ? 'BUY' : 'SELL', qty: '0.05' }, false);
    }
    const twins = w as Twins;
    twins.same();
    expect(n).toBe(94295);
    const stats = twins.tapes[0].stats;
    expect(stats.quotes.placed).toBeGreaterThan(60000);
    expect(twins.calls.place).toBe(stats.quotes.placed + stats.quotes.crossed);
    expect(twins.fast.tradeHistory('a', { pageSize: 1000 }).total).toBeGreaterThan(10);
  }, 120000);
});
