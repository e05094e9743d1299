import { ManualClock } from '../../../src/core/clock';
import type { EngineEvent } from '../../../src/exchange/engine/events';
import { FundingScheduler } from '../../../src/exchange/market/funding-scheduler';
import { Prng } from '../../../src/market-data/prng';
import { PriceProcess } from '../../../src/market-data/price-process';
import { MarketSimulator } from '../../../src/exchange/market/simulator';
import { DEFAULT_CONFIG } from '../../../src/exchange/service/config';
import { ExchangeCore } from '../../../src/exchange/service/exchange-core';

function returns(seed: number, n: number): { r: number[]; jumps: number; diffusive: number[] } {
  const p = new PriceProcess(50000, 0.1, new Prng(seed).fork('price:BTCUSDT'));
  const r: number[] = [];
  const diffusive: number[] = [];
  let jumps = 0;
  for (let i = 0; i < n; i++) {
    const s = p.step();
    r.push(s.ret);
    if (s.jump) jumps++;
    else diffusive.push(s.ret);
  }
  return { r, jumps, diffusive };
}

function autocorr(x: number[], lag: number): number {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < x.length; i++) {
    den += (x[i] - m) ** 2;
    if (i >= lag) num += (x[i] - m) * (x[i - lag] - m);
  }
  return num / den;
}

describe('price process', () => {
  it('is deterministic per seed and differs between seeds', () => {
    expect(returns(7, 1000).r).toEqual(returns(7, 1000).r);
    expect(returns(7, 1000).r).not.toEqual(returns(8, 1000).r);
  });

  it('clusters volatility: squared returns are autocorrelated, raw returns are not', () => {
    // Without the jump steps, whose rare huge squares swamp the estimate.
    const { diffusive: r } = returns(11, 100_000);
    const sq = r.map((x) => x * x);
    expect(autocorr(sq, 1)).toBeGreaterThan(0.05);
    expect(Math.abs(autocorr(r, 1))).toBeLessThan(0.02);
  });

  it('jumps: Poisson arrivals at about the configured rate, and fat tails', () => {
    const { r, jumps } = returns(3, 150_000);
    expect(jumps).toBeGreaterThan(60); // expected 100 at 1/1500 per step
    expect(jumps).toBeLessThan(150);
    const sd = Math.sqrt(r.reduce((a, b) => a + b * b, 0) / r.length);
    const beyond = r.filter((x) => Math.abs(x) > 6 * sd).length;
    expect(beyond).toBeGreaterThan(10); // a normal would give ~0.0003 such returns
  });

  it('prices stay on the tick grid and positive', () => {
    const p = new PriceProcess(3000, 0.01, new Prng(1));
    for (let i = 0; i < 1000; i++) {
      const s = p.step();
      expect(Number.isInteger(s.markTicks) && s.markTicks > 0 && Number.isInteger(s.indexTicks)).toBe(true);
    }
  });
});

describe('market simulator', () => {
  it('creates its traders, keeps a two-sided book around mark and produces trades', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const core = new ExchangeCore({ config: DEFAULT_CONFIG, wallClock: clock });
    const events: EngineEvent[] = [];
    core.emitter.on('events', (e) => events.push(...e));
    const sim = new MarketSimulator({ core, seed: 5, takerRate: 5 });
    await sim.init();
    expect([...core.accounts.byUsername.keys()]).toEqual(['mm-1', 'mm-2', 'taker-1', 'taker-2']);
    for (let i = 0; i < 300; i++) {
      clock.advance(200);
      await sim.step();
    }
    for (const symbol of ['BTCUSDT', 'ETHUSDT']) {
      const d = core.engine.depth(symbol, 20);
      expect(d.bids.length).toBeGreaterThanOrEqual(5);
      expect(d.asks.length).toBeGreaterThanOrEqual(5);
      const m = core.engine.marketState(symbol);
      expect(Number(m.bestBid)).toBeLessThan(Number(m.bestAsk));
      expect(Number(m.bestBid)).toBeLessThan(Number(m.markPrice) * 1.01);
      expect(Number(m.bestAsk)).toBeGreaterThan(Number(m.markPrice) * 0.99);
      expect(events.filter((e) => e.kind === 'trade' && e.symbol === symbol).length).toBeGreaterThan(20);
      expect(events.filter((e) => e.kind === 'markPrice' && e.symbol === symbol).length).toBeGreaterThan(100);
    }
    const a = core.engine.audit();
    expect(a.frozenMismatch).toEqual([]);
    expect(a.netQtyBySymbol).toEqual({ BTCUSDT: 0, ETHUSDT: 0 });
    // A bot's order at the touch gets filled by the takers.
    await core.execute({ k: 'createUser', userId: core.accounts.nextUserId(), username: 'bot', passwordHash: 'x', balance: '100000', positionMode: 'ONE_WAY' });
    const bot = core.accounts.byUsername.get('bot')?.userId as string;
    const bid = core.engine.marketState('BTCUSDT').bestBid;
    const placed = await core.execute<{ orderId: string }>({ k: 'placeOrder', userId: bot, input: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: (Number(bid) + 0.1).toFixed(1), quantity: '0.01' } });
    for (let i = 0; i < 300 && core.engine.queryOrder(bot, { symbol: 'BTCUSDT', orderId: placed.orderId }).status !== 'FILLED'; i++) {
      clock.advance(200);
      await sim.step();
    }
    expect(core.engine.queryOrder(bot, { symbol: 'BTCUSDT', orderId: placed.orderId }).executedQty).not.toBe('0');
  }, 30000);
});

describe('funding scheduler', () => {
  const HOUR8 = 8 * 3600 * 1000;
  it('settles each symbol when its funding time comes, once', async () => {
    const start = 10 * HOUR8 + HOUR8 - 2000;
    const clock = new ManualClock(start);
    const core = new ExchangeCore({ config: DEFAULT_CONFIG, wallClock: clock });
    const funding: EngineEvent[] = [];
    core.emitter.on('events', (e) => funding.push(...e.filter((x) => x.kind === 'funding')));
    const f = new FundingScheduler({ core });
    await f.tick();
    expect(funding).toHaveLength(0);
    clock.advance(1000);
    await f.tick();
    expect(funding).toHaveLength(0);
    clock.advance(1000);
    await f.tick();
    expect(funding.map((e) => (e.kind === 'funding' ? e.symbol : ''))).toEqual(['BTCUSDT', 'ETHUSDT']);
    clock.advance(1000);
    await f.tick();
    expect(funding).toHaveLength(2);
    expect(core.engine.marketState('BTCUSDT').nextFundingTime).toBe(12 * HOUR8);
    clock.set(12 * HOUR8);
    await f.tick();
    expect(funding).toHaveLength(4);
  });

  it('in premium mode follows mark over index with the rate', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const core = new ExchangeCore({ config: DEFAULT_CONFIG, wallClock: clock });
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50100', indexPrice: '50000' });
    const f = new FundingScheduler({ core, premium: true, rateUpdateMs: 10_000 });
    f.start();
    await f.stop();
    for (let i = 0; i < 11; i++) {
      clock.advance(1000);
      await f.tick();
    }
    // premium 0.2 % plus clamp(0.01 % - 0.2 %, +-0.05 %) = 0.15 %
    expect(core.engine.marketState('BTCUSDT').fundingRate).toBe('0.0015');
  });
});
