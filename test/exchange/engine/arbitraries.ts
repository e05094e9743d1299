/**
 * fast-check generators of engine command sequences for the property tests.
 *
 * Commands are generated abstractly (prices as offsets from the mark price at the time the command
 * runs, orders to cancel or amend as an index into the orders the user has placed so far) and
 * resolved into concrete engine calls by `resolve()` against the live engine. Resolution is a pure
 * function of the command and the engine state, so the same command list always yields the same
 * calls, and a shrunk list still makes sense.
 */
import fc from 'fast-check';
import { Dec } from '../../../src/core/decimal';
import type {
  CancelType,
  ConditionTimeInForce,
  ConditionType,
  MarginModeCode,
  OrderType,
  PositionSide,
  PriceType,
  Side,
  StrategyType,
  TimeInForce,
  WorkingType,
} from '../../../src/core/enums';
import type { Engine } from '../../../src/exchange/engine/engine';
import type {
  CancelAllInput,
  MoveOrderInput,
  OrderRef,
  PlaceConditionInput,
  PlaceOrderInput,
  PlaceStrategyInput,
  SetLeverageInput,
  SetMarginModeInput,
  StrategySubOrderInput,
} from '../../../src/exchange/engine/inputs';
import type { SymbolSpec } from '../../../src/exchange/engine/symbols';

export const USERS = ['a', 'b', 'c', 'h'] as const;
export type User = (typeof USERS)[number];
export const HEDGE_USERS: ReadonlySet<string> = new Set(['h']);
export const SYMBOLS = ['BTCUSDT', 'ETHUSDT'] as const;
export type Sym = (typeof SYMBOLS)[number];
/** Mark prices the default symbols start at. */
export const START_PRICE: Record<Sym, string> = { BTCUSDT: '50000', ETHUSDT: '3000' };

/** A price: `near` in units of 10 ticks from the mark, `bp` in basis points from the mark, or a bad one. */
export type Px = { k: 'near'; n: number } | { k: 'bp'; n: number } | { k: 'offgrid' } | { k: 'zero' };
/** A quantity: `steps` of the step grid, or a string that is off-grid, zero or out of range. */
export type Qty = { k: 'steps'; n: number } | { k: 'raw'; s: string };
/** `auto`: BOTH/absent for one-way users, LONG or SHORT (opening side, or closing with `flip`) for hedge users; `wrong`: the mode mismatch. */
export type PsSpec = { k: 'auto'; flip: boolean } | { k: 'wrong' };

export interface OrderSpec {
  sym: Sym;
  type: OrderType;
  side: Side;
  ps: PsSpec;
  px: Px;
  /** Give a price to a MARKET order (refused). */
  marketPrice: boolean;
  qty: Qty;
  tif?: TimeInForce;
  makerOnly?: boolean;
  reduceOnly?: boolean;
  closePosition?: boolean;
  /** Keep the quantity even with closePosition (refused). */
  closeWithQty: boolean;
  priceType?: PriceType;
  clientOrderId?: string;
}

export interface CondSpec {
  sym: Sym;
  type: ConditionType;
  side: Side;
  ps: PsSpec;
  stop: Px;
  px: Px;
  qty: Qty;
  closePosition?: boolean;
  reduceOnly?: boolean;
  tif?: ConditionTimeInForce;
  workingType?: WorkingType;
  priceProtect?: boolean;
  callbackRate: string;
  activate?: Px;
  /** Give the fields that do not belong to the type (refused). */
  malformed: boolean;
  clientOrderId?: string;
}

export interface SubSpec {
  type: OrderType | ConditionType;
  /** Opposite side of sub-order 1 (the usual take-profit / stop-loss shape). */
  opposite: boolean;
  px: Px;
  stop: Px;
  qty: Qty;
  reduceOnly?: boolean;
  closePosition?: boolean;
  tif?: ConditionTimeInForce;
  workingType?: WorkingType;
  callbackRate: string;
}

