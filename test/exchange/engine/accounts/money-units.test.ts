import { ManualClock } from '../../../../src/core/clock';
import { Dec } from '../../../../src/core/decimal';
import { decOfUnits, formatUnits, parseUnits, unitsOfDec } from '../../../../src/core/money-units';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS, SymbolSpec } from '../../../../src/exchange/engine/symbols';
import { mismatches } from '../../../helpers/mismatches';

describe('integer money units (balances and frozen margin)', () => {
  it('formats and parses exactly, far beyond 2^53 units, and refuses what is not a whole unit', () => {
    for (const s of ['0', '1', '-1', '0.00000001', '-0.00000001', '123456789012345678901234.5', '90071992.54740993']) {
      const u = parseUnits(s);
      expect(u).toBeDefined();
      expect(formatUnits(u as bigint)).toBe(s);
      expect(unitsOfDec(new Dec(s))).toBe(u);
      expect(decOfUnits(u as bigint).eq(new Dec(s))).toBe(true);
    }
    expect(parseUnits('1.000000001')).toBeUndefined();
    expect(() => unitsOfDec(new Dec('0.000000001'))).toThrow(/more than 8 decimals/);
  });

  it('notionals and exact grid values are the all-bigint products on both sides of 2^53 (the double fast path and the fallback)', () => {
    const specs = [
      new SymbolSpec(DEFAULT_SYMBOLS[0]),
      new SymbolSpec({ ...DEFAULT_SYMBOLS[0], symbol: 'ODDUSDT', tickSize: '0.25', stepSize: '0.005', minQty: '0.005' }),
      new SymbolSpec({ ...DEFAULT_SYMBOLS[0], symbol: 'WHOLEUSDT', tickSize: '5', stepSize: '2', minQty: '2' }),
    ];
    const edge = Number.MAX_SAFE_INTEGER;
    let seed = 7;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const m = mismatches();
    for (const spec of specs) {
      const ts = BigInt(spec.tick.unitScaled);
      const ss = BigInt(spec.step.unitScaled);
      const factor = 10n ** BigInt(8 - spec.notionalScale);
      const cases: Array<[number, number]> = [
        [0, 5],
        [1, 1],
        [edge, 1],
        [1, edge],
        [Math.floor(Math.sqrt(edge)), Math.floor(Math.sqrt(edge))],
        [Math.floor(Math.sqrt(edge)) + 1, Math.floor(Math.sqrt(edge)) + 1],
      ];
      for (let i = 0; i < 2000; i++) cases.push([Math.floor(rnd() * 2 ** (10 + rnd() * 43)), Math.floor(rnd() * 2 ** (1 + rnd() * 40))]);
      for (const [t, q] of cases) {
        const units = BigInt(t) * ts * BigInt(q) * ss;
        m.same(() => `${spec.name} notionalUnits(${t}, ${q})`, spec.notionalUnits(t, q), units);
        m.same(() => `${spec.name} notionalMoney(${t}, ${q})`, spec.notionalMoney(t, q), units * factor);
        m.same(() => `${spec.name} notionalMoney(${t}, ${-q})`, spec.notionalMoney(t, -q), -units * factor);
        m.same(() => `${spec.name} tick.exactOf(${t}).m`, spec.tick.exactOf(t).m, BigInt(t) * ts);
        m.same(() => `${spec.name} step.exactOf(${-q}).m`, spec.step.exactOf(-q).m, -BigInt(q) * ss);
      }
    }
    m.expectNone();
  });

  it('a symbol whose price x quantity could fall between two money units is refused at start, naming the sizes', () => {
    const cfg = { ...DEFAULT_SYMBOLS[0], symbol: 'TINYUSDT', tickSize: '0.00001', stepSize: '0.0001', minQty: '0.0001', markPrice: '1' };
    expect(() => new SymbolSpec(cfg)).toThrow('TINYUSDT: tickSize 0.00001 and stepSize 0.0001 have 9 decimals together; at most 8 are supported');
    expect(() => new SymbolSpec({ ...cfg, stepSize: '0.001', minQty: '0.001' })).not.toThrow();
  });

  it('balances near and past the float bound stay exact and conserved: 10^15 USDT accounts trading the smallest step at 125x', () => {
    const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock: new ManualClock(1_700_000_000_000), insuranceFund: '0' });
    const big = '1000000000000000.00000001';
    engine.createAccount({ userId: 'a', balance: big });
    engine.createAccount({ userId: 'b', balance: big });
    engine.setLeverage('a', { symbol: 'BTCUSDT', leverage: 125 });
    engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 125 });
    for (let i = 0; i < 50; i++) {
      engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49999.9', quantity: '0.001' });
      engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.001' });
      engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000.3', quantity: '0.001' });
      engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.001' });
    }
    // A resting order freezes notional / leverage, rounded up to a unit: 49999.9 * 0.001 / 125.
    const r = engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49999.9', quantity: '0.001' });
    expect(engine.asset('a').frozenMargin).toBe('0.3999992');
    const audit = engine.audit();
    expect(audit.frozenMismatch).toEqual([]);
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
    // Every leg: a pays 0.3 per round trip (bought back 0.4 higher) plus fees; exact to the unit.
    const wallet = new Dec(engine.asset('a').walletBalance);
    const fees = engine.accountChanges('a', { changeType: 'TRADE_FEE', pageSize: 1000 }).list.reduce((t, c) => t.plus(c.amount), new Dec(0));
    const pnl = engine.accountChanges('a', { changeType: 'REALIZED_PNL', pageSize: 1000 }).list.reduce((t, c) => t.plus(c.amount), new Dec(0));
    expect(wallet.eq(new Dec(big).plus(fees).plus(pnl))).toBe(true);
    expect(pnl.eq('-0.02')).toBe(true);
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
    expect(engine.asset('a').frozenMargin).toBe('0');
  });
});
