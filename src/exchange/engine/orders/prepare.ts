/**
 * Order intake: resolving a request against the symbol's grid, the book and the account (price,
 * quantity, reduce-only caps, minimum notional, open-order limit, margin) without changing
 * anything. A request that fails here throws a VenueError and leaves no trace.
 */
import { formatDec } from '../../../core/decimal';
import { exactOfUnits, formatUnits } from '../../../core/money-units';
import { plus } from '../../../core/exact';
import type { PositionSide, Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import type { Margin } from '../accounts/margin';
import { MarginMemo } from '../accounts/margin-memo';
import { ZERO_RATE, rateDec, type MarginRate } from '../accounts/margin-rate';
import { ASK, BID, type BookSide } from '../book/order-book';
import type { PlaceOrderInput } from '../inputs';
import type { EngineAccount } from '../model';
import { isReducing, type Positions } from '../positions/positions';
import { moneyDown, moneyUp } from '../records';
import { fail, type EngineState, type SymbolState } from '../state';
import type { SymbolSpec } from '../symbols';
import { liveOrderIdOf, refuseReservedClientId } from './client-ids';

/** Most open normal orders a user may have on one symbol (30010). */
export const MAX_OPEN_ORDERS_PER_SYMBOL = 200;

/** The parts of an order request resolved against the symbol, the book and the account. */
export interface PreparedOrder {
  acct: EngineAccount;
  st: SymbolState;
  input: PlaceOrderInput;
  positionSide: PositionSide;
  price: number;
  qty: number;
  reducing: boolean;
  /** Margin the order freezes per remaining step: none for an order that only reduces, nor for one that never rests (MARKET, IOC, FOK). */
  frozenPerStep: MarginRate;
  clientOrderId: string;
}

/** Refuses (30006) an order of `qty` steps at `ticks` whose notional is below the symbol's minimum; `what` names it ("order", "amended order"). */
export function checkMinNotional(spec: SymbolSpec, ticks: number, qty: number, what: string): void {
  // In integer (tick x step) units while the product is exact; decimals beyond that.
  const units = ticks * qty;
  const below = Number.isSafeInteger(units) ? units < spec.minNotionalUnits : spec.tick.decOf(ticks).times(spec.step.decOf(qty)).lt(spec.minNotional);
  if (below) {
    const notional = spec.tick.decOf(ticks).times(spec.step.decOf(qty));
    fail(ErrorCodes.BELOW_MIN_NOTIONAL, `${what} notional ${formatDec(notional)} is below the minimum notional ${formatDec(spec.minNotional)} of ${spec.name}`, 'quantity');
  }
}

/**
 * The open loss of an order (money units), as Binance counts it in an order's cost: a BUY priced
 * above mark loses (price - mark) x quantity against mark the moment it fills, a SELL priced below
 * mark (mark - price) x quantity; 0 for an order priced at or on the good side of mark. The
 * margin check adds it to the initial margin of what the order opens (it is not frozen: a fill at
 * a price through mark is then checked for liquidation, liquidation/liquidation.ts).
 */
export function openLossUnits(st: SymbolState, side: Side, ticks: number, steps: number): bigint {
  const through = side === 'BUY' ? ticks - st.market.mark : st.market.mark - ticks;
  return through > 0 && steps > 0 ? st.spec.notionalMoney(through, steps) : 0n;
}

/** The part of a refusal's message that names an open loss ('' for none). */
export function openLossText(st: SymbolState, loss: bigint): string {
  return loss === 0n ? '' : ` (${formatUnits(loss)} USDT of it the open loss of its price against mark ${st.spec.tick.fromUnits(st.market.mark)})`;
}

/** A price field of a request in ticks; refuses off-grid and non-positive prices. */
export function ticksOf(spec: SymbolSpec, s: string, field: string): number {
  const t = spec.tick.toUnits(s);
  if (t === undefined) {
    if (spec.tick.beyondUnits(s)) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is out of range: at most ${spec.tick.fromUnits(Number.MAX_SAFE_INTEGER)} for ${spec.name}`, field);
    fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is not a multiple of the tick size ${spec.tick.size} of ${spec.name}`, field);
  }
  if (t <= 0) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} must be greater than zero, got ${s}`, field);
  return t;
}

/** A quantity field of a request in steps; refuses off-grid quantities and those outside min..max. */
export function stepsOf(spec: SymbolSpec, s: string, field: string): number {
  const q = spec.step.toUnits(s);
  if (q === undefined) {
    if (spec.step.beyondUnits(s)) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is outside ${spec.step.fromUnits(spec.minQtySteps)}..${spec.step.fromUnits(spec.maxQtySteps)} for ${spec.name}`, field);
    fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is not a multiple of the step size ${spec.step.size} of ${spec.name}`, field);
  }
  if (q < spec.minQtySteps || q > spec.maxQtySteps) {
    fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is outside ${spec.step.fromUnits(spec.minQtySteps)}..${spec.step.fromUnits(spec.maxQtySteps)} for ${spec.name}`, field);
  }
  return q;
}