export interface StratSpec {
  sym: Sym;
  type: StrategyType;
  side: Side;
  ps: PsSpec;
  subs: SubSpec[];
  /** List the sub-orders in reverse (strategySubId still numbers them). */
  reversed: boolean;
}

export type Cmd =
  | { k: 'place'; u: User; o: OrderSpec }
  | { k: 'batchPlace'; u: User; os: OrderSpec[] }
  | { k: 'cancel'; u: User; sym: Sym; pick: number; byClient: boolean }
  | { k: 'batchCancel'; u: User; sym: Sym; picks: number[] }
  | { k: 'move'; u: User; sym: Sym; pick: number; px: Px; qty: Qty }
  | { k: 'cancelAll'; u: User; sym: Sym | undefined; cancelType: CancelType }
  | { k: 'condition'; u: User; c: CondSpec }
  | { k: 'cancelCondition'; u: User; sym: Sym; pick: number }
  | { k: 'strategy'; u: User; s: StratSpec }
  | { k: 'leverage'; u: User; sym: Sym; leverage: number }
  | { k: 'marginMode'; u: User; sym: Sym; mode: MarginModeCode }
  | { k: 'mark'; sym: Sym; bp: number }
  | { k: 'funding'; sym: Sym; rate: string | undefined }
  | { k: 'advance'; ms: number };

// ------------------------------------------------------------------------------ generators

const user = fc.constantFrom<User>(...USERS);
const sym = fc.constantFrom<Sym>(...SYMBOLS);
const side = fc.constantFrom<Side>('BUY', 'SELL');
const maybe = <T>(arb: fc.Arbitrary<T>, freq = 1): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 10 }, { arbitrary: arb, weight: Math.max(1, Math.round(freq * 5)) });

const ps: fc.Arbitrary<PsSpec> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('auto' as const), flip: fc.boolean() }), weight: 12 },
  { arbitrary: fc.constant({ k: 'wrong' as const }), weight: 1 },
);

/** Near the mark, so that orders cross and rest around the touch. */
const nearPx: fc.Arbitrary<Px> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('near' as const), n: fc.integer({ min: -12, max: 12 }) }), weight: 20 },
  { arbitrary: fc.record({ k: fc.constant('bp' as const), n: fc.integer({ min: -300, max: 300 }) }), weight: 2 },
  { arbitrary: fc.constant({ k: 'offgrid' as const }), weight: 1 },
  { arbitrary: fc.constant({ k: 'zero' as const }), weight: 1 },
);

/** Trigger prices: a few percent from the mark, so that mark moves fire them. */
const stopPx: fc.Arbitrary<Px> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('bp' as const), n: fc.integer({ min: -500, max: 500 }) }), weight: 12 },
  { arbitrary: fc.record({ k: fc.constant('near' as const), n: fc.integer({ min: -12, max: 12 }) }), weight: 4 },
  { arbitrary: fc.constant({ k: 'offgrid' as const }), weight: 1 },
);

const qty: fc.Arbitrary<Qty> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('steps' as const), n: fc.integer({ min: 1, max: 200 }) }), weight: 10 },
  { arbitrary: fc.record({ k: fc.constant('steps' as const), n: fc.integer({ min: 200, max: 3000 }) }), weight: 5 },
  { arbitrary: fc.record({ k: fc.constant('steps' as const), n: fc.integer({ min: 3000, max: 40000 }) }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('raw' as const), s: fc.constantFrom('0.0005', '0.0001', '0', '1.0001', '10000.001') }), weight: 1 },
);

/** A small pool so that duplicates happen. */
const clientId = maybe(fc.constantFrom('x1', 'x2', 'x3'), 1);

