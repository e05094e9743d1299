/**
 * Property-based tests of the engine (DESIGN.md "Tests"): random command sequences from users
 * a, b, c (one-way) and h (hedge) on BTCUSDT and ETHUSDT, with the invariants checked after every
 * command and again after flattening every account at the end of the run.
 *
 * Reproduce a run with FC_SEED=<seed> (and the path fast-check prints). A failure message carries
 * the concrete engine calls of the (shrunk) failing run, ready to paste into a unit test.
 */
import fc from 'fast-check';
import { Dec } from '../../../src/core/decimal';
import { VenueError } from '../../../src/core/errors';
import type { Engine } from '../../../src/exchange/engine/engine';
import { INSURANCE_ACCOUNT } from '../../../src/exchange/engine/engine';
import type { EngineEvent } from '../../../src/exchange/engine/events';
import type { PlaceOrderInput } from '../../../src/exchange/engine/inputs';
import { cmds, execute, printCall, resolve, SYMBOLS, USERS, HEDGE_USERS, type Call, type Cmd, type Known } from './arbitraries';
import { world, type World } from './helpers';

const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : 424242;
const NUM_RUNS = process.env.FC_RUNS !== undefined ? Number(process.env.FC_RUNS) : 100;
const MAX_COMMANDS = 100;
/** Smaller balances than the default so that leverage and mark jumps reach liquidation. */
const BALANCE = '10000';

const params = (numRuns = NUM_RUNS): fc.Parameters<[Cmd[]]> => ({ seed: SEED, numRuns, endOnFailure: false });

type Check = 'book' | 'qty' | 'money' | 'frozen' | 'final' | 'atomic' | 'fills' | 'insuranceSilent';
type Audit = ReturnType<Engine['audit']>;

interface RunResult {
  events: EngineEvent[];
  audit: Audit;
  calls: Call[];
}

