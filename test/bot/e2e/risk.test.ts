/**
 * Every code the risk engine produces, end to end: a bot on LiveVenue against the local exchange
 * emits, in ONE tick, intents just inside a limit and one just outside. The inside ones must reach
 * the wire; the outside one must become a denial with the right code and never be sent. Plus the
 * kill switch and LOSS_LIMIT driven by the mark price (admin API).
 */
import type { RiskCode } from '../../../src/bot/risk/decision';
import type { RiskLimits } from '../../../src/bot/risk/limits';
import type { Intent } from '../../../src/bot/strategy/intents';
import { World, ask, bid, controllable, until, venueTruth, type Account, type E2EBot } from './e2e';

interface CaseEnv {
  w: World;
  acct: Account;
  b: E2EBot;
  /** Sends intents from the strategy and waits until the bot is idle. */
  emit(intents: Intent[]): Promise<void>;
}

interface Case {
  code: RiskCode;
  risk: RiskLimits;
  /** Run before the intents (open a position, place an order, change the trading state). */
  setup?: (env: CaseEnv) => Promise<void>;
  /** Emitted in one tick, inside first: `inside` must all be sent, `outside` all denied. */
  intents: (env: CaseEnv) => { inside: Intent[]; outside: Intent[] };
}

/** What went over the wire for an intent: a batch-place order, or a batch-cancel reference. */
function wasSent(acct: Account, i: Intent): boolean {
  if (i.kind === 'place') {
    return acct.transport.placedOrders().some((o) => o.symbol === i.symbol && o.side === i.side && o.price === i.price && o.quantity === i.quantity);
  }
  if (i.kind === 'cancel') {
    return acct.transport.of('/batch-cancel').some((c) => ((c.body?.orders as Array<{ clientOrderId?: string }> | undefined) ?? []).some((r) => r.clientOrderId === i.clientOrderId));
  }
  if (i.kind === 'bracket') {
    return acct.transport.of('/place-strategy').some((c) => {
      const [entry, tp, sl] = (c.body?.subOrderList as Array<Record<string, unknown>> | undefined) ?? [];
      return entry?.side === i.side && entry.price === i.entryPrice && tp?.price === i.takeProfitPrice && sl?.stopPrice === i.stopLossPrice;
    });
  }
  throw new Error(`wasSent does not handle ${i.kind}`);
}

const market = (side: 'BUY' | 'SELL', quantity: string, symbol: string): Intent => ({ kind: 'place', symbol, side, type: 'MARKET', quantity });
const bracket = (side: 'BUY' | 'SELL', entryPrice: string, takeProfitPrice: string, stopLossPrice: string): Intent => ({ kind: 'bracket', symbol: 'BTCUSDT', side, quantity: '0.001', entryPrice, takeProfitPrice, stopLossPrice });