export const orderSpec: fc.Arbitrary<OrderSpec> = fc.record(
  {
    sym,
    type: fc.constantFrom<OrderType>('LIMIT', 'LIMIT', 'MARKET'),
    side,
    ps,
    px: nearPx,
    marketPrice: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
    qty,
    tif: maybe(fc.constantFrom<TimeInForce>('GTC', 'IOC', 'FOK')),
    makerOnly: maybe(fc.boolean()),
    reduceOnly: maybe(fc.boolean()),
    closePosition: maybe(fc.constant(true), 0.1),
    closeWithQty: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    priceType: maybe(fc.constantFrom<PriceType>(0, 1, 2, 3, 4)),
    clientOrderId: clientId,
  },
  { requiredKeys: ['sym', 'type', 'side', 'ps', 'px', 'marketPrice', 'qty', 'closeWithQty'] },
);

const conditionType = fc.constantFrom<ConditionType>('STOP_MARKET', 'TAKE_PROFIT_MARKET', 'STOP_LIMIT', 'TAKE_PROFIT_LIMIT', 'TRAILING_STOP');
const callbackRate = fc.constantFrom('0.5', '1', '2', '5', '0.05', '11');
const workingType = maybe(fc.constantFrom<WorkingType>('MARK_PRICE', 'CONTRACT_PRICE'), 3);

export const condSpec: fc.Arbitrary<CondSpec> = fc.record(
  {
    sym,
    type: conditionType,
    side,
    ps,
    stop: stopPx,
    px: nearPx,
    qty,
    closePosition: maybe(fc.constant(true), 0.5),
    reduceOnly: maybe(fc.boolean()),
    tif: maybe(fc.constantFrom<ConditionTimeInForce>('GTC', 'IOC', 'FOK', 'GTE_GTC')),
    workingType,
    priceProtect: maybe(fc.boolean(), 0.5),
    callbackRate,
    activate: maybe(stopPx),
    malformed: fc.integer({ min: 0, max: 14 }).map((n) => n === 0),
    clientOrderId: clientId,
  },
  { requiredKeys: ['sym', 'type', 'side', 'ps', 'stop', 'px', 'qty', 'callbackRate', 'malformed'] },
);

const subSpec = (types: fc.Arbitrary<OrderType | ConditionType>): fc.Arbitrary<SubSpec> =>
  fc.record(
    {
      type: types,
      opposite: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0),
      px: nearPx,
      stop: stopPx,
      qty,
      reduceOnly: maybe(fc.boolean()),
      closePosition: maybe(fc.constant(true), 0.3),
      tif: maybe(fc.constantFrom<ConditionTimeInForce>('GTC', 'IOC', 'GTE_GTC')),
      workingType,
      callbackRate,
    },
    { requiredKeys: ['type', 'opposite', 'px', 'stop', 'qty', 'callbackRate'] },
  );

const entryType = fc.constantFrom<OrderType | ConditionType>('LIMIT', 'LIMIT', 'LIMIT', 'MARKET', 'STOP_MARKET');
const tpType = fc.constantFrom<OrderType | ConditionType>('TAKE_PROFIT_MARKET', 'TAKE_PROFIT_LIMIT', 'LIMIT', 'TRAILING_STOP');
const slType = fc.constantFrom<OrderType | ConditionType>('STOP_MARKET', 'STOP_LIMIT', 'TRAILING_STOP');

export const stratSpec: fc.Arbitrary<StratSpec> = fc.constantFrom<StrategyType>('OTO', 'OCO', 'OTOCO').chain((type) =>
  fc.record({
    sym,
    type: fc.constant(type),
    side,
    ps,
    subs:
      type === 'OTOCO'
        ? fc.tuple(subSpec(entryType), subSpec(tpType), subSpec(slType)).map((t): SubSpec[] => [...t])
        : type === 'OTO'
          ? fc.tuple(subSpec(entryType), subSpec(fc.oneof(tpType, slType))).map((t): SubSpec[] => [...t])
          : fc.tuple(subSpec(fc.oneof(tpType, entryType)), subSpec(slType)).map((t): SubSpec[] => [...t]),
    reversed: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  }),
);

/** Mark price levels in basis points from the start price: mostly small moves, sometimes big jumps. */
const markBp = fc.oneof(
  { arbitrary: fc.integer({ min: -400, max: 400 }), weight: 8 },
  { arbitrary: fc.integer({ min: -4000, max: 4000 }), weight: 2 },
);

