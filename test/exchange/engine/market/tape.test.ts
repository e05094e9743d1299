import { ManualClock } from '../../../../src/core/clock';
import { Dec } from '../../../../src/core/decimal';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS, wireSpecOf, type SymbolConfig } from '../../../../src/exchange/engine/symbols';
import type { RecordedEvent } from '../../../../src/market-data/format';
import { TapeReplayer } from '../../../../src/exchange/engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER, type ReplaySink } from '../../../../src/exchange/engine/market/tape-sink';

const T0 = 1_700_000_000_000;
const SYM: SymbolConfig = { ...DEFAULT_SYMBOLS[0], markPrice: '100' };

function setup(opts: { specs?: boolean; quotes?: boolean } = {}): { engine: Engine; tape: TapeReplayer; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const engine = new Engine({ symbols: [SYM], clock, insuranceFund: '1000000' });
  for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.createAccount({ userId: u, balance: TAPE_BALANCE });
  for (const u of ['a', 'c']) engine.createAccount({ userId: u, balance: '100000' });
  // The engine satisfies the sink directly.
  const sink: ReplaySink = engine;
  const tape = new TapeReplayer(sink, { ...(opts.specs === false ? {} : { specs: [wireSpecOf(SYM)] }), quotes: opts.quotes });
  return { engine, tape, clock };
}

const trade = (p: string, q: string, side: 'BUY' | 'SELL', id = '1'): RecordedEvent => ({ t: T0, k: 'trade', s: 'BTCUSDT', id, p, q, side });
const bid = (engine: Engine, user: string, price: string, quantity: string, clientOrderId?: string): void => {
  engine.placeOrder(user, { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity, timeInForce: 'GTC', clientOrderId });
};
const executed = (engine: Engine, user: string, clientOrderId: string): string => engine.queryOrder(user, { symbol: 'BTCUSDT', clientOrderId }).executedQty;