describe('e2e: risk checks deny what they should and nothing else', () => {
  let w: World;
  let other: Account;

  beforeAll(async () => {
    w = await World.start();
    other = await w.account('10000000');
  });

  afterAll(async () => {
    await w.stop();
  });

  /** A long BTC position of `qty` at 50000 for the bot: the other user rests an ask it takes. */
  async function openLong(env: CaseEnv, qty: string): Promise<void> {
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: qty });
    await env.emit([bid('50000', qty)]);
    await until(() => env.b.bot.cache.position('BTCUSDT')?.quantity === qty, `long ${qty}`);
    env.acct.transport.clear();
  }

  async function placeOne(env: CaseEnv): Promise<string> {
    await env.emit([bid('40000', '0.001')]);
    await until(() => env.b.bot.tracker.live('s').some((o) => o.state === 'NEW'), 'order acknowledged');
    env.acct.transport.clear();
    return env.b.bot.tracker.live('s')[0].clientOrderId;
  }

  let tracked = '';
  const cases: Case[] = [
    { code: 'OFF_GRID', risk: {}, intents: () => ({ inside: [bid('49000.1', '0.001')], outside: [bid('49000.05', '0.001')] }) },
    { code: 'OFF_GRID', risk: {}, intents: () => ({ inside: [bid('49000', '0.002')], outside: [bid('49000', '0.0025'), bid('49000', '0.0001')] }) },
    { code: 'UNKNOWN_SYMBOL', risk: {}, intents: () => ({ inside: [bid('2900', '0.01', 'ETHUSDT')], outside: [bid('1', '1', 'NOPEUSDT')] }) },
    // A bracket's exits: positive and on the tick (the venue took a zero stop-loss only to refuse
    // the OTOCO as 30005 `subOrderList[2]`), and beyond a LIMIT entry (the venue took the wrong side).
    {
      code: 'OFF_GRID',
      risk: {},
      intents: () => ({
        inside: [bracket('BUY', '49000', '49000.1', '48999.9'), bracket('SELL', '51000', '50999.9', '51000.1')],
        outside: [bracket('BUY', '49000', '50000', '0'), bracket('BUY', '49000', '50000', '-100'), bracket('BUY', '49000', '50000.05', '48000')],
      }),
    },
    {
      code: 'BRACKET_EXITS',
      risk: {},
      intents: () => ({
        inside: [bracket('BUY', '49000', '49000.1', '48999.9'), bracket('SELL', '51000', '50999.9', '51000.1')],
        outside: [bracket('BUY', '49000', '49000', '48000'), bracket('BUY', '49000', '50000', '49000'), bracket('SELL', '51000', '51000.1', '52000'), bracket('SELL', '51000', '50000', '50999.9')],
      }),
    },
    {
      code: 'UNKNOWN_ORDER',
      risk: {},
      setup: async (env) => {
        tracked = await placeOne(env);
      },
      intents: () => ({ inside: [{ kind: 'cancel', clientOrderId: tracked }], outside: [{ kind: 'cancel', clientOrderId: 's-notmine1' }] }),
    },
    // The venue's minimum notional (5 on both symbols), which it refuses as 30006: 5000 x 0.001 is 5;
    // a MARKET order is valued at mark (ETHUSDT 3000: 0.002 is 6, 0.001 is 3); reduce-only is not held to it.
    {
      code: 'MIN_NOTIONAL',
      risk: {},
      intents: () => ({
        inside: [bid('5000', '0.001'), market('BUY', '0.002', 'ETHUSDT'), { ...ask('4000', '0.001'), reduceOnly: true }, bracket('BUY', '5000', '5000.1', '4999.9')],
        outside: [bid('4999.9', '0.001'), market('BUY', '0.001', 'ETHUSDT'), bracket('BUY', '4999.9', '5000', '4999.8')],
      }),
    },
    // Mark is 50000: 5 % is 47500..52500 inclusive.
    { code: 'PRICE_BAND', risk: { priceBand: '0.05' }, intents: () => ({ inside: [bid('47500'), ask('52500')], outside: [bid('47499.9'), ask('52500.1')] }) },
    { code: 'MAX_ORDER_NOTIONAL', risk: { maxOrderNotional: '1000' }, intents: () => ({ inside: [bid('40000', '0.025')], outside: [bid('40000', '0.026')] }) },
    // Valued at mark 50000, counting same-side orders: 0.02 + 0.02 = 2000 passes; 0.001 more does not.
    { code: 'MAX_POSITION', risk: { maxPositionNotional: '2000' }, intents: () => ({ inside: [bid('45000', '0.02'), bid('45001', '0.02')], outside: [bid('45002', '0.001')] }) },
    // A 500 BTC position plus an ETH order of 500 (at its price) is exactly 1000.
    {
      code: 'MAX_EXPOSURE',
      risk: { maxTotalExposure: '1000' },
      setup: (env) => openLong(env, '0.01'),
      intents: () => ({ inside: [bid('2500', '0.2', 'ETHUSDT')], outside: [bid('2500', '0.201', 'ETHUSDT')] }),
    },
    { code: 'MAX_OPEN_ORDERS', risk: { maxOpenOrders: 3 }, intents: () => ({ inside: [bid('45000'), bid('45001'), bid('45002')], outside: [bid('45003')] }) },
    { code: 'RATE_THROTTLED', risk: { maxOrdersPerSecond: 3 }, intents: () => ({ inside: [bid('45000'), bid('45001'), bid('45002')], outside: [bid('45003')] }) },
    // REDUCING lets through what lowers exposure: a sell no larger than the long.
    {
      code: 'STATE_REDUCING',
      risk: {},
      setup: async (env) => {
        await openLong(env, '0.01');
        env.b.bot.risk.setState('REDUCING', 'operator');
      },
      intents: () => ({ inside: [ask('51000', '0.01'), { ...ask('51001', '0.01'), reduceOnly: true }], outside: [ask('51002', '0.011'), bid('40000', '0.001')] }),
    },
    {
      code: 'STATE_HALTED',
      risk: {},
      setup: async (env) => {
        tracked = await placeOne(env);
        env.b.bot.risk.setState('HALTED', 'operator');
      },
      intents: () => ({ inside: [{ kind: 'cancel', clientOrderId: tracked }], outside: [bid('40000', '0.002'), { ...ask('60000', '0.001'), reduceOnly: true }] }),
    },
  ];

  it.each(cases.map((c, i) => [`${c.code} #${i}`, c] as const))('%s: just inside passes, just outside is denied and not sent', async (_name, c) => {
    const acct = await w.account();
    const s = controllable(['BTCUSDT', 'ETHUSDT']);
    const b = await w.bot(acct.client, [{ id: 's', definition: s.definition, params: {} }], c.risk);
    const env: CaseEnv = {
      w,
      acct,
      b,
      emit: async (intents) => {
        s.ctx().emit(intents);
        await b.bot.idle();
      },
    };
    await c.setup?.(env);
    acct.transport.clear();
    const before = b.denials().length;
    const { inside, outside } = c.intents(env);
    await env.emit([...inside, ...outside]);
    const denials = b.denials().slice(before);
    expect(denials.map((d) => d.code)).toEqual(outside.map(() => c.code));
    expect(denials.map((d) => d.intent)).toEqual(outside);
    for (const i of inside) expect({ intent: i, sent: wasSent(acct, i) }).toEqual({ intent: i, sent: true });
    for (const i of outside) expect({ intent: i, sent: wasSent(acct, i) }).toEqual({ intent: i, sent: false });
  });

  it('LOSS_LIMIT: an unrealized loss from a mark move below the limit keeps trading; past it, only reducing intents pass', async () => {
    const acct = await w.account();
    const s = controllable(['BTCUSDT']);
    const b = await w.bot(acct.client, [{ id: 's', definition: s.definition, params: {} }], { maxDailyLoss: '100' });
    const env: CaseEnv = { w, acct, b, emit: async (i) => (s.ctx().emit(i), await b.bot.idle()) };
    await openLong(env, '0.1');
    // 0.1 long from 50000: mark 49100 is a 90 loss (+ at most a few USDT of fees) -> still ACTIVE.
    await w.setMark('BTCUSDT', '49100');
    await until(() => b.bot.cache.mark('BTCUSDT')?.markPrice === '49100', 'mark 49100 seen');
    await env.emit([bid('45000', '0.001')]);
    expect(b.bot.risk.state).toBe('ACTIVE');
    expect(b.denials()).toEqual([]);
    expect(wasSent(acct, bid('45000', '0.001'))).toBe(true);
    // Mark 48990: a 101 loss -> REDUCING because of the loss limit.
    await w.setMark('BTCUSDT', '48990');
    await until(() => b.bot.risk.state === 'REDUCING', 'REDUCING after the mark move');
    expect(b.events.find((e) => e.type === 'riskState')).toMatchObject({ state: 'REDUCING', reason: expect.stringMatching(/^LOSS_LIMIT/) as unknown });
    acct.transport.clear();
    const close = ask('49500', '0.1');
    await env.emit([bid('45000', '0.002'), close]);
    expect(b.denials().map((d) => d.code)).toEqual(['LOSS_LIMIT']);
    expect(wasSent(acct, bid('45000', '0.002'))).toBe(false);
    expect(wasSent(acct, close)).toBe(true);
    // Leave the shared exchange as the other tests expect it: mark back at 50000, nothing resting.
    await b.bot.kill('cleanup');
    await w.setMark('BTCUSDT', '50000');
  });

  it('kill switch: HALTED, every order and condition order of the account cancelled on the venue, later places denied', async () => {
    await w.setMark('BTCUSDT', '50000');
    const acct = await w.account();
    const s = controllable(['BTCUSDT', 'ETHUSDT'], () => [
      bid('45000'),
      ask('55000'),
      bid('2800', '0.1', 'ETHUSDT'),
      { kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' },
    ]);
    const b = await w.bot(acct.client, [{ id: 's', definition: s.definition, params: {} }]);
    // The bracket's entry fills, so its take-profit order and stop-loss condition work on the venue.
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    await until(async () => (await acct.client.orders.getCurrentConditionOrders({})).list.length === 1, 'stop-loss condition exists');
    // Orders of the account that are not the bot's: the kill switch cancels them too.
    await acct.client.orders.placeOrder({ symbol: 'ETHUSDT', type: 'LIMIT', side: 'SELL', price: '3500', quantity: '0.1', clientOrderId: 'manual1' });
    await acct.client.orders.placeConditionOrder({ symbol: 'ETHUSDT', type: 'STOP_MARKET', side: 'BUY', quantity: '0.1', stopPrice: '3300' });
    expect((await venueTruth(acct.client)).open).toHaveLength(5);

    await b.bot.kill('test');
    expect(b.bot.risk.state).toBe('HALTED');
    await until(async () => (await venueTruth(acct.client)).open.length === 0, 'no open orders');
    await until(async () => (await acct.client.orders.getCurrentConditionOrders({})).list.length === 0, 'no condition orders');
    await until(() => b.bot.tracker.live().length === 0, 'tracker empty');

    acct.transport.clear();
    await (s.ctx().emit([bid('45000')]), b.bot.idle());
    expect(b.denials().map((d) => d.code)).toEqual(['STATE_HALTED']);
    expect(acct.transport.of('/batch-place')).toHaveLength(0);
  });
});