/** What checkOrderShape resolves: the given price (0 for MARKET or a BBO priceType) and quantity (0 with closePosition). */
export interface OrderShape {
  price: number;
  qty: number;
  reducing: boolean;
}

/**
 * The rules of an order request that need neither the account, the book nor the market: makerOnly,
 * price and priceType by type, quantity or closePosition, the grid, and the minimum notional of a
 * given price (an order that only reduces has none). A strategy order checks its waiting
 * sub-orders with these at acceptance; `prepare` runs them for every order.
 */
export function checkOrderShape(spec: SymbolSpec, input: PlaceOrderInput, positionSide: PositionSide): OrderShape {
  const tif = input.timeInForce ?? 'GTC';
  const priceType = input.priceType ?? 0;
  const closePosition = input.closePosition ?? false;
  if ((input.makerOnly ?? false) && (input.type !== 'LIMIT' || tif !== 'GTC')) fail(ErrorCodes.INVALID_PARAMETER, `makerOnly applies only to LIMIT orders with timeInForce GTC, got ${input.type} ${tif}`, 'makerOnly');
  let price = 0;
  if (input.type === 'LIMIT') {
    if (priceType === 0) {
      if (input.price === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'price is required for LIMIT orders with priceType 0', 'price');
      price = ticksOf(spec, input.price, 'price');
    }
  } else {
    if (input.price !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'price must not be given for MARKET orders', 'price');
    if (priceType !== 0) fail(ErrorCodes.INVALID_PARAMETER, 'priceType applies only to LIMIT orders', 'priceType');
  }
  const reducing = isReducing({ reduceOnly: input.reduceOnly ?? false, closePosition, side: input.side, positionSide });
  const qty = quantitySteps(spec, input.quantity, closePosition, 'the whole position is closed');
  if (!closePosition && !reducing && price !== 0) checkMinNotional(spec, price, qty, 'order');
  return { price, qty, reducing };
}

/**
 * A request's quantity in steps, or 0 with closePosition (which excludes it): the one rule of
 * orders and condition orders. `closed` ends the message of a quantity given with closePosition.
 */
export function quantitySteps(spec: SymbolSpec, quantity: string | undefined, closePosition: boolean, closed: string): number {
  if (closePosition) {
    if (quantity !== undefined) fail(ErrorCodes.INVALID_PARAMETER, `quantity must not be given with closePosition=true: ${closed}`, 'quantity');
    return 0;
  }
  if (quantity === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'quantity is required unless closePosition is true', 'quantity');
  return stepsOf(spec, quantity, 'quantity');
}

export class OrderIntake {
  private readonly memos = new Map<SymbolSpec, MarginMemo>();

  constructor(
    private readonly s: EngineState,
    private readonly margin: Margin,
    private readonly positions: Positions,
  ) {}

