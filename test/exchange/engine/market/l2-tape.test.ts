import { ManualClock } from '../../../../src/core/clock';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS, wireSpecOf, type SymbolConfig } from '../../../../src/exchange/engine/symbols';
import type { Level, RecordedEvent } from '../../../../src/market-data/format';
import { TapeReplayer } from '../../../../src/exchange/engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER } from '../../../../src/exchange/engine/market/tape-sink';
import { queueModel, type QueueModelName } from '../../../../src/exchange/engine/market/queue';

const T0 = 1_700_000_000_000;
const SYM: SymbolConfig = { ...DEFAULT_SYMBOLS[0], markPrice: '100' };
const S = 'BTCUSDT';

function setup(queue: QueueModelName = 'risk-averse'): { engine: Engine; tape: TapeReplayer } {
  const engine = new Engine({ symbols: [SYM], clock: new ManualClock(T0), insuranceFund: '1000000' });
  for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.createAccount({ userId: u, balance: TAPE_BALANCE });
  for (const u of ['a', 'c']) engine.createAccount({ userId: u, balance: '1000000' });
  const tape = new TapeReplayer(engine, { specs: [wireSpecOf(SYM)], book: 'l2', queue: { model: queue } });
  return { engine, tape };
}

const snapshot = (b: Level[], a: Level[], u = 1): RecordedEvent => ({ t: T0, k: 'snapshot', s: S, u, b, a });
const delta = (b: Level[], a: Level[], u = 2): RecordedEvent => ({ t: T0, k: 'book', s: S, U: u, u, b, a });
const quote = (bp: string, bq: string, ap: string, aq: string): RecordedEvent => ({ t: T0, k: 'quote', s: S, bp, bq, ap, aq });
const trade = (p: string, q: string, side: 'BUY' | 'SELL'): RecordedEvent => ({ t: T0, k: 'trade', s: S, id: '1', p, q, side });
const bid = (engine: Engine, user: string, price: string, quantity: string, clientOrderId: string): void => {
  engine.placeOrder(user, { symbol: S, type: 'LIMIT', side: 'BUY', price, quantity, timeInForce: 'GTC', clientOrderId });
};
const executed = (engine: Engine, user: string, clientOrderId: string): string => engine.queryOrder(user, { symbol: S, clientOrderId }).executedQty;

/** A book with 5 BTC bid at 100 and asks at 100.1 / 100.2 / 100.3, its top quoted. */
function market(tape: TapeReplayer): void {
  tape.apply(snapshot([['100.0', '5'], ['99.9', '3']], [['100.1', '1'], ['100.2', '2'], ['100.3', '5']]));
  tape.apply(quote('100.0', '5', '100.1', '1'));
}