/** Resting liquidity: GTC limit orders on both sides a little away from the mark, as one batch. */
const ladder: fc.Arbitrary<OrderSpec[]> = fc
  .record({
    sym,
    ps: fc.record({ k: fc.constant('auto' as const), flip: fc.constant(false) }),
    levels: fc.array(fc.tuple(side, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 5, max: 3000 })), { minLength: 2, maxLength: 6 }),
  })
  .map(({ sym: s, ps: p, levels }) =>
    levels.map(([sd, away, n]): OrderSpec => ({
      sym: s,
      type: 'LIMIT',
      side: sd,
      ps: p,
      px: { k: 'near', n: sd === 'BUY' ? -away : away },
      marketPrice: false,
      qty: { k: 'steps', n },
      closeWithQty: false,
    })),
  );

export const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('batchPlace' as const), u: user, os: ladder }), weight: 8 },
  { arbitrary: fc.record({ k: fc.constant('place' as const), u: user, o: orderSpec }), weight: 30 },
  { arbitrary: fc.record({ k: fc.constant('batchPlace' as const), u: user, os: fc.array(orderSpec, { minLength: 1, maxLength: 4 }) }), weight: 3 },
  { arbitrary: fc.record({ k: fc.constant('cancel' as const), u: user, sym, pick: fc.nat(50), byClient: fc.boolean() }), weight: 5 },
  { arbitrary: fc.record({ k: fc.constant('batchCancel' as const), u: user, sym, picks: fc.array(fc.nat(50), { minLength: 1, maxLength: 4 }) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('move' as const), u: user, sym, pick: fc.nat(50), px: nearPx, qty }), weight: 5 },
  { arbitrary: fc.record({ k: fc.constant('cancelAll' as const), u: user, sym: maybe(sym, 4), cancelType: fc.constantFrom<CancelType>(0, 1, 2) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('condition' as const), u: user, c: condSpec }), weight: 10 },
  { arbitrary: fc.record({ k: fc.constant('cancelCondition' as const), u: user, sym, pick: fc.nat(50) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('strategy' as const), u: user, s: stratSpec }), weight: 6 },
  { arbitrary: fc.record({ k: fc.constant('leverage' as const), u: user, sym, leverage: fc.oneof(fc.integer({ min: 1, max: 125 }), fc.constantFrom(0, 20, 126)) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('marginMode' as const), u: user, sym, mode: fc.constantFrom<MarginModeCode>(1, 2) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('mark' as const), sym, bp: markBp }), weight: 12 },
  { arbitrary: fc.record({ k: fc.constant('funding' as const), sym, rate: maybe(fc.constantFrom('0.0001', '-0.0003', '0.01', '-0.02', '0.06'), 2) }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant('advance' as const), ms: fc.constantFrom(1, 250, 60_000, 3_600_000, 8 * 3_600_000) }), weight: 2 },
);

export const cmds = (maxLength: number): fc.Arbitrary<Cmd[]> => fc.array(cmd, { minLength: 1, maxLength, size: 'max' });

// ------------------------------------------------------------------------------ resolution

/** One concrete engine call (or clock advance), printable as a line of a reproduction. */
export type Call =
  | { m: 'placeOrder'; u: string; input: PlaceOrderInput }
  | { m: 'batchPlace'; u: string; inputs: PlaceOrderInput[] }
  | { m: 'cancelOrder'; u: string; ref: OrderRef }
  | { m: 'batchCancel'; u: string; refs: OrderRef[] }
  | { m: 'moveOrder'; u: string; input: MoveOrderInput }
  | { m: 'cancelAll'; u: string; input: CancelAllInput }
  | { m: 'placeCondition'; u: string; input: PlaceConditionInput }
  | { m: 'cancelCondition'; u: string; symbol: string; conditionId: string }
  | { m: 'placeStrategy'; u: string; input: PlaceStrategyInput }
  | { m: 'setLeverage'; u: string; input: SetLeverageInput }
  | { m: 'setMarginMode'; u: string; input: SetMarginModeInput }
  | { m: 'setMarkPrice'; symbol: string; price: string }
  | { m: 'settleFunding'; symbol: string; rate: string | undefined }
  | { m: 'advance'; ms: number };

