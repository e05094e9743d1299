import { BigIntTable, IntTable, NumberList, NumberTable } from '../../../../src/core/columns';
import { ManualClock } from '../../../../src/core/clock';
import { Dec } from '../../../../src/core/decimal';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../../../src/exchange/engine/symbols';
import type { AccountChangeRecord, TradeRecord } from '../../../../src/protocol/records';
import { expectSameJson } from '../../../helpers/same-json';

/**
 * The checks below run over tens of thousands of entries: each loop collects what is wrong (as
 * `toBe` would see it, Object.is) and one expect says it is nothing, instead of an expect per
 * entry, which was most of this suite's time.
 */
const differs = (got: readonly unknown[], want: readonly unknown[]): boolean => got.length !== want.length || got.some((g, i) => !Object.is(g, want[i]));
const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe('history columns', () => {
  it('a short first chunk grows as it fills; a value past 64 bits in it keeps every entry', () => {
    // Three fields per entry: entries straddle the chunk boundaries.
    const b = new BigIntTable(3);
    const n = new NumberTable(3);
    const big = (i: number, f: number): bigint => (i === 5 && f === 1 ? -(10n ** 25n) : BigInt(i * 3 + f) - 7n);
    for (let i = 0; i < 5_000; i++) {
      for (let f = 0; f < 3; f++) {
        b.set(i, f, big(i, f));
        n.set(i, f, i * 0.5 + f);
      }
    }
    const wrong: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      for (let f = 0; f < 3; f++) {
        if (!Object.is(b.get(i, f), big(i, f))) wrong.push(`bigint ${i},${f}: ${b.get(i, f)}, expected ${big(i, f)}`);
        if (!Object.is(n.get(i, f), i * 0.5 + f)) wrong.push(`number ${i},${f}: ${n.get(i, f)}, expected ${i * 0.5 + f}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keep every entry across chunks; a money value past 64 bits turns only its chunk into bigints, nothing wraps', () => {
    const n = new NumberTable(1);
    const b = new BigIntTable(1);
    const big = (i: number): bigint => (i % 1000 === 7 ? 10n ** 30n + BigInt(i) : BigInt(i) * 1_000_000_007n - 5n);
    for (let i = 0; i < 10_000; i++) {
      n.set(i, 0, 1_700_000_000_000 + i);
      b.set(i, 0, i === 9_999 ? -(2n ** 63n) : i === 9_998 ? 2n ** 63n - 1n : i === 9_997 ? 2n ** 63n : big(i));
    }
    const wrong: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const want = i === 9_999 ? -(2n ** 63n) : i === 9_998 ? 2n ** 63n - 1n : i === 9_997 ? 2n ** 63n : big(i);
      if (!Object.is(n.get(i, 0), 1_700_000_000_000 + i)) wrong.push(`number ${i}: ${n.get(i, 0)}, expected ${1_700_000_000_000 + i}`);
      if (!Object.is(b.get(i, 0), want)) wrong.push(`bigint ${i}: ${b.get(i, 0)}, expected ${want}`);
    }
    expect(wrong).toEqual([]);
  });

  it('integer fields in 32 bits: a value 32 bits cannot hold (past 2^31 - 1, below -2^31, a fraction) turns only its chunk into doubles, every entry kept exactly', () => {
    // Two fields: chunks of 2,048 entries after the first. Odd values past 32 bits in chunks 1 and 3 only.
    const t = new IntTable(2);
    const odd = new Map<number, number>([[5_000, 2 ** 31], [5_001, -(2 ** 31) - 1], [5_002, 2 ** 53 - 1], [9_000, 0.5], [9_001, -(2 ** 40)]]);
    const want = (i: number, f: number): number => (f === 0 ? odd.get(i) : undefined) ?? (f === 0 ? (i * 7919) % 2 ** 31 : (i % 1000) - 500);
    for (let i = 0; i < 12_000; i++) for (let f = 0; f < 2; f++) t.set(i, f, want(i, f));
    // The bounds of 32 bits themselves fit.
    t.set(11_999, 0, 2 ** 31 - 1);
    t.set(11_999, 1, -(2 ** 31));
    const wrong: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      for (let f = 0; f < 2; f++) {
        const w = i === 11_999 ? (f === 0 ? 2 ** 31 - 1 : -(2 ** 31)) : want(i, f);
        if (!Object.is(t.get(i, f), w)) wrong.push(`${i},${f}: ${t.get(i, f)}, expected ${w}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("an account's order id list keeps every id in order across chunks: at, iteration, filter, toArray, of", () => {
    const ids = Array.from({ length: 9_000 }, (_, i) => 2 ** 40 + i * 3);
    const l = new NumberList();
    for (const id of ids) l.push(id);
    expect(l.length).toBe(9_000);
    expect([l.at(0), l.at(4_095), l.at(4_096), l.at(8_999)]).toEqual([ids[0], ids[4_095], ids[4_096], ids[8_999]]);
    expect(differs([...l], ids)).toBe(false);
    expect(differs(l.toArray(), ids)).toBe(false);
    expect(differs(l.filter((v) => v % 2 === 0), ids.filter((v) => v % 2 === 0))).toBe(false);
    expect(differs(NumberList.of(ids).toArray(), ids)).toBe(false);
    expect(new NumberList().toArray()).toEqual([]);
  });
});

/**
 * The engine keeps fills and balance changes in columns and makes the records when read. Every
 * figure below is checked against what the records must say by their definitions (before =
 * after - amount, fee = value x rate, ...), for balances far past 64-bit money units, across
 * pages, filters and a snapshot round trip.
 */
describe('account history kept in columns', () => {
  const T0 = 1_700_000_000_000;

  /** What the fill events said when each fill happened, by user and fillId. */
  const told = new Map<string, { price: string; quantity: string; fee: string; pnl: string; role: string; tradeId: string }>();

  function trading(balance: string, fills: number): { engine: Engine; clock: ManualClock } {
    const clock = new ManualClock(T0);
    const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    engine.createAccount({ userId: 'maker', balance });
    engine.createAccount({ userId: 'taker', balance });
    for (let i = 0; i < fills; i++) {
      clock.advance(1000);
      const price = (50_000 + (i % 7)).toFixed(1);
      engine.placeOrder('maker', { symbol: 'BTCUSDT', type: 'LIMIT', side: i % 2 === 0 ? 'SELL' : 'BUY', price, quantity: '0.013' });
      engine.placeOrder('taker', { symbol: 'BTCUSDT', type: 'MARKET', side: i % 2 === 0 ? 'BUY' : 'SELL', quantity: '0.013' });
      note(engine);
    }
    return { engine, clock };
  }

  function note(engine: Engine): void {
    for (const e of engine.drain()) {
      if (e.kind === 'order' && e.fill) told.set(`${e.userId}/${e.fill.fillId}`, { price: e.fill.lastFilledPrice, quantity: e.fill.lastFilledQty, fee: e.fill.handlingFee, pnl: e.fill.realizedPnl, role: e.fill.roleType, tradeId: e.fill.tradeId });
    }
  }

  function checkChanges(list: AccountChangeRecord[], balance: string): void {
    const keys = ['assetType', 'amount', 'walletBalanceBefore', 'walletBalanceAfter', 'frozenBalanceBefore', 'frozenBalanceAfter', 'changeType', 'referenceId', 'createdAt', 'symbol'];
    const wrong: string[] = [];
    let wallet = new Dec(balance);
    for (const c of [...list].reverse()) {
      if (!new Dec(c.walletBalanceBefore).eq(wallet)) wrong.push(`${show(c)}: before is not ${wallet.toString()}`);
      wallet = wallet.plus(c.amount);
      if (!new Dec(c.walletBalanceAfter).eq(wallet)) wrong.push(`${show(c)}: after is not ${wallet.toString()}`);
      if (differs(Object.keys(c), keys)) wrong.push(`${show(c)}: keys ${Object.keys(c).join(',')}`);
    }
    expect(wrong).toEqual([]);
  }

  function checkTrades(user: string, list: TradeRecord[]): void {
    const keys = ['fillId', 'tradeId', 'orderId', 'symbol', 'side', 'roleType', 'price', 'quantity', 'tradeValue', 'handlingFee', 'realizedPnl', 'positionSide', 'createdAt'];
    const wrong: string[] = [];
    for (const t of list) {
      if (differs(Object.keys(t), keys)) wrong.push(`${show(t)}: keys ${Object.keys(t).join(',')}`);
      if (!new Dec(t.price).times(t.quantity).eq(t.tradeValue)) wrong.push(`${show(t)}: tradeValue is not price x quantity`);
      const shown = { price: t.price, quantity: t.quantity, fee: t.handlingFee, pnl: t.realizedPnl, role: t.roleType, tradeId: t.tradeId };
      const said = told.get(`${user}/${t.fillId}`);
      if (said === undefined || differs(Object.values(shown), Object.values(said)) || differs(Object.keys(shown), Object.keys(said))) wrong.push(`${show(t)}: the fill event said ${show(said)}`);
    }
    expect(wrong).toEqual([]);
  }

  it.each([
    ['ordinary balances', '100000'],
    ['balances far past 64-bit money units (10^15 USDT)', '1000000000000000.00000001'],
  ])('%s: changes chain exactly, fills show their own figures; pages and filters see every entry', (_what, balance) => {
    const { engine } = trading(balance, 2_500);
    const all = engine.accountChanges('taker', { pageSize: 100_000 });
    // The deposit, then a fee per fill and realized PnL for closing fills.
    expect(all.total).toBeGreaterThan(2_500);
    checkChanges(all.list, '0');
    expect(all.list.at(-1)).toMatchObject({ changeType: 'DEPOSIT', referenceId: '', symbol: '' });
    const fees = engine.accountChanges('taker', { changeType: 'TRADE_FEE', pageSize: 100_000 });
    expect(fees.total).toBe(2_500);
    expect(fees.list.every((c) => c.changeType === 'TRADE_FEE' && c.symbol === 'BTCUSDT' && /^\d+$/.test(c.referenceId))).toBe(true);
    // A page is the same slice of the whole list.
    const p3 = engine.accountChanges('taker', { page: 3, pageSize: 7 });
    expect(p3.list).toEqual(all.list.slice(14, 21));

    const trades = engine.tradeHistory('taker', { pageSize: 100_000 });
    expect(trades.total).toBe(2_500);
    checkTrades('taker', trades.list);
    expect(trades.list[0]).toMatchObject({ roleType: 'taker', side: 'SELL', quantity: '0.013' });
    const one = trades.list[1234];
    expect(engine.tradeHistory('taker', { orderId: one.orderId }).list).toEqual([one]);
    const window = engine.tradeHistory('taker', { startTime: T0 + 1_000_000, endTime: T0 + 1_010_000, pageSize: 100 });
    expect(window.list.map((t) => t.createdAt)).toEqual(Array.from({ length: 11 }, (_, i) => T0 + 1_010_000 - i * 1000));
    // The statistics read the logs entry by entry, oldest first: the figures the records show, in money units.
    const data = engine.accountData('taker');
    expectSameJson(data.trades.toArray(), [...trades.list].reverse());
    expectSameJson(data.changes.toArray(), [...all.list].reverse());
    const units = (s: string): bigint => BigInt(new Dec(s).times(1e8).toFixed(0));
    const oldest = [...trades.list].reverse();
    const wrong: string[] = [];
    oldest.forEach((t, i) => {
      const got = [data.trades.createdAt(i), data.trades.valueUnits(i), data.trades.feeUnits(i)];
      const want = [t.createdAt, units(t.tradeValue), units(t.handlingFee)];
      if (differs(got, want)) wrong.push(`trade ${i}: ${show(got)}, expected ${show(want)}`);
    });
    [...all.list].reverse().forEach((c, i) => {
      const got = [data.changes.createdAt(i), data.changes.changeType(i), data.changes.amountUnits(i), data.changes.walletAfterUnits(i)];
      const want = [c.createdAt, c.changeType, units(c.amount), units(c.walletBalanceAfter)];
      if (differs(got, want)) wrong.push(`change ${i}: ${show(got)}, expected ${show(want)}`);
    });
    expect(wrong).toEqual([]);
  });

  it('a snapshot holds the same records; after a restore, old and new entries read as one history', () => {
    const { engine, clock } = trading('1000000', 5_000);
    const before = engine.tradeHistory('maker', { pageSize: 100_000 });
    const changesBefore = engine.accountChanges('maker', { pageSize: 100_000 });
    const snap = JSON.parse(JSON.stringify(engine.exportState()));
    const maker = snap.accounts.find((a: { userId: string }) => a.userId === 'maker');
    expectSameJson(maker.trades, [...before.list].reverse());
    expectSameJson(maker.changes, [...changesBefore.list].reverse());

    const restored = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    restored.importState(snap);
    clock.advance(1000);
    restored.placeOrder('maker', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000.0', quantity: '0.002' });
    restored.placeOrder('taker', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.002' });
    note(restored);
    const after = restored.tradeHistory('maker', { pageSize: 100_000 });
    expect(after.total).toBe(before.total + 1);
    expectSameJson(after.list.slice(1), before.list);
    expect(after.list[0]).toMatchObject({ price: '50000', quantity: '0.002', roleType: 'maker' });
    checkTrades('maker', after.list);
    const changesAfter = restored.accountChanges('maker', { pageSize: 100_000 });
    expectSameJson(changesAfter.list.slice(-changesBefore.total), changesBefore.list);
    checkChanges(changesAfter.list, '0');
    // The statistics' accessors read restored records and new entries alike.
    const view = restored.accountData('maker').changes;
    const recs = [...changesAfter.list].reverse();
    for (const i of [0, 1, recs.length - 2, recs.length - 1]) {
      expect(view.walletAfterUnits(i)).toBe(BigInt(new Dec(recs[i].walletBalanceAfter).times(1e8).toFixed(0)));
      expect(view.amountUnits(i)).toBe(BigInt(new Dec(recs[i].amount).times(1e8).toFixed(0)));
    }
    // Filters reach into the restored part too.
    expect(restored.tradeHistory('maker', { orderId: before.list[4321].orderId }).list).toEqual([before.list[4321]]);
    expect(JSON.stringify(restored.exportState().accounts.find((a) => a.userId === 'maker')?.trades.slice(0, -1))).toBe(JSON.stringify(maker.trades));
  });
});

describe('closed positions kept in columns', () => {
  it('records made when read; filters by symbol, side and time; a snapshot restores them and new ones follow', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    engine.createAccount({ userId: 'a', balance: '1000000' });
    engine.createAccount({ userId: 'b', balance: '1000000' });
    // a opens long then closes (buy 0.003, sell 0.003), then short then closes: two closed positions per round.
    const round = (price: number): void => {
      for (const [side, p] of [['BUY', price], ['SELL', price + 7], ['SELL', price], ['BUY', price - 3]] as const) {
        clock.advance(1000);
        engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: side === 'BUY' ? 'SELL' : 'BUY', price: p.toFixed(1), quantity: '0.003' });
        engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side, quantity: '0.003' });
      }
    };
    for (let i = 0; i < 30; i++) round(50_000 + i);
    const all = engine.positionHistory('a', { pageSize: 1000 });
    expect(all.total).toBe(60);
    const longs = engine.positionHistory('a', { side: 'long', pageSize: 1000 });
    expect(longs.total).toBe(30);
    // The last round's long: bought at 50,029, sold at 50,036, 0.003 BTC: 0.021 before fees.
    expect(longs.list[0]).toMatchObject({ symbol: 'BTCUSDT', positionSide: 'BOTH', maxQuantity: '0.003', entryPrice: '50029', closePrice: '50036', triggerMode: 1, marginMode: 'CROSS' });
    const t = all.list[10].closedAt;
    expect(engine.positionHistory('a', { startTime: t, endTime: t }).list).toEqual([all.list[10]]);

    const snap = JSON.parse(JSON.stringify(engine.exportState()));
    expect(snap.accounts.find((x: { userId: string }) => x.userId === 'a').positionHistory.map((h: { record: unknown }) => h.record)).toEqual([...all.list].reverse());
    const restored = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    restored.importState(snap);
    expect(restored.positionHistory('a', { pageSize: 1000 })).toEqual(all);
    restored.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50100.0', quantity: '0.003' });
    restored.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.003' });
    restored.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50110.0', quantity: '0.003' });
    restored.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.003' });
    const after = restored.positionHistory('a', { pageSize: 1000 });
    expect(after.total).toBe(61);
    expect(after.list.slice(1)).toEqual(all.list);
    expect(after.list[0]).toMatchObject({ entryPrice: '50100', closePrice: '50110', maxQuantity: '0.003' });
    expect(restored.positionHistory('a', { side: 'short', pageSize: 1000 }).total).toBe(30);
  });
});