describe('TapeReplayer l2 book mode: queue positions', () => {
  it('risk-averse: a bid joining behind 5 BTC fills only once trades at its price used the 5 up', () => {
    const { engine, tape } = setup('risk-averse');
    market(tape);
    bid(engine, 'a', '100.0', '1', 'mine');
    tape.apply(trade('100.0', '3', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0');
    tape.apply(trade('100.0', '2.4', 'SELL'));
    // 3 + 2.4 = 5.4 traded at 100: 0.4 past the queue ahead.
    expect(executed(engine, 'a', 'mine')).toBe('0.4');
    expect(tape.stats.l2).toMatchObject({ queue: 'risk-averse', joined: 1, queueFills: 1 });
    // Nothing of the tape rests but its two quotes.
    expect(engine.currentOrders(TAPE_TAKER, {}).total).toBe(0);
  });

  it('none: the first trade at the price fills the order (fill at touch)', () => {
    const { engine, tape } = setup('none');
    market(tape);
    bid(engine, 'a', '100.0', '1', 'mine');
    tape.apply(trade('100.0', '0.3', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.3');
  });

  it('a trade through the price fills the order whatever its queue, up to the trade quantity', () => {
    const { engine, tape } = setup('risk-averse');
    market(tape);
    bid(engine, 'a', '100.0', '1', 'mine');
    tape.apply(trade('99.9', '0.7', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.7');
  });

  it('cancellations: risk-averse caps the queue at the level, probabilistic also advances on cancels behind and ahead', () => {
    const run = (model: QueueModelName): string => {
      const { engine, tape } = setup(model);
      market(tape);
      bid(engine, 'a', '100.0', '1', 'mine'); // 5 ahead
      tape.apply(delta([['100.0', '10']], [])); // 5 more join behind
      tape.apply(delta([['100.0', '6']], [], 3)); // 4 cancelled, no trade: from behind (risk-averse) or split
      tape.apply(trade('100.0', '4', 'SELL'));
      return executed(engine, 'a', 'mine');
    };
    // risk-averse: 5 ahead, 4 traded: not reached.
    expect(run('risk-averse')).toBe('0');
    // probabilistic (x^2, 5 ahead and 5 behind): half the cancels were ahead: 3 ahead, 4 traded: 1 fills.
    expect(run('probabilistic')).toBe('1');
    expect(run('none')).toBe('1');
  });

  it('a delta that shrinks the level below the queue caps it (risk-averse)', () => {
    const { engine, tape } = setup('risk-averse');
    market(tape);
    bid(engine, 'a', '100.0', '1', 'mine');
    tape.apply(delta([['100.0', '0.5']], []));
    tape.apply(trade('100.0', '0.8', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.3');
  });

  it('an order joins behind the level as it was when it arrived, even when the first event to touch it comes later', () => {
    const { engine, tape } = setup('risk-averse');
    market(tape);
    bid(engine, 'a', '100.0', '1', 'mine'); // behind 5
    tape.apply(delta([['100.0', '2']], [])); // its first touch: from 5 to 2 (ahead capped at 2)
    tape.apply(trade('100.0', '2.5', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.5');
  });
});

describe('TapeReplayer l2 book mode: taking orders walk the recorded levels', () => {
  it('a marketable buy walks the recorded asks; what it took stays taken until the data updates the level', () => {
    const { engine, tape } = setup();
    market(tape);
    const buy = (qty: string, price: string, id: string): void => {
      tape.beforeTaker(S, 'BUY', price, qty);
      try {
        engine.placeOrder('a', { symbol: S, type: 'LIMIT', side: 'BUY', price, quantity: qty, timeInForce: 'IOC', clientOrderId: id });
      } finally {
        tape.afterTaker();
      }
    };
    buy('2.5', '100.2', 'take1');
    expect(executed(engine, 'a', 'take1')).toBe('2.5');
    const fills = engine.tradeHistory('a', { symbol: S }).list.map((t) => [t.price, t.quantity]).reverse();
    expect(fills).toEqual([['100.1', '1'], ['100.2', '1.5']]);
    // The deeper levels are out of the book again; the quote at the top stays.
    expect(engine.depth(S, 5).asks).toEqual([]);
    // 0.5 left at 100.2 until the data says otherwise.
    buy('1', '100.2', 'take2');
    expect(executed(engine, 'a', 'take2')).toBe('0.5');
    tape.apply(delta([], [['100.2', '2']]));
    buy('1', '100.2', 'take3');
    expect(executed(engine, 'a', 'take3')).toBe('1');
    // Levels taken from: 100.2 by the first order, by the second, and again by the third.
    expect(tape.stats.l2).toMatchObject({ takers: 3, levelsTaken: 3 });
  });

  it('a level taken in whole stays taken with a tape that forgets its filled orders (as a backtest\'s does)', () => {
    const { engine, tape } = setup();
    for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.forgetFinalOrders(u);
    market(tape);
    const buy = (qty: string, id: string): void => {
      tape.beforeTaker(S, 'BUY', '100.2', qty);
      try {
        engine.placeOrder('a', { symbol: S, type: 'LIMIT', side: 'BUY', price: '100.2', quantity: qty, timeInForce: 'IOC', clientOrderId: id });
      } finally {
        tape.afterTaker();
      }
    };
    // 1 at the quote (100.1), all 2 of 100.2: that level's order filled and was forgotten.
    buy('3', 'take1');
    expect(executed(engine, 'a', 'take1')).toBe('3');
    expect(tape.stats.l2).toMatchObject({ takers: 1, levelsPlaced: 1, levelsTaken: 1 });
    // Nothing is left at 100.2 until the data says otherwise (the quote at 100.1 was taken too).
    buy('1', 'take2');
    expect(executed(engine, 'a', 'take2')).toBe('0');
    tape.apply(delta([], [['100.2', '2']]));
    buy('1', 'take3');
    expect(executed(engine, 'a', 'take3')).toBe('1');
  });

  it('a market order walks as deep as its quantity needs', () => {
    const { engine, tape } = setup();
    market(tape);
    tape.beforeTaker(S, 'BUY', undefined, '3.5');
    engine.placeOrder('a', { symbol: S, type: 'MARKET', side: 'BUY', quantity: '3.5', clientOrderId: 'mkt' });
    tape.afterTaker();
    expect(executed(engine, 'a', 'mkt')).toBe('3.5');
    expect(engine.tradeHistory('a', { symbol: S }).list.map((t) => t.price).sort()).toEqual(['100.1', '100.2', '100.3']);
  });

  it('a passive order puts no level in the book', () => {
    const { tape } = setup();
    market(tape);
    tape.beforeTaker(S, 'BUY', '100.0', '1');
    tape.afterTaker();
    expect(tape.stats.l2).toMatchObject({ takers: 0, levelsPlaced: 0 });
  });
});

describe('TapeReplayer l2 book mode: the recorded book', () => {
  it('a gap makes the book unknown: deltas are skipped and counted until the next snapshot', () => {
    const { tape } = setup();
    market(tape);
    tape.apply({ t: T0, k: 'gap', stream: 'public', from: T0, reason: 'pu chain break', s: S });
    tape.apply(delta([['100.0', '1']], []));
    expect(tape.stats.l2).toMatchObject({ deltasSkipped: 1, deltas: 0 });
    tape.apply(snapshot([['100.0', '7']], [['100.1', '1']], 9));
    tape.apply(delta([['100.0', '1']], [], 10));
    expect(tape.stats.l2).toMatchObject({ snapshots: 2, deltas: 1 });
    // In steps of 0.001, whatever spelling the price came in.
    expect(tape.recordedLevel(S, 'BUY', '100')).toBe(1000);
  });

  it('without quote events the tape quotes follow the L2 book top', () => {
    const { engine, tape } = setup();
    tape.apply(snapshot([['100.0', '5']], [['100.1', '1']]));
    expect(engine.depth(S, 5)).toMatchObject({ bids: [['100', '5']], asks: [['100.1', '1']] });
  });

  it('newest by update id: a quote older than the last delta sets no level, a delta older than a quote keeps the quote\'s level; strings and units alike', () => {
    const q = (bp: string, bq: string, ap: string, aq: string, u: number): RecordedEvent => ({ t: T0, k: 'quote', s: S, bp, bq, ap, aq, u });
    const ticks = (p: string): number => Math.round(Number(p) * 10);
    const steps = (x: string): number => Math.round(Number(x) * 1000);
    for (const units of [false, true]) {
      const { tape } = setup();
      const snap = (b: Level[], a: Level[], u: number): void => {
        if (!units) tape.apply(snapshot(b, a, u));
        else expect(tape.applyBookUnits(S, true, '0.1', '0.001', [...b, ...a].map(([p]) => ticks(p)), [...b, ...a].map(([, x]) => steps(x)), 0, b.length, a.length, u)).toBe(true);
      };
      const book = (b: Level[], a: Level[], u: number): void => {
        if (!units) tape.apply(delta(b, a, u));
        else expect(tape.applyBookUnits(S, false, '0.1', '0.001', [...b, ...a].map(([p]) => ticks(p)), [...b, ...a].map(([, x]) => steps(x)), 0, b.length, a.length, u)).toBe(true);
      };
      const quote = (e: RecordedEvent & { k: 'quote' }): void => {
        if (!units) tape.apply(e);
        else expect(tape.applyQuoteUnits(S, '0.1', '0.001', ticks(e.bp), steps(e.bq), ticks(e.ap), steps(e.aq), e.u)).toBe(true);
      };
      const level = (side: 'BUY' | 'SELL', p: string): number => tape.recordedLevel(S, side, p);
      snap([['100.0', '5'], ['99.9', '3']], [['100.1', '1'], ['100.2', '2']], 10);
      // The bid at 100.0 is gone at update 12; a quote of update 11, received after it, still shows it.
      book([['100.0', '0'], ['99.9', '4']], [], 12);
      quote(q('100.0', '5', '100.1', '1', 11) as RecordedEvent & { k: 'quote' });
      expect([level('BUY', '100.0'), level('BUY', '99.9'), level('SELL', '100.1')]).toEqual([0, 4000, 1000]);
      // A quote of update 20 sets the ask at 100.1 to 0.5; a delta of update 15, received after it, said 3.
      quote(q('99.9', '4', '100.1', '0.5', 20) as RecordedEvent & { k: 'quote' });
      book([], [['100.1', '3'], ['100.2', '6']], 15);
      expect([level('SELL', '100.1'), level('SELL', '100.2')]).toEqual([500, 6000]);
      // A newer delta names the level again: it is the book's.
      book([], [['100.1', '2']], 21);
      expect(level('SELL', '100.1')).toBe(2000);
      // Events without update ids are applied in order, as before.
      quote({ t: T0, k: 'quote', s: S, bp: '99.8', bq: '1', ap: '100.3', aq: '1' } as RecordedEvent & { k: 'quote' });
      expect(level('BUY', '99.8')).toBe(1000);
      expect(tape.stats.l2).toMatchObject({ staleQuotes: 1, staleLevels: 1 });
    }
  });

  it('needs a sink that lists resting orders', () => {
    const sink = { setMarkPrice: () => undefined, placeOrder: () => undefined, cancelOrder: () => undefined, settleFunding: () => undefined };
    expect(() => new TapeReplayer(sink, { book: 'l2' })).toThrow(/restingThrough/);
  });
});

describe('queue models', () => {
  it('probabilistic splits cancellations by f(back) / (f(back) + f(ahead)), deterministically', () => {
    const m = queueModel({ model: 'probabilistic', power: 2 });
    const pos = m.join(1, 8); // 8 ahead
    m.depth(pos, 8, 12); // 4 join behind
    m.depth(pos, 12, 10); // 2 cancelled: behind 4, ahead 8: share behind 16 / 80 = 0.2 -> 1.6 from ahead
    expect(pos.ahead).toBeCloseTo(6.4, 10);
    // Trades at the level since the last change are not cancellations.
    expect(m.trade(pos, 3)).toBe(0);
    m.depth(pos, 10, 7);
    expect(pos.ahead).toBeCloseTo(3.4, 10);
    const log = queueModel({ model: 'probabilistic', shape: 'log' });
    expect(log.name).toBe('probabilistic');
    expect(() => queueModel({ model: 'fifo' as QueueModelName })).toThrow(/known: none, risk-averse, probabilistic/);
  });
});