describe('TapeReplayer (tape fill model) against the engine', () => {
  it('fills a bid at 100 from a recorded sell at 99.9, at the bid price', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('99.9', '0.4', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.4');
    const trades = engine.tradeHistory('a', { symbol: 'BTCUSDT' }).list;
    expect(trades.map((t) => [t.price, t.roleType])).toEqual([['100', 'maker']]);
    // The tape maker's order at 99.9 was not needed and is gone: nothing of the tape rests.
    expect(engine.currentOrders(TAPE_MAKER, {}).total).toBe(0);
    expect(engine.currentOrders(TAPE_TAKER, {}).total).toBe(0);
    expect(tape.stats).toMatchObject({ trades: 1, replayed: 1 });
  });

  it('fills a bid resting at 100 before the tape from a recorded sell at 100 (queue priority)', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('100', '0.3', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.3');
    expect(engine.currentOrders(TAPE_MAKER, {}).total).toBe(0);
  });

  it('does not fill at 100 when the trade quantity is used up by orders ahead in the queue', () => {
    const { engine, tape } = setup();
    bid(engine, 'c', '100', '0.5', 'ahead');
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('100', '0.5', 'SELL'));
    expect(executed(engine, 'c', 'ahead')).toBe('0.5');
    expect(executed(engine, 'a', 'mine')).toBe('0');
    // A bigger print reaches it: 0.2 left for the bid after nothing else is ahead.
    tape.apply(trade('100', '0.2', 'SELL', '2'));
    expect(executed(engine, 'a', 'mine')).toBe('0.2');
  });

  it('does not fill a bid when the recorded trade is above it', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('100.1', '5', 'SELL'));
    tape.apply(trade('100.2', '5', 'BUY'));
    expect(executed(engine, 'a', 'mine')).toBe('0');
    expect(engine.marketState('BTCUSDT').lastPrice).toBe('100.2');
  });

  it('fills an ask from a recorded buy at or through it', () => {
    const { engine, tape } = setup();
    engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '101', quantity: '1', timeInForce: 'GTC', clientOrderId: 'ask' });
    tape.apply(trade('101.5', '0.6', 'BUY'));
    expect(executed(engine, 'a', 'ask')).toBe('0.6');
    expect(engine.positions('a', 'BTCUSDT')[0].quantity).toBe('-0.6');
  });

  it('applies mark (mark and index) and funding (rate and settlement)', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('100', '1', 'SELL'));
    tape.apply({ t: T0, k: 'mark', s: 'BTCUSDT', p: '101', i: '100.5', r: '0.0003', n: T0 + 1000 });
    const m = engine.marketState('BTCUSDT');
    expect([m.markPrice, m.indexPrice, m.fundingRate]).toEqual(['101', '100.5', '0.0003']);
    const before = engine.asset('a').walletBalance;
    tape.apply({ t: T0, k: 'funding', s: 'BTCUSDT', r: '0.001', p: '101' });
    const after = engine.asset('a').walletBalance;
    // A long of 1 at mark 101 pays 0.101 USDT at 0.1 %.
    expect(Number(before) - Number(after)).toBeCloseTo(0.101, 6);
    expect(tape.stats).toMatchObject({ marks: 1, fundings: 1, refusals: 0 });
  });

  it('settles a funding line at its own recorded mark, not at the mark before it', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(trade('100', '1', 'SELL'));
    tape.apply({ t: T0, k: 'mark', s: 'BTCUSDT', p: '101', i: '100.5', r: '0.0003', n: T0 + 1000 });
    const before = engine.asset('a').walletBalance;
    // A recorder writes the funding line (mark 102.3 at the funding time) before that moment's mark line.
    tape.apply({ t: T0 + 1000, k: 'funding', s: 'BTCUSDT', r: '0.001', p: '102.3' });
    // The long of 1 pays 1 x 102.3 x 0.001 = 0.1023 (at the previous mark 101 it would be 0.101).
    const paid = engine.accountChanges('a', { changeType: 'FUNDING_FEE' }).list.map((c) => c.amount);
    expect(paid).toEqual(['-0.1023']);
    expect(engine.asset('a').walletBalance).toBe(new Dec(before).minus('0.1023').toFixed());
    const m = engine.marketState('BTCUSDT');
    expect([m.markPrice, m.indexPrice]).toEqual(['102.3', '100.5']);
    expect(tape.stats).toMatchObject({ marks: 1, fundings: 1, refusals: 0 });
  });

  it('skips and counts trades below the minimum, splits trades above the maximum quantity', () => {
    const { engine, tape } = setup();
    tape.apply(trade('100', '0.001', 'SELL')); // 0.1 USDT < min notional 5
    expect(tape.stats.skipped.belowMinimum).toBe(1);
    tape.apply(trade('100', '0.00001', 'SELL')); // off the 0.001 step grid
    expect(tape.stats.skipped.offGrid).toBe(1);
    tape.apply(trade('100', '2500', 'BUY')); // max 1000 per order: three pieces
    expect(tape.stats.replayed).toBe(1);
    expect(engine.positions(TAPE_TAKER, 'BTCUSDT')[0].quantity).toBe('2500');
    expect(engine.positions(TAPE_MAKER, 'BTCUSDT')[0].quantity).toBe('-2500');
  });

  it('without specs counts the engine refusal of a trade below the minimum', () => {
    const { tape } = setup({ specs: false });
    tape.apply(trade('100', '0.001', 'SELL'));
    expect(tape.stats.skipped.refused).toBe(1);
    tape.apply(trade('100', '1', 'SELL'));
    expect(tape.stats.replayed).toBe(1);
  });

  it('without quotes ignores depth; always ignores ticker, private, positions and gap lines', () => {
    const { engine, tape } = setup({ quotes: false });
    tape.apply({ t: T0, k: 'depth', s: 'BTCUSDT', b: [['99', '1']], a: [['101', '1']] });
    tape.apply({ t: T0, k: 'gap', stream: 'public', from: T0 - 5, reason: 'reconnect' });
    tape.apply({ t: T0, k: 'positions', list: [] });
    expect(tape.stats.ignored).toBe(3);
    expect(engine.depth('BTCUSDT', 5).bids).toEqual([]);
  });
});