  /**
   * Resolves and checks an order request; changes nothing. Throws VenueError. `held`: margin
   * (money units) the account must keep besides, for orders of the same request not placed yet
   * (a strategy order's sub-orders placed at once).
   */
  prepare(acct: EngineAccount, input: PlaceOrderInput, held = 0n): PreparedOrder {
    const st = this.s.sym(input.symbol);
    const spec = st.spec;
    const positions = this.positions;
    const positionSide = positions.positionSideFor(acct, input.positionSide);
    const priceType = input.priceType ?? 0;
    const closePosition = input.closePosition ?? false;
    if (input.clientOrderId !== undefined) {
      const live = liveOrderIdOf(acct, input.clientOrderId);
      if (live !== undefined) fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `clientOrderId '${input.clientOrderId}' is already used by open order ${live}`, 'clientOrderId');
      refuseReservedClientId(acct, input.clientOrderId);
    }
    const shape = checkOrderShape(spec, input, positionSide);
    // A BBO price comes from the book; the rules of the request alone are checkOrderShape's.
    const price = input.type === 'LIMIT' && priceType !== 0 ? this.bboPrice(st, input.side, priceType) : shape.price;
    const reducing = shape.reducing;
    const closable = positions.closable(acct, spec.name, input.side, positionSide);
    let qty = shape.qty;
    if (closePosition) {
      if (closable === 0) fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `closePosition: there is no ${positionSide} position on ${spec.name} that a ${input.side} order would close`, 'closePosition');
      qty = closable;
    } else if (reducing) {
      if (closable === 0) fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `reduce-only ${input.side} order would not reduce the ${positionSide} position on ${spec.name} (position is ${spec.step.fromUnits(positions.positionQty(acct, spec.name, positionSide))})`, 'reduceOnly');
      qty = Math.min(qty, closable);
    }
    const refTicks = price !== 0 ? price : this.referencePrice(st, input.side);
    // A given price's minimum notional is checkOrderShape's; a book price's is checked here.
    if (!reducing && shape.price === 0) checkMinNotional(spec, refTicks, qty, 'order');
    const openCount = acct.openCountBySymbol.get(spec.name) ?? 0;
    if (openCount >= MAX_OPEN_ORDERS_PER_SYMBOL) fail(ErrorCodes.TOO_MANY_OPEN_ORDERS, `at most ${MAX_OPEN_ORDERS_PER_SYMBOL} open orders per symbol; ${spec.name} has ${openCount}`);
    let frozenPerStep = ZERO_RATE;
    if (!reducing && !this.s.marginExempt.has(acct.userId)) {
      const opening = acct.positionMode === 'ONE_WAY' ? Math.max(0, qty - closable) : qty;
      if (opening > 0) {
        const leverage = this.s.settingsOf(acct, spec.name).leverage;
        const memo = this.memoOf(spec);
        memo.lookup(refTicks, opening, qty, leverage);
        const loss = openLossUnits(st, input.side, refTicks, opening);
        const required = loss === 0n ? memo.required : plus(memo.required, exactOfUnits(loss));
        if (!this.margin.covers(acct, required, -held)) {
          const besides = held === 0n ? '' : ` (${formatUnits(held)} USDT of it held for the request's sub-orders before this one)`;
          fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin: the order needs ${moneyUp(rateDec(required))} USDT at ${leverage}x${openLossText(st, loss)}, available is ${moneyDown(this.margin.availableOf(acct))} USDT${besides}`);
        }
        // A MARKET order, or a LIMIT one IOC or FOK, never rests: its margin is checked here, and
        // it freezes none while it is matched (the account's frozen margin, quoted by its fills'
        // account changes, is as it stands outside the command).
        if (input.type === 'LIMIT' && (input.timeInForce ?? 'GTC') === 'GTC') frozenPerStep = memo.perStep;
      }
    }
    return { acct, st, input, positionSide, price, qty, reducing, frozenPerStep, clientOrderId: input.clientOrderId ?? '' };
  }

  /** The symbol's memo of margin arithmetic (placements here, amends in commands.ts). */
  memoOf(spec: SymbolSpec): MarginMemo {
    let m = this.memos.get(spec);
    if (m === undefined) {
      m = new MarginMemo(spec);
      this.memos.set(spec, m);
    }
    return m;
  }

  /** Price of a BBO priceType (1 opponent 1, 2 opponent 5, 3 same side 1, 4 same side 5). */
  private bboPrice(st: SymbolState, side: Side, priceType: number): number {
    const own: BookSide = side === 'BUY' ? BID : ASK;
    const bookSide: BookSide = priceType <= 2 ? (own === BID ? ASK : BID) : own;
    const depth = priceType === 1 || priceType === 3 ? 1 : 5;
    const levels = st.book.levelCount(bookSide);
    if (levels === 0) {
      fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `priceType ${priceType}: no price available, the ${bookSide === BID ? 'bid' : 'ask'} side of ${st.spec.name} is empty`, 'priceType');
    }
    return st.book.levelPrice(bookSide, Math.min(depth, levels));
  }

  /** Price used to size a market order: the touch it would take, or mark when that side is empty. */
  private referencePrice(st: SymbolState, side: Side): number {
    const touch = st.book.bestPrice(side === 'BUY' ? ASK : BID);
    if (touch === 0) return st.market.mark;
    return side === 'BUY' ? Math.max(touch, st.market.mark) : touch;
  }
}