/** What the runner knows about the ids a user has seen, to pick orders and conditions from. */
export interface Known {
  /** userId -> symbol -> order ids in the order first seen, with their clientOrderId. */
  orders: Map<string, Map<string, Array<{ id: string; clientOrderId: string }>>>;
  /** userId -> symbol -> condition ids in the order first seen. */
  conditions: Map<string, Map<string, string[]>>;
}

function listOf<T>(m: Map<string, Map<string, T[]>>, u: string, s: string): T[] {
  return m.get(u)?.get(s) ?? [];
}

function specOf(engine: Engine, s: Sym): SymbolSpec {
  return engine.symbolSpecs().find((x) => x.name === s) as SymbolSpec;
}

function priceOf(engine: Engine, s: Sym, px: Px): string {
  const spec = specOf(engine, s);
  const markStr = engine.marketState(s).markPrice;
  const mark = spec.tick.toUnits(markStr) as number;
  switch (px.k) {
    case 'near':
      return spec.tick.fromUnits(Math.max(1, mark + px.n * 10));
    case 'bp':
      return spec.tick.fromUnits(Math.max(1, mark + Math.round((mark * px.n) / 10000)));
    case 'offgrid':
      return new Dec(markStr).plus(new Dec(spec.tick.size).div(2)).toFixed();
    case 'zero':
      return '0';
  }
}

function qtyOf(engine: Engine, s: Sym, q: Qty): string {
  return q.k === 'raw' ? q.s : specOf(engine, s).step.fromUnits(q.n);
}

function psOf(u: string, sd: Side, p: PsSpec): PositionSide | undefined {
  const hedge = HEDGE_USERS.has(u);
  if (p.k === 'wrong') return hedge ? 'BOTH' : sd === 'BUY' ? 'LONG' : 'SHORT';
  if (!hedge) return undefined;
  const opening: PositionSide = sd === 'BUY' ? 'LONG' : 'SHORT';
  const closing: PositionSide = sd === 'BUY' ? 'SHORT' : 'LONG';
  return p.flip ? closing : opening;
}

