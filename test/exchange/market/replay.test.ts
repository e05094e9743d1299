import { ManualClock } from '../../../src/core/clock';
import { Engine } from '../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS, type SymbolConfig } from '../../../src/exchange/engine/symbols';
import type { RecordedEvent } from '../../../src/exchange/market/recording-format';
import { wireSpecOf } from '../../../src/exchange/market/recording-format';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER, TapeReplayer, type ReplaySink } from '../../../src/exchange/market/replay';

const T0 = 1_700_000_000_000;
const SYM: SymbolConfig = { ...DEFAULT_SYMBOLS[0], markPrice: '100' };

function setup(opts: { specs?: boolean } = {}): { engine: Engine; tape: TapeReplayer; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const engine = new Engine({ symbols: [SYM], clock, insuranceFund: '1000000' });
  for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.createAccount({ userId: u, balance: TAPE_BALANCE });
  for (const u of ['a', 'c']) engine.createAccount({ userId: u, balance: '100000' });
  // The engine satisfies the sink directly.
  const sink: ReplaySink = engine;
  const tape = new TapeReplayer(sink, opts.specs === false ? {} : { specs: [wireSpecOf(SYM)] });
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

  it('ignores depth, ticker, private, positions and gap lines', () => {
    const { engine, tape } = setup();
    tape.apply({ t: T0, k: 'depth', s: 'BTCUSDT', b: [['99', '1']], a: [['101', '1']] });
    tape.apply({ t: T0, k: 'gap', stream: 'public', from: T0 - 5, reason: 'reconnect' });
    tape.apply({ t: T0, k: 'positions', list: [] });
    expect(tape.stats.ignored).toBe(3);
    expect(engine.depth('BTCUSDT', 5).bids).toEqual([]);
  });
});
