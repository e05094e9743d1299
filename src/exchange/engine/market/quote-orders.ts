/**
 * The engine's fast path for a replay tape's quotes (market/tape.ts): the tape maker keeps one
 * makerOnly LIMIT GTC order per side at the recorded best bid and ask, and replaces it at every
 * recorded quote (66,089 times on the shared Binance capture). Through `placeOrderStatus` and
 * `cancelOrderQuiet` each replacement parsed the price and quantity strings, ran the whole order
 * intake (reduce-only caps, position and margin reads) and found the old order by its client id;
 * that was about 30 % of a backtest of the example market maker with the L2 fill model.
 *
 * Here the tape hands prices and quantities in ticks and steps (its grids checked equal to the
 * engine's, `grids`) and names its quotes by order id. What happens to the engine is the very
 * same as through the general commands: an accepted quote is created and run by
 * `Matching.commit` (a new order id from the counter even when it is refused, makerOnly refusal
 * against the touch, the same indexes, book position at the back of its level, the same events
 * and follow-ups), and a cancel is `Matching.finish`. Only the intake's checks are done in units,
 * for the accounts they can be done for without reading anything else: a one-way account exempt
 * from margin (a backtest's tape maker). Any other account, or a request one of those checks would
 * refuse, goes through the general intake with the request as strings, which places it or throws
 * the general refusal: so the outcome is always the general command's.
 */
import type { Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import { ZERO_RATE } from '../accounts/margin-rate';
import type { PlaceOrderInput } from '../inputs';
import type { EngineOrder } from '../model';
import type { Matching } from '../orders/matching';
import { MAX_OPEN_ORDERS_PER_SYMBOL, type OrderIntake, type PreparedOrder } from '../orders/prepare';
import { fail, isFinal, type EngineState } from '../state';

/** What a tape needs of the fast path (the engine's `tapeQuotes`). */
export interface TapeQuoteSink {
  /** Tick and step size of a symbol (undefined when unknown): the units below are on these grids. */
  grids(symbol: string): { tickSize: string; stepSize: string } | undefined;
  /**
   * `placeOrderStatus` of LIMIT GTC makerOnly `side` at `ticks` for `steps` with `clientOrderId`:
   * the new order's id when it rests, 0 when it was refused (makerOnly: it would have crossed).
   * Throws the general command's VenueError when the request is refused.
   */
  place(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: string): number;
  /** `cancelOrderQuiet` of the user's order `orderId` on `symbol`; throws as it does. */
  cancel(userId: string, symbol: string, orderId: number): void;
  /**
   * Executed steps of the user's order `orderId` on `symbol`, or -1 where `orderProgress` would
   * throw (not found: a final order of an account whose final orders are forgotten) or answer
   * REJECTED or EXPIRED.
   */
  progress(userId: string, symbol: string, orderId: number): number;
}

export class QuoteOrders implements TapeQuoteSink {
  constructor(
    private readonly s: EngineState,
    private readonly intake: OrderIntake,
    private readonly matching: Matching,
    /** The facade's command framing (follow-up work and account updates at the end). */
    private readonly run: <T>(fn: () => T) => T,
  ) {}

  grids(symbol: string): { tickSize: string; stepSize: string } | undefined {
    const spec = this.s.symbols.get(symbol)?.spec;
    return spec === undefined ? undefined : { tickSize: spec.tick.size, stepSize: spec.step.size };
  }

  place(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: string): number {
    return this.run(() => {
      const o = this.matching.commit(this.prepare(userId, symbol, side, ticks, steps, clientOrderId), {});
      return o.status === 'REJECTED' || o.status === 'EXPIRED' ? 0 : o.id;
    });
  }

  cancel(userId: string, symbol: string, orderId: number): void {
    this.run(() => {
      const o = this.find(userId, symbol, orderId);
      if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be cancelled`, 'orderId');
      this.matching.finish(o, 'CANCELED', 'CANCELED');
    });
  }

  progress(userId: string, symbol: string, orderId: number): number {
    const acct = this.s.accounts.get(userId);
    const st = this.s.symbols.get(symbol);
    const o = this.s.ordersById.get(orderId);
    if (acct === undefined || st === undefined || o === undefined || o.userId !== userId || o.symbol !== st.spec) return -1;
    return o.status === 'REJECTED' || o.status === 'EXPIRED' ? -1 : o.executed;
  }

  /** The user's order by id, as `OrderQueries.find` answers it (another user's order does not exist). */
  private find(userId: string, symbol: string, orderId: number): EngineOrder {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    const o = this.s.ordersById.get(orderId);
    if (o === undefined || o.userId !== acct.userId || o.symbol !== st.spec) fail(ErrorCodes.ORDER_NOT_FOUND, `order not found: orderId ${orderId} on ${symbol}`, 'orderId');
    return o;
  }

  /**
   * `OrderIntake.prepare` of the quote. In units where every check passes for a one-way account
   * exempt from margin (no position or margin read can change the outcome): the same prepared order.
   */
  private prepare(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: string): PreparedOrder {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    const spec = st.spec;
    const units = ticks * steps;
    const fast =
      acct.positionMode === 'ONE_WAY' &&
      this.s.marginExempt.has(userId) &&
      !acct.liveClientIds.has(clientOrderId) &&
      Number.isSafeInteger(ticks) &&
      ticks > 0 &&
      Number.isSafeInteger(steps) &&
      steps >= spec.minQtySteps &&
      steps <= spec.maxQtySteps &&
      Number.isSafeInteger(units) &&
      units >= spec.minNotionalUnits &&
      (acct.openCountBySymbol.get(symbol) ?? 0) < MAX_OPEN_ORDERS_PER_SYMBOL;
    const input: PlaceOrderInput = { symbol, type: 'LIMIT', side, timeInForce: 'GTC', makerOnly: true, clientOrderId };
    if (!fast) {
      input.price = spec.tick.fromUnits(ticks);
      input.quantity = spec.step.fromUnits(steps);
      return this.intake.prepare(acct, input);
    }
    return { acct, st, input, positionSide: 'BOTH', price: ticks, qty: steps, reducing: false, frozenPerStep: ZERO_RATE, clientOrderId };
  }
}