describe('TapeReplayer tape quotes (recorded best bid and ask in the book)', () => {
  const depth = (b: Array<[string, string]>, a: Array<[string, string]>): RecordedEvent => ({ t: T0, k: 'depth', s: 'BTCUSDT', b, a });
  const market = (engine: Engine, side: 'BUY' | 'SELL', quantity: string, clientOrderId: string): void => {
    engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side, quantity, clientOrderId });
  };
  const status = (engine: Engine, user: string, clientOrderId: string): string => engine.queryOrder(user, { symbol: 'BTCUSDT', clientOrderId }).status;

  it('a participant MARKET buy fills at the recorded best ask quote, up to its quantity', () => {
    const { engine, tape } = setup();
    tape.apply(depth([['99.5', '2'], ['99', '5']], [['100.5', '0.3'], ['101', '5']]));
    // Only the top level: one bid and one ask of the tape maker.
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [['99.5', '2']], asks: [['100.5', '0.3']] });
    market(engine, 'BUY', '0.2', 'mkt');
    expect(status(engine, 'a', 'mkt')).toBe('FILLED');
    expect(engine.tradeHistory('a', { symbol: 'BTCUSDT' }).list.map((t) => [t.price, t.quantity, t.roleType])).toEqual([['100.5', '0.2', 'taker']]);
    // No second level: a buy beyond what is left of the top expires for the rest.
    market(engine, 'BUY', '0.5', 'mkt2');
    expect(executed(engine, 'a', 'mkt2')).toBe('0.1');
    expect(status(engine, 'a', 'mkt2')).toBe('EXPIRED');
    expect(tape.stats.quotes).toEqual({ depths: 1, placed: 2, crossed: 0, skipped: 0 });
  });

  it('refuses a quote that would cross a participant order instead of trading with it', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(depth([['99.5', '2']], [['99.8', '1']]));
    // The recorded ask 99.8 is under the participant's bid 100: no trade at a price never recorded.
    expect(executed(engine, 'a', 'mine')).toBe('0');
    expect(engine.tradeHistory(TAPE_MAKER, { symbol: 'BTCUSDT' }).list).toEqual([]);
    expect(status(engine, TAPE_MAKER, 'tape-qa-2')).toBe('REJECTED');
    expect(engine.depth('BTCUSDT', 5).asks).toEqual([]);
    expect(tape.stats.quotes).toMatchObject({ placed: 1, crossed: 1 });
  });

  it('replaces the quotes on each depth event; an empty side leaves no quote', () => {
    const { engine, tape } = setup();
    tape.apply(depth([['99.5', '2']], [['100.5', '1']]));
    tape.apply(depth([['99.7', '3']], [['100.2', '0.5']]));
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [['99.7', '3']], asks: [['100.2', '0.5']] });
    expect(status(engine, TAPE_MAKER, 'tape-qb-1')).toBe('CANCELED');
    expect(status(engine, TAPE_MAKER, 'tape-qa-2')).toBe('CANCELED');
    expect(engine.currentOrders(TAPE_MAKER, {}).total).toBe(2);
    tape.apply(depth([], [['100.3', '0.5']]));
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [], asks: [['100.3', '0.5']] });
    // The maximum quantity caps a quote; a top level below the minimum notional is skipped.
    tape.apply(depth([['99', '2500']], [['100.3', '0.001']]));
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [['99', '1000']], asks: [] });
    expect(tape.stats.quotes).toMatchObject({ depths: 4, skipped: 1 });
  });

  it('takes no part in a re-enacted trade: the participant keeps its queue priority at the touch', () => {
    const { engine, tape } = setup();
    bid(engine, 'a', '100', '1', 'mine');
    tape.apply(depth([['100', '5']], [['100.5', '5']]));
    // The tape's bid quote at 100 is behind the participant's bid; a recorded sell of 0.4 at 100.
    tape.apply(trade('100', '0.4', 'SELL'));
    expect(executed(engine, 'a', 'mine')).toBe('0.4');
    // The quote at the trade price is back (full: the participant took none of it); the ask too.
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [['100', '5.6']], asks: [['100.5', '5']] });
    // A trade through the ask quote (a buy at 100.7) leaves it out until the next depth line.
    tape.apply(trade('100.7', '0.1', 'BUY', '2'));
    expect(engine.depth('BTCUSDT', 5).asks).toEqual([]);
    // Nothing of the tape trades is left; the tape maker holds only the bid quote.
    expect(engine.currentOrders(TAPE_MAKER, {}).total).toBe(1);
  });
});

describe('TapeReplayer on format v2 quote events', () => {
  it('a quote event becomes the tape quotes, as a depth line does: a MARKET buy fills at the recorded ask', () => {
    const { engine, tape } = setup();
    tape.apply({ t: T0, k: 'quote', s: 'BTCUSDT', bp: '99.9', bq: '2', ap: '100.1', aq: '0.5' });
    expect(tape.stats.quotes).toMatchObject({ depths: 1, placed: 2 });
    engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.3' });
    expect(engine.tradeHistory('a', { symbol: 'BTCUSDT' }).list.map((t) => [t.price, t.quantity, t.roleType])).toEqual([['100.1', '0.3', 'taker']]);
    // The next quote replaces both: the bid moved, the ask is what is left at the new size.
    tape.apply({ t: T0 + 1, k: 'quote', s: 'BTCUSDT', bp: '100', bq: '1', ap: '100.1', aq: '0.4' });
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [['100', '1']], asks: [['100.1', '0.4']] });
  });

  it('L2 book and snapshot events are counted as not used by the fill model, never applied', () => {
    const { engine, tape } = setup();
    tape.apply({ t: T0, k: 'snapshot', s: 'BTCUSDT', u: 1, b: [['99', '1']], a: [['101', '1']] } as RecordedEvent);
    tape.apply({ t: T0, k: 'book', s: 'BTCUSDT', U: 2, u: 2, b: [['99', '0']], a: [] } as RecordedEvent);
    expect(tape.stats.ignored).toBe(2);
    expect(engine.depth('BTCUSDT', 5)).toMatchObject({ bids: [], asks: [] });
  });
});
