import { Dec, DecOfText } from '../../src/core/decimal';
import { EquityReading } from '../../src/bot/risk/equity';
import { RiskEngine, type RiskMemory } from '../../src/bot/risk/risk-engine';
import type { MarkPriceData } from '../../src/protocol/rest/market';
import type { PositionRecord, UserAssetRecord } from '../../src/protocol/records';

/** A deterministic stream of numbers in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** A positive decimal of `digits` significant digits around `magnitude`. */
function decimalOf(rnd: () => number, digits: number, magnitude: number): string {
  let s = String(1 + Math.floor(rnd() * 9));
  for (let i = 1; i < digits; i++) s += String(Math.floor(rnd() * 10));
  return new Dec(`0.${s}`).times(new Dec(10).pow(magnitude)).toFixed();
}

describe('the risk engine reads the drawdown limit as before: (peak - equity) / peak, to 60 digits, above the limit', () => {
  /** What the engine decided before the division was left to the cases that can exceed the limit. */
  const reference = (peak: Dec, equity: Dec, limit: string): boolean => peak.minus(equity).div(peak).gt(limit);

  function decide(peak: Dec, equity: Dec, limit: string): { reducing: boolean; reason: string } {
    const risk = new RiskEngine({ maxDrawdown: limit });
    risk.observeEquity(peak, 0);
    risk.observeEquity(equity, 1);
    return { reducing: risk.state === 'REDUCING', reason: risk.reason };
  }

  test('on a limit of 0.2: exactly 20 % down stays ACTIVE, a hair more moves to REDUCING with the drawdown to 4 places', () => {
    expect(decide(new Dec('10000'), new Dec('8000'), '0.2').reducing).toBe(false);
    const d = decide(new Dec('10000'), new Dec('7999.99999999'), '0.2');
    expect(d.reducing).toBe(true);
    expect(d.reason).toBe('LOSS_LIMIT: drawdown 0.2000 exceeds 0.2');
    expect(decide(new Dec('10000'), new Dec('12000'), '0.2').reducing).toBe(false);
  });

  test('random peaks, equities and limits beside the line, short and long (past 60 digits together), decide as the division does', () => {
    const rnd = lcg(20261126);
    let exceeded = 0;
    for (let i = 0; i < 3000; i++) {
      const long = i % 3 === 0;
      const peak = new Dec(decimalOf(rnd, long ? 35 + Math.floor(rnd() * 30) : 1 + Math.floor(rnd() * 14), 1 + Math.floor(rnd() * 8)));
      const limit = decimalOf(rnd, long ? 20 + Math.floor(rnd() * 45) : 1 + Math.floor(rnd() * 4), 0);
      // Equity at the limit's line, then moved by a relative hair either way (or not at all).
      const line = peak.minus(peak.times(limit));
      const hair = new Dec(10).pow(-(5 + Math.floor(rnd() * 70)));
      const pick = rnd();
      const equity = pick < 0.3 ? line : pick < 0.65 ? line.minus(peak.times(hair)) : line.plus(peak.times(hair));
      const want = reference(peak, equity, limit);
      if (want) exceeded++;
      expect({ i, reducing: decide(peak, equity, limit).reducing }).toEqual({ i, reducing: want });
    }
    expect(exceeded).toBeGreaterThan(500);
    expect(exceeded).toBeLessThan(2500);
  });
});