/** Drops undefined keys: inputs treat absent and undefined alike, and the printout is shorter. */
function clean<T extends object>(o: T): T {
  const out = {} as T;
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function orderInput(engine: Engine, u: string, o: OrderSpec): PlaceOrderInput {
  const priceType = o.type === 'LIMIT' ? o.priceType : undefined;
  const withPrice = (o.type === 'LIMIT' && (priceType ?? 0) === 0) || (o.type === 'MARKET' && o.marketPrice);
  const closePosition = o.closePosition;
  return clean<PlaceOrderInput>({
    symbol: o.sym,
    type: o.type,
    side: o.side,
    positionSide: psOf(u, o.side, o.ps),
    price: withPrice ? priceOf(engine, o.sym, o.px) : undefined,
    quantity: closePosition && !o.closeWithQty ? undefined : qtyOf(engine, o.sym, o.qty),
    timeInForce: o.tif,
    makerOnly: o.type === 'LIMIT' ? o.makerOnly : undefined,
    reduceOnly: o.reduceOnly,
    closePosition,
    priceType,
    clientOrderId: o.clientOrderId,
  });
}

function conditionInput(engine: Engine, u: string, c: CondSpec): PlaceConditionInput {
  const isLimit = c.type === 'STOP_LIMIT' || c.type === 'TAKE_PROFIT_LIMIT';
  const trailing = c.type === 'TRAILING_STOP';
  return clean<PlaceConditionInput>({
    symbol: c.sym,
    type: c.type,
    side: c.side,
    positionSide: psOf(u, c.side, c.ps),
    price: isLimit || c.malformed ? priceOf(engine, c.sym, c.px) : undefined,
    quantity: c.closePosition && !c.malformed ? undefined : qtyOf(engine, c.sym, c.qty),
    timeInForce: c.tif,
    reduceOnly: c.reduceOnly,
    clientOrderId: c.clientOrderId,
    stopPrice: !trailing || c.malformed ? priceOf(engine, c.sym, c.stop) : undefined,
    workingType: c.workingType,
    priceProtect: c.priceProtect,
    activatePrice: trailing && c.activate ? priceOf(engine, c.sym, c.activate) : undefined,
    callbackRate: trailing ? c.callbackRate : undefined,
    closePosition: c.closePosition,
  });
}

function strategyInput(engine: Engine, u: string, s: StratSpec): PlaceStrategyInput {
  const other: Side = s.side === 'BUY' ? 'SELL' : 'BUY';
  const list = s.subs.map((sub, i): StrategySubOrderInput => {
    const sd = i === 0 || !sub.opposite ? s.side : other;
    const isOrder = sub.type === 'LIMIT' || sub.type === 'MARKET';
    const isLimit = sub.type === 'LIMIT' || sub.type === 'STOP_LIMIT' || sub.type === 'TAKE_PROFIT_LIMIT';
    const trailing = sub.type === 'TRAILING_STOP';
    // A closing sub-order of a hedge user acts on the position the entry opened.
    const pos = i === 0 ? psOf(u, sd, s.ps) : psOf(u, s.side, s.ps);
    return clean<StrategySubOrderInput>({
      strategySubId: i + 1,
      symbol: s.sym,
      type: sub.type,
      side: sd,
      positionSide: pos,
      price: isLimit ? priceOf(engine, s.sym, sub.px) : undefined,
      quantity: sub.closePosition && i > 0 ? undefined : qtyOf(engine, s.sym, sub.qty),
      timeInForce: isOrder && sub.tif === 'GTE_GTC' ? undefined : sub.tif,
      reduceOnly: sub.reduceOnly,
      closePosition: i > 0 ? sub.closePosition : undefined,
      stopPrice: !isOrder && !trailing ? priceOf(engine, s.sym, sub.stop) : undefined,
      workingType: isOrder ? undefined : sub.workingType,
      callbackRate: trailing ? sub.callbackRate : undefined,
    });
  });
  return { strategyType: s.type, subOrderList: s.reversed ? [...list].reverse() : list };
}

/** The concrete call for a command in the current engine state. */
export function resolve(engine: Engine, known: Known, c: Cmd): Call {
  switch (c.k) {
    case 'place':
      return { m: 'placeOrder', u: c.u, input: orderInput(engine, c.u, c.o) };
    case 'batchPlace':
      return { m: 'batchPlace', u: c.u, inputs: c.os.map((o) => orderInput(engine, c.u, o)) };
    case 'cancel': {
      const list = listOf(known.orders, c.u, c.sym);
      if (list.length === 0) return { m: 'cancelOrder', u: c.u, ref: { symbol: c.sym, orderId: '999999' } };
      const o = list[c.pick % list.length];
      return { m: 'cancelOrder', u: c.u, ref: c.byClient ? { symbol: c.sym, clientOrderId: o.clientOrderId } : { symbol: c.sym, orderId: o.id } };
    }
    case 'batchCancel': {
      const list = listOf(known.orders, c.u, c.sym);
      return {
        m: 'batchCancel',
        u: c.u,
        refs: c.picks.map((p) => ({ symbol: c.sym, orderId: list.length === 0 ? '999999' : list[p % list.length].id })),
      };
    }
    case 'move': {
      const list = listOf(known.orders, c.u, c.sym);
      const id = list.length === 0 ? '999999' : list[c.pick % list.length].id;
      return { m: 'moveOrder', u: c.u, input: { symbol: c.sym, orderId: id, price: priceOf(engine, c.sym, c.px), quantity: qtyOf(engine, c.sym, c.qty) } };
    }
    case 'cancelAll':
      return { m: 'cancelAll', u: c.u, input: clean<CancelAllInput>({ symbol: c.sym, cancelType: c.cancelType }) };
    case 'condition':
      return { m: 'placeCondition', u: c.u, input: conditionInput(engine, c.u, c.c) };
    case 'cancelCondition': {
      const list = listOf(known.conditions, c.u, c.sym);
      return { m: 'cancelCondition', u: c.u, symbol: c.sym, conditionId: list.length === 0 ? '999999' : list[c.pick % list.length] };
    }
    case 'strategy':
      return { m: 'placeStrategy', u: c.u, input: strategyInput(engine, c.u, c.s) };
    case 'leverage':
      return { m: 'setLeverage', u: c.u, input: { symbol: c.sym, leverage: c.leverage } };
    case 'marginMode':
      return { m: 'setMarginMode', u: c.u, input: { symbol: c.sym, marginMode: c.mode } };
    case 'mark': {
      const spec = specOf(engine, c.sym);
      const start = spec.tick.toUnits(START_PRICE[c.sym]) as number;
      return { m: 'setMarkPrice', symbol: c.sym, price: spec.tick.fromUnits(Math.max(1, start + Math.round((start * c.bp) / 10000))) };
    }
    case 'funding':
      return { m: 'settleFunding', symbol: c.sym, rate: c.rate };
    case 'advance':
      return { m: 'advance', ms: c.ms };
  }
}

/** Runs a concrete call. VenueErrors propagate to the caller. */
export function execute(engine: Engine, advance: (ms: number) => void, call: Call): void {
  switch (call.m) {
    case 'placeOrder':
      engine.placeOrder(call.u, call.input);
      return;
    case 'batchPlace':
      engine.batchPlace(call.u, call.inputs);
      return;
    case 'cancelOrder':
      engine.cancelOrder(call.u, call.ref);
      return;
    case 'batchCancel':
      engine.batchCancel(call.u, call.refs);
      return;
    case 'moveOrder':
      engine.moveOrder(call.u, call.input);
      return;
    case 'cancelAll':
      engine.cancelAll(call.u, call.input);
      return;
    case 'placeCondition':
      engine.placeCondition(call.u, call.input);
      return;
    case 'cancelCondition':
      engine.cancelCondition(call.u, call.symbol, call.conditionId);
      return;
    case 'placeStrategy':
      engine.placeStrategy(call.u, call.input);
      return;
    case 'setLeverage':
      engine.setLeverage(call.u, call.input);
      return;
    case 'setMarginMode':
      engine.setMarginMode(call.u, call.input);
      return;
    case 'setMarkPrice':
      engine.setMarkPrice(call.symbol, call.price);
      return;
    case 'settleFunding':
      if (call.rate === undefined) engine.settleFunding(call.symbol);
      else engine.settleFunding(call.symbol, call.rate);
      return;
    case 'advance':
      advance(call.ms);
      return;
  }
}

/** A call as a line of TypeScript, for reproductions. */
export function printCall(call: Call): string {
  const j = (v: unknown): string => JSON.stringify(v);
  switch (call.m) {
    case 'cancelCondition':
      return `engine.cancelCondition(${j(call.u)}, ${j(call.symbol)}, ${j(call.conditionId)});`;
    case 'setMarkPrice':
      return `engine.setMarkPrice(${j(call.symbol)}, ${j(call.price)});`;
    case 'settleFunding':
      return call.rate === undefined ? `engine.settleFunding(${j(call.symbol)});` : `engine.settleFunding(${j(call.symbol)}, ${j(call.rate)});`;
    case 'advance':
      return `clock.advance(${call.ms});`;
    case 'batchPlace':
      return `engine.batchPlace(${j(call.u)}, ${j(call.inputs)});`;
    case 'batchCancel':
      return `engine.batchCancel(${j(call.u)}, ${j(call.refs)});`;
    case 'cancelOrder':
      return `engine.cancelOrder(${j(call.u)}, ${j(call.ref)});`;
    default:
      return `engine.${call.m}(${j(call.u)}, ${j(call.input)});`;
  }
}