const ORDER_FINAL = new Set(['FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);
const CONDITION_FINAL = new Set(['CANCELED', 'EXPIRED', 'REJECTED', 'TRIGGERED']);
const STRATEGY_FINAL = new Set(['ALL_DONE', 'CANCELLED']);

/** A cheap view of everything a command could change, for the "a refused command changes nothing" check. */
function fingerprint(e: Engine): string {
  const parts: unknown[] = [e.audit()];
  for (const s of SYMBOLS) parts.push(e.depth(s, 1000), e.marketState(s));
  for (const u of USERS) {
    parts.push(
      e.asset(u),
      e.positions(u),
      e.currentOrders(u, {}),
      e.currentConditions(u, undefined),
      e.orderHistory(u, { pageSize: 1 }).total,
      e.conditionHistory(u, { pageSize: 1 }).total,
      e.tradeHistory(u, { pageSize: 1 }).total,
      e.accountChanges(u, { pageSize: 1 }).total,
      e.positionHistory(u, { pageSize: 1 }).total,
      SYMBOLS.map((s) => e.positionSettings(u, s)),
    );
  }
  return JSON.stringify(parts);
}

/** Runs a command list (and the final flattening) on a fresh world, checking `checks` after every step. */
function runScenario(commands: Cmd[], checks: ReadonlySet<Check>, balance = BALANCE): RunResult {
  const w: World = world({ balance });
  const engine = w.engine;
  const known: Known = { orders: new Map(), conditions: new Map() };
  const calls: Call[] = [];
  const all: EngineEvent[] = [];

  const orderState = new Map<string, { status: string; exec: Dec }>();
  const conditionState = new Map<string, string>();
  const strategyState = new Map<string, string>();
  const fillSum = new Map<string, Dec>();
  const lastExec = new Map<string, { userId: string; symbol: string; exec: string }>();
  const tradeParts = new Map<string, Array<{ userId: string; role: string; qty: string; price: string; clientOrderId: string }>>();
  const publicTrades = new Map<string, { qty: string; price: string }>();

  function fail(property: string, msg: string): never {
    throw new Error(`${property}: ${msg}\nReproduction (world({ balance: '${balance}' }) from helpers.ts):\n${calls.map(printCall).join('\n')}`);
  }

  const absorb = (evs: EngineEvent[]): void => {
    for (const e of evs) {
      all.push(e);
      if (checks.has('insuranceSilent') && 'userId' in e && e.userId === INSURANCE_ACCOUNT) {
        fail('P7b insurance emits no user events', `event ${JSON.stringify(e)}`);
      }
      if (e.kind === 'order') {
        const r = e.order;
        if (e.userId !== INSURANCE_ACCOUNT) {
          let bySym = known.orders.get(e.userId);
          if (!bySym) known.orders.set(e.userId, (bySym = new Map()));
          let list = bySym.get(r.symbol);
          if (!list) bySym.set(r.symbol, (list = []));
          if (!list.some((o) => o.id === r.orderId)) list.push({ id: r.orderId, clientOrderId: r.clientOrderId });
        }
        const exec = new Dec(r.executedQty);
        const prev = orderState.get(r.orderId);
        if (checks.has('final') && prev) {
          if (ORDER_FINAL.has(prev.status) && r.status !== prev.status) {
            fail('P4 final states', `order ${r.orderId} went from ${prev.status} to ${r.status} (${e.executionType})`);
          }
          if (exec.lt(prev.exec)) fail('P4 final states', `order ${r.orderId} executedQty went down from ${prev.exec.toFixed()} to ${r.executedQty}`);
        }
        orderState.set(r.orderId, { status: r.status, exec });
        lastExec.set(r.orderId, { userId: e.userId, symbol: r.symbol, exec: r.executedQty });
        if (e.executionType === 'TRADE') {
          if (!e.fill) fail('P7 fills', `TRADE event without fill for order ${r.orderId}`);
          const f = e.fill;
          fillSum.set(r.orderId, (fillSum.get(r.orderId) ?? new Dec(0)).plus(f.lastFilledQty));
          const parts = tradeParts.get(f.tradeId) ?? [];
          parts.push({ userId: e.userId, role: f.roleType, qty: f.lastFilledQty, price: f.lastFilledPrice, clientOrderId: r.clientOrderId });
          tradeParts.set(f.tradeId, parts);
        }
      } else if (e.kind === 'condition') {
        const r = e.record;
        let bySym = known.conditions.get(e.userId);
        if (!bySym) known.conditions.set(e.userId, (bySym = new Map()));
        let list = bySym.get(r.symbol);
        if (!list) bySym.set(r.symbol, (list = []));
        if (!list.includes(r.conditionId)) list.push(r.conditionId);
        const prev = conditionState.get(r.conditionId);
        if (checks.has('final') && prev !== undefined && CONDITION_FINAL.has(prev) && prev !== r.conditionStatus) {
          fail('P4 final states', `condition ${r.conditionId} went from ${prev} to ${r.conditionStatus}`);
        }
        conditionState.set(r.conditionId, r.conditionStatus);
      } else if (e.kind === 'strategy') {
        const r = e.record;
        const prev = strategyState.get(r.strategyId);
        if (checks.has('final') && prev !== undefined && STRATEGY_FINAL.has(prev) && prev !== r.strategyStatus) {
          fail('P4 final states', `strategy ${r.strategyId} went from ${prev} to ${r.strategyStatus}`);
        }
        strategyState.set(r.strategyId, r.strategyStatus);
      } else if (e.kind === 'trade') {
        publicTrades.set(e.tradeId, { qty: e.quantity, price: e.price });
      }
    }
  };

  const checkState = (): void => {
    if (checks.has('book')) {
      for (const s of SYMBOLS) {
        const m = engine.marketState(s);
        const bid = new Dec(m.bestBid);
        const ask = new Dec(m.bestAsk);
        if (!bid.isZero() && !ask.isZero() && !bid.lt(ask)) fail('P1 book not crossed', `${s} bestBid ${m.bestBid} >= bestAsk ${m.bestAsk}`);
      }
    }
    if (checks.has('qty') || checks.has('money') || checks.has('frozen')) {
      const a = engine.audit();
      if (checks.has('qty')) {
        for (const [s, n] of Object.entries(a.netQtyBySymbol)) if (n !== 0) fail('P2 quantity conserved', `net quantity of ${s} is ${n} steps`);
      }
      if (checks.has('money')) {
        const lhs = new Dec(a.walletsMinusCost).plus(a.fees);
        if (!lhs.eq(a.deposits)) fail('P3 money conserved', `walletsMinusCost ${a.walletsMinusCost} + fees ${a.fees} = ${lhs.toFixed()} != deposits ${a.deposits}`);
      }
      if (checks.has('frozen') && a.frozenMismatch.length > 0) {
        fail('P3b frozen margin', `the account's frozen margin differs from the sum over its open orders for ${a.frozenMismatch.join(', ')}`);
      }
    }
  };

  const step = (call: Call): void => {
    calls.push(call);
    const before = checks.has('atomic') ? fingerprint(engine) : '';
    let refused = false;
    try {
      execute(engine, (ms) => w.clock.advance(ms), call);
    } catch (e) {
      if (!(e instanceof VenueError)) fail('no exception other than VenueError', e instanceof Error ? (e.stack ?? e.message) : String(e));
      refused = true;
    }
    const evs = w.drain();
    if (refused && checks.has('atomic')) {
      if (evs.length > 0) fail('P5 refused command changes nothing', `it emitted ${evs.length} events: ${JSON.stringify(evs.slice(0, 3))}`);
      const after = fingerprint(engine);
      if (after !== before) fail('P5 refused command changes nothing', `state changed:\nbefore ${before}\nafter  ${after}`);
    }
    absorb(evs);
    checkState();
  };

  for (const c of commands) step(resolve(engine, known, c));
  flatten(engine, step);

  if (checks.has('money')) {
    // Flat accounts: the cost term is gone and wallets alone (with the insurance fund) balance deposits.
    const a = engine.audit();
    const usersFlat = USERS.every((u) => engine.positions(u).length === 0);
    if (usersFlat) {
      let wallets = new Dec(0);
      for (const u of USERS) wallets = wallets.plus(engine.asset(u).walletBalance);
      const lhs = wallets.plus(a.insurance).plus(a.fees);
      if (!lhs.eq(a.deposits)) fail('P3 money conserved', `flat: wallets ${wallets.toFixed()} + insurance ${a.insurance} + fees ${a.fees} = ${lhs.toFixed()} != deposits ${a.deposits}`);
    }
  }

  if (checks.has('fills')) {
    for (const [orderId, last] of lastExec) {
      if (last.userId === INSURANCE_ACCOUNT) continue;
      const sum = fillSum.get(orderId) ?? new Dec(0);
      if (!sum.eq(last.exec)) fail('P7 fills', `order ${orderId}: fills sum to ${sum.toFixed()} but the last event says executedQty ${last.exec}`);
      const q = engine.queryOrder(last.userId, { symbol: last.symbol, orderId });
      if (!sum.eq(q.executedQty)) fail('P7 fills', `order ${orderId}: fills sum to ${sum.toFixed()} but queryOrder says executedQty ${q.executedQty}`);
    }
    for (const tradeId of tradeParts.keys()) {
      if (!publicTrades.has(tradeId)) fail('P7 fills', `tradeId ${tradeId} has fills but no public trade event`);
    }
    for (const [tradeId, t] of publicTrades) {
      const parts = tradeParts.get(tradeId) ?? [];
      const userParts = parts.filter((p) => p.userId !== INSURANCE_ACCOUNT);
      const withInsurance = userParts.some((p) => p.clientOrderId.startsWith('liq-'));
      const expected = withInsurance ? 1 : 2;
      if (userParts.length !== expected) fail('P7 fills', `tradeId ${tradeId} appears ${userParts.length} times in user events, expected ${expected}: ${JSON.stringify(parts)}`);
      if (expected === 2 && new Set(userParts.map((p) => p.role)).size !== 2) fail('P7 fills', `tradeId ${tradeId} lacks a maker or a taker: ${JSON.stringify(parts)}`);
      for (const p of userParts) {
        if (!new Dec(p.qty).eq(t.qty) || !new Dec(p.price).eq(t.price)) fail('P7 fills', `tradeId ${tradeId}: fill ${p.qty}@${p.price} differs from trade ${t.qty}@${t.price}`);
      }
    }
  }

  return { events: all, audit: engine.audit(), calls };
}

/**
 * Ends a run: cancels every order and condition, then closes positions pairwise between users
 * (a resting reduce-only SELL at mark for a long, taken by a reduce-only MARKET BUY of a short).
 * What is left afterwards is the mirror of a position the insurance fund took over.
 */
function flatten(engine: Engine, step: (c: Call) => void): void {
  for (let pass = 0; pass < 2; pass++) {
    for (const u of USERS) {
      step({ m: 'cancelAll', u, input: { cancelType: 0 } });
      step({ m: 'cancelAll', u, input: { cancelType: 2 } });
    }
  }
  for (const s of SYMBOLS) {
    const spec = engine.symbolSpecs().find((x) => x.name === s);
    if (!spec) throw new Error(`no spec for ${s}`);
    for (let guard = 0; guard < 20; guard++) {
      const longs: Array<{ u: string; steps: number }> = [];
      const shorts: Array<{ u: string; steps: number }> = [];
      for (const u of USERS) {
        for (const p of engine.positions(u, s)) {
          const n = spec.step.toUnits(p.quantity.replace('-', '')) as number;
          const isLong = HEDGE_USERS.has(u) ? p.positionSide === 'LONG' : !p.quantity.startsWith('-');
          (isLong ? longs : shorts).push({ u, steps: n });
        }
      }
      if (longs.length === 0 || shorts.length === 0) break;
      const long = longs[0];
      const short = shorts.find((x) => x.u !== long.u) ?? shorts[0];
      const n = Math.min(long.steps, short.steps, spec.maxQtySteps);
      const quantity = spec.step.fromUnits(n);
      const maker: PlaceOrderInput = { symbol: s, type: 'LIMIT', side: 'SELL', price: engine.marketState(s).markPrice, quantity, reduceOnly: true };
      if (HEDGE_USERS.has(long.u)) maker.positionSide = 'LONG';
      const taker: PlaceOrderInput = { symbol: s, type: 'MARKET', side: 'BUY', quantity, reduceOnly: true };
      if (HEDGE_USERS.has(short.u)) taker.positionSide = 'SHORT';
      step({ m: 'placeOrder', u: long.u, input: maker });
      step({ m: 'placeOrder', u: short.u, input: taker });
      step({ m: 'cancelAll', u: long.u, input: { symbol: s, cancelType: 0 } });
    }
  }
}

const propertyOf = (checks: Check[]): fc.IPropertyWithHooks<[Cmd[]]> =>
  fc.property(cmds(MAX_COMMANDS), (commands) => {
    runScenario(commands, new Set(checks));
  });

describe('engine properties (fast-check, random command sequences)', () => {
  test('P1: the book is never crossed', () => {
    fc.assert(propertyOf(['book']), params());
  });

  test('P2: quantity is conserved (net position per symbol is zero)', () => {
    fc.assert(propertyOf(['qty']), params());
  });

  test('P3: money is conserved exactly (walletsMinusCost + fees = deposits; flat wallets + insurance + fees = deposits)', () => {
    fc.assert(propertyOf(['money']), params());
  });

  // KNOWN ENGINE BUG (fails against engine.ts of ae6ef09 and its uncommitted successor): frozenPerStep = required / qty is an inexact
  // division when the leverage has a prime factor other than 2 and 5, and the account's frozen
  // total, kept by adding and subtracting per-order deltas at 60 significant digits, drifts from
  // the sum over open orders; it stays non-zero after every order is gone. Minimal reproduction:
  //   const { engine } = world();
  //   engine.setLeverage('a', { symbol: 'BTCUSDT', leverage: 11 });
  //   const o1 = engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49999', quantity: '0.003' });
  //   engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49999', quantity: '0.001' });
  //   engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: o1.orderId });
  //   engine.audit().frozenMismatch; // ['a'], and still ['a'] after engine.cancelAll('a', {})
  // The property is left as it is; it turns green when the engine keeps frozen margin exact.
  test('P3b: frozen margin of every account equals the sum over its open orders (audit().frozenMismatch is empty)', () => {
    fc.assert(propertyOf(['frozen']), params());
  });

  // Near the bounds of integer money: balances far past 2^53 money units (10^15 USDT and one
  // unit), the smallest steps and leverage up to 125 come from the command arbitraries.
  test('P3c: money and frozen margin stay exact with the largest balances (10^15 USDT + 0.00000001)', () => {
    fc.assert(
      fc.property(cmds(MAX_COMMANDS), (commands) => {
        runScenario(commands, new Set<Check>(['money', 'frozen', 'qty']), '1000000000000000.00000001');
      }),
      params(Math.ceil(NUM_RUNS / 2)),
    );
  });

  test('P4: no order, condition or strategy leaves a final state; executedQty never decreases', () => {
    fc.assert(propertyOf(['final']), params());
  });

  test('P5: a command refused with a VenueError changes nothing and emits nothing', () => {
    fc.assert(propertyOf(['atomic']), params(Math.ceil(NUM_RUNS / 2)));
  });

  test('P6: the same commands on two fresh worlds give byte-identical events and audit', () => {
    fc.assert(
      fc.property(cmds(MAX_COMMANDS), (commands) => {
        const r1 = runScenario(commands, new Set());
        const r2 = runScenario(commands, new Set());
        expect(JSON.stringify(r2.events)).toBe(JSON.stringify(r1.events));
        expect(JSON.stringify(r2.audit)).toBe(JSON.stringify(r1.audit));
      }),
      params(Math.ceil(NUM_RUNS / 2)),
    );
  });

  test('P7: fills add up to executedQty; each trade has one maker and one taker fill', () => {
    fc.assert(propertyOf(['fills']), params());
  });

  // KNOWN ENGINE BUG (fails against engine.ts of ae6ef09 and its uncommitted successor): when the insurance fund takes over a position
  // (Engine.insuranceTakeover), applyFill emits a TRADE order event for the insurance account's own
  // order (userId 'insurance', clientOrderId 'liq-N', roleType maker), though the insurance account
  // is otherwise invisible (no account events, no trade records). Minimal reproduction:
  //   const w = world({ balance: '10000' });
  //   w.engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.662' });
  //   w.engine.placeOrder('c', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.662' });
  //   w.drain();
  //   w.engine.setMarkPrice('BTCUSDT', '70000'); // c is liquidated, the book is empty
  //   w.drain().filter((e) => 'userId' in e && e.userId === 'insurance'); // one 'order' TRADE event
  // P7 above already counts insurance trades as one user-side fill, so it does not depend on this.
  test('P7b: the insurance account emits no user events', () => {
    fc.assert(propertyOf(['insuranceSilent']), params());
  });

  test('the generator reaches trades, liquidations, triggers and strategies', () => {
    // Guards the properties against a generator that never gets past validation.
    const seen = { trade: 0, liquidation: 0, triggered: 0, strategy: 0, calls: 0 };
    fc.assert(
      fc.property(cmds(MAX_COMMANDS), (commands) => {
        const r = runScenario(commands, new Set());
        seen.calls += r.calls.length;
        for (const e of r.events) {
          if (e.kind === 'trade') seen.trade++;
          if (e.kind === 'liquidation') seen.liquidation++;
          if (e.kind === 'condition' && e.record.conditionStatus === 'TRIGGERED') seen.triggered++;
          if (e.kind === 'strategy' && e.record.strategyStatus === 'ALL_DONE') seen.strategy++;
        }
      }),
      params(),
    );
    expect(seen.trade).toBeGreaterThan(0);
    expect(seen.liquidation).toBeGreaterThan(0);
    expect(seen.triggered).toBeGreaterThan(0);
    expect(seen.strategy).toBeGreaterThan(0);
  });
});