describe('equity at the latest marks', () => {
  const asset = (wallet: string): UserAssetRecord => ({ userId: 'u', assetType: 'USDT', walletBalance: wallet, frozenMargin: '0', usedMargin: '0', availableBalance: wallet, unrealizedPnl: '0' });
  const position = (side: 'LONG' | 'SHORT' | 'BOTH', quantity: string, entryPrice: string, unrealizedPnl = '0'): PositionRecord => ({
    symbol: 'BTCUSDT', marginMode: 'CROSS', positionSide: side, leverage: 5, quantity, entryPrice, breakEvenPrice: '0', liqPrice: '0', marginRatio: '0',
    unrealizedPnl, roe: '0', nextFundingFee: '0', fundingFeeAccum: '0', tpPrice: '0', slPrice: '0', positionMargin: '0', markPrice: '0',
  });

  test('is the wallet plus (mark - entry) x signed quantity of each position, following every change of the records', () => {
    const state = { a: undefined as UserAssetRecord | undefined, p: [] as PositionRecord[], m: new Map<string, MarkPriceData>() };
    const view = { asset: () => state.a, positions: () => state.p, mark: (s: string) => state.m.get(s) };
    const reading = new EquityReading(view);
    expect(reading.read()).toBeUndefined();
    state.a = asset('1000');
    expect(reading.read()?.toFixed()).toBe('1000');
    // No mark yet: the record's own unrealized PnL.
    state.p = [position('BOTH', '0.5', '60000.1', '-3.5')];
    expect(reading.read()?.toFixed()).toBe('996.5');
    state.m.set('BTCUSDT', { markPrice: '60010.1', indexPrice: '60010.1', fundingRate: '0', nextFundingTime: 0 });
    expect(reading.read()?.toFixed()).toBe('1005');
    // Each figure changes in turn: every reading uses the record as it is now.
    state.a = asset('999.5');
    expect(reading.read()?.toFixed()).toBe('1004.5');
    state.p = [position('BOTH', '-0.25', '60000.1')];
    expect(reading.read()?.toFixed()).toBe('997');
    state.p = [position('BOTH', '-0.25', '60020.1')];
    expect(reading.read()?.toFixed()).toBe('1002');
    // Hedge mode: a SHORT position's quantity is its size, counted against it.
    state.p = [position('LONG', '0.1', '60000.1'), position('SHORT', '0.2', '60020.1')];
    expect(reading.read()?.toFixed()).toBe(new Dec('999.5').plus('1').plus('2').toFixed());
  });

  test('in exact decimals it gives the digits the Dec formula gives, long figures and positions of both signs included', () => {
    const rnd = lcg(4242);
    const text = (digits: number, magnitude: number, signed: boolean): string => {
      const t = decimalOf(rnd, digits, magnitude);
      return signed && rnd() < 0.5 ? `-${t}` : t;
    };
    for (let i = 0; i < 500; i++) {
      const long = i % 4 === 0;
      const state = { a: asset(text(long ? 40 : 12, 4 + Math.floor(rnd() * 6), false)), p: [] as PositionRecord[], m: new Map<string, MarkPriceData>() };
      const symbols = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];
      for (const symbol of symbols) {
        if (rnd() < 0.3) continue;
        const side = (['LONG', 'SHORT', 'BOTH'] as const)[Math.floor(rnd() * 3)];
        state.p.push({ ...position(side, text(long ? 25 : 4, 1, side === 'BOTH'), text(long ? 30 : 7, 5, false), text(10, 3, true)), symbol });
        if (rnd() < 0.8) state.m.set(symbol, { markPrice: text(long ? 35 : 7, 5, false), indexPrice: '0', fundingRate: '0', nextFundingTime: 0 });
      }
      const view = { asset: () => state.a, positions: () => state.p, mark: (s: string) => state.m.get(s) };
      let want = new Dec(state.a.walletBalance);
      for (const p of state.p) {
        const mark = state.m.get(p.symbol)?.markPrice;
        const q = new Dec(p.quantity);
        want = mark === undefined ? want.plus(p.unrealizedPnl) : want.plus(new Dec(mark).minus(p.entryPrice).times(p.positionSide === 'SHORT' ? q.negated() : q));
      }
      expect({ i, equity: new EquityReading(view).read()?.toFixed() }).toEqual({ i, equity: want.toFixed() });
    }
  });

  test('the daily loss limit: a loss of exactly the limit stays ACTIVE, a hair more moves to REDUCING naming the loss', () => {
    const risk = new RiskEngine({ maxDailyLoss: '100' });
    risk.observeEquity(new Dec('1000.5'), 0);
    risk.observeEquity(new Dec('900.5'), 1);
    expect(risk.state).toBe('ACTIVE');
    expect(risk.dailyLoss()?.toFixed()).toBe('100');
    risk.observeEquity(new Dec('900.49999999'), 2);
    expect(risk.state).toBe('REDUCING');
    expect(risk.reason).toBe('LOSS_LIMIT: daily loss 100.00000001 exceeds 100');
  });

  // The references lived in memory only: a restart the same UTC day began a fresh day's budget
  // (a probe: REDUCING at a loss of 5.6, and after a restart the bot bought again and lost 6.3 more).
  test('a restarted engine measures from the saved day start and peak: the same day, REDUCING at once; the next day, a new day start', () => {
    const DAY = 86_400_000;
    const before = new RiskEngine({ maxDailyLoss: '5', maxDrawdown: '0.5' });
    before.observeEquity(new Dec('100000'), 10 * DAY + 1000);
    before.observeEquity(new Dec('99996'), 10 * DAY + 2000);
    expect(before.state).toBe('ACTIVE');
    const saved = before.memory();
    expect(saved).toEqual({ day: 10, dayStartEquity: '100000', peakEquity: '100000' });
    const after = new RiskEngine({ maxDailyLoss: '5', maxDrawdown: '0.5' });
    after.restore(JSON.parse(JSON.stringify(saved)) as RiskMemory);
    after.observeEquity(new Dec('99994'), 10 * DAY + 3000);
    expect([after.state, after.reason]).toEqual(['REDUCING', 'LOSS_LIMIT: daily loss 6 exceeds 5']);
    const nextDay = new RiskEngine({ maxDailyLoss: '5' });
    nextDay.restore(saved as RiskMemory);
    nextDay.observeEquity(new Dec('99994'), 11 * DAY);
    expect(nextDay.state).toBe('ACTIVE');
    expect(nextDay.memory()).toEqual({ day: 11, dayStartEquity: '99994', peakEquity: '100000' });
  });

  test('DecOfText parses again exactly when the text changes', () => {
    const t = new DecOfText();
    const a = t.of('1.50');
    expect(a.toFixed()).toBe('1.5');
    expect(t.of('1.50')).toBe(a);
    expect(t.of('1.5')).not.toBe(a);
    expect(t.of('2').toFixed()).toBe('2');
    expect(() => t.of('x')).toThrow();
    expect(t.of('2').toFixed()).toBe('2');
  });
});
