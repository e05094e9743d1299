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
 *
 * Deferred quotes. Most quotes are replaced before anything could meet them (on the shared capture
 * some 66,000 quotes against a few thousand participant commands), so for a backtest's tape maker
 * (one-way, exempt from margin, muted and forgetting its final orders: no record, event, margin or
 * history of the order is ever made) an accepted quote is not put in the book at once. Its order id
 * is taken from the counter and its makerOnly check done against the book as it would be (the
 * resting orders plus the deferred quotes); it is noted as pending, and a cancel of a pending quote
 * just drops it. `settle` puts the pending quotes in the book, in the order they were placed, with
 * their ids and times, before anything else reads or changes the engine: the facade calls it at the
 * start of every command and of every query that reads the book or orders (not `restingThrough`,
 * whose callers skip the tape's orders). The book, ids, queues and refusals are then those the
 * immediate placements would have made: nothing can join a level between a quote and its
 * settlement, since anything that could is a command that settles first.
 */
import type { Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import { ZERO_RATE } from '../accounts/margin-rate';
import { ASK, BID } from '../book/order-book';
import type { PlaceOrderInput } from '../inputs';
import type { EngineAccount, EngineOrder } from '../model';
import type { Matching } from '../orders/matching';
import { MAX_OPEN_ORDERS_PER_SYMBOL, type OrderIntake, type PreparedOrder } from '../orders/prepare';
import { fail, isFinal, type EngineState, type SymbolState } from '../state';

/**
 * A client order id given as a prefix and a number: its text is `${prefix}${n}`, made only when it
 * is needed (a deferred quote that is replaced before it settles never needs it). Two of them are
 * compared without their texts when both prefixes end in a non-digit and both numbers are
 * non-negative safe integers: the texts are then equal exactly when prefix and number are.
 */
export interface NumberedClientId {
  readonly prefix: string;
  readonly n: number;
}

/** A quote's client order id: its text, or a prefix and a number. */
export type QuoteClientId = string | NumberedClientId;

const clientIdText = (c: QuoteClientId): string => (typeof c === 'string' ? c : c.prefix + c.n);

/** Prefix and number say the text alone (see NumberedClientId). */
function splits(c: NumberedClientId): boolean {
  const last = c.prefix.charCodeAt(c.prefix.length - 1);
  return !(last >= 48 && last <= 57) && Number.isSafeInteger(c.n) && c.n >= 0;
}

function sameClientId(a: QuoteClientId, b: QuoteClientId): boolean {
  if (a === b) return true;
  if (typeof a !== 'string' && typeof b !== 'string' && splits(a) && splits(b)) return a.n === b.n && a.prefix === b.prefix;
  return clientIdText(a) === clientIdText(b);
}

/** What a tape needs of the fast path (the engine's `tapeQuotes`). */
export interface TapeQuoteSink {
  /** Tick and step size of a symbol (undefined when unknown): the units below are on these grids. */
  grids(symbol: string): { tickSize: string; stepSize: string } | undefined;
  /**
   * `placeOrderStatus` of LIMIT GTC makerOnly `side` at `ticks` for `steps` with `clientOrderId`
   * (its text, or a prefix and number made into text only if needed):
   * the new order's id when it rests, 0 when it was refused (makerOnly: it would have crossed).
   * Throws the general command's VenueError when the request is refused.
   */
  place(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: QuoteClientId): number;
  /** `cancelOrderQuiet` of the user's order `orderId` on `symbol`; throws as it does. */
  cancel(userId: string, symbol: string, orderId: number): void;
  /**
   * Executed steps of the user's order `orderId` on `symbol`, or -1 where `orderProgress` would
   * throw (not found: a final order of an account whose final orders are forgotten) or answer
   * REJECTED or EXPIRED.
   */
  progress(userId: string, symbol: string, orderId: number): number;
}

/**
 * The account and symbol a user's quotes on a symbol go to, looked up once (a tape replaces its
 * quotes tens of thousands of times). `quiet`: the account is one-way, exempt from margin, muted
 * and forgets its final orders (those flags are only ever set, and `discard` drops the lanes when
 * the state is replaced); while false it is asked again.
 */
interface Lane {
  userId: string;
  acct: EngineAccount;
  st: SymbolState;
  quiet: boolean;
}

/** A quote accepted and not yet in the book (see "Deferred quotes" above). */
interface PendingQuote {
  id: number;
  at: number;
  acct: EngineAccount;
  st: SymbolState;
  side: Side;
  ticks: number;
  steps: number;
  clientOrderId: QuoteClientId;
}

export class QuoteOrders implements TapeQuoteSink {
  private pending: PendingQuote[] = [];
  /** Entries of quotes cancelled while pending, reused by the next ones (a quote is replaced some 66,000 times in six minutes). */
  private readonly spare: PendingQuote[] = [];
  /** By symbol: the lane of the last user that quoted it. */
  private readonly lanes = new Map<string, Lane>();

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

  place(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: QuoteClientId): number {
    const lane = this.lane(userId, symbol);
    if (lane !== undefined && lane.quiet && this.passes(lane.acct, lane.st, ticks, steps, clientOrderId, true)) {
      const { acct, st } = lane;
      // As commit: the id is taken even when makerOnly refuses the quote.
      const id = this.s.nextOrderId++;
      if (this.crosses(st, side, ticks)) return 0;
      const q = this.spare.pop();
      if (q === undefined) {
        this.pending.push({ id, at: this.s.clock.now(), acct, st, side, ticks, steps, clientOrderId });
      } else {
        q.id = id;
        q.at = this.s.clock.now();
        q.acct = acct;
        q.st = st;
        q.side = side;
        q.ticks = ticks;
        q.steps = steps;
        q.clientOrderId = clientOrderId;
        this.pending.push(q);
      }
      return id;
    }
    return this.placeNow(userId, symbol, side, ticks, steps, clientIdText(clientOrderId));
  }

  /**
   * A quote that does not wait: into the book now, after the pending ones. (Apart from `place` so
   * that its closure's context is made only on this path, not on every quote.)
   */
  private placeNow(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: string): number {
    this.settle();
    return this.run(() => {
      const o = this.matching.commit(this.prepare(userId, symbol, side, ticks, steps, clientOrderId), {});
      return o.status === 'REJECTED' || o.status === 'EXPIRED' ? 0 : o.id;
    });
  }

  cancel(userId: string, symbol: string, orderId: number): void {
    const i = this.pendingIndex(userId, symbol, orderId);
    if (i >= 0) {
      // Out of the list, the others keeping their order, without the array `splice` makes.
      const p = this.pending;
      const q = p[i];
      for (let k = i + 1; k < p.length; k++) p[k - 1] = p[k];
      p.pop();
      this.spare.push(q);
      return;
    }
    this.cancelResting(userId, symbol, orderId);
  }

  /** The cancel of a quote in the book (apart from `cancel`: its closure's context only on this path). */
  private cancelResting(userId: string, symbol: string, orderId: number): void {
    this.run(() => {
      const o = this.find(userId, symbol, orderId);
      if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be cancelled`, 'orderId');
      this.matching.finish(o, 'CANCELED', 'CANCELED');
    });
  }

  progress(userId: string, symbol: string, orderId: number): number {
    if (this.pendingIndex(userId, symbol, orderId) >= 0) return 0;
    const acct = this.s.accounts.get(userId);
    const st = this.s.symbols.get(symbol);
    const o = this.s.ordersById.get(orderId);
    if (acct === undefined || st === undefined || o === undefined || o.userId !== userId || o.symbol !== st.spec) return -1;
    return o.status === 'REJECTED' || o.status === 'EXPIRED' ? -1 : o.executed;
  }

  /** Puts the pending quotes in the book, in the order they were placed, with their ids and times. */
  settle(): void {
    if (this.pending.length === 0) return;
    const list = this.pending;
    this.pending = [];
    this.run(() => {
      for (const q of list) {
        const o = this.matching.commit(this.prepared(q.acct, q.st, q.side, q.ticks, q.steps, clientIdText(q.clientOrderId)), { reserved: { id: q.id, at: q.at } });
        // Nothing joined the book since the quote was checked: it rests as it would have then.
        if (o.status !== 'NEW') throw new Error(`deferred tape quote ${q.id} came out ${o.status} when settled`);
      }
    });
  }

  /** Drops the pending quotes (the engine's state is being replaced). */
  discard(): void {
    this.pending = [];
    this.lanes.clear();
  }

  /**
   * The user's lane on the symbol (undefined when either does not exist). A quote can wait when
   * its lane is `quiet` (the account leaves no trace of an order but the book) and it `passes`.
   */
  private lane(userId: string, symbol: string): Lane | undefined {
    let lane = this.lanes.get(symbol);
    if (lane === undefined || lane.userId !== userId) {
      const acct = this.s.accounts.get(userId);
      const st = this.s.symbols.get(symbol);
      if (acct === undefined || st === undefined) return undefined;
      lane = { userId, acct, st, quiet: false };
      this.lanes.set(symbol, lane);
    }
    if (!lane.quiet) {
      const { acct } = lane;
      lane.quiet = acct.positionMode === 'ONE_WAY' && this.s.marginExempt.has(userId) && this.s.muted.has(userId) && this.s.forgetful.has(userId);
    }
    return lane;
  }

  /**
   * Whether every check of `OrderIntake.prepare` passes for the quote, decided in units: for a
   * one-way account exempt from margin no position or margin read can change the outcome. The
   * client id and the open-order limit count the pending quotes too.
   */
  private passes(acct: EngineAccount, st: SymbolState, ticks: number, steps: number, clientOrderId: QuoteClientId, oneWayExempt = acct.positionMode === 'ONE_WAY' && this.s.marginExempt.has(acct.userId)): boolean {
    const spec = st.spec;
    const units = ticks * steps;
    if (!oneWayExempt) return false;
    if (!(Number.isSafeInteger(ticks) && ticks > 0 && Number.isSafeInteger(steps) && steps >= spec.minQtySteps && steps <= spec.maxQtySteps)) return false;
    // The size first: hashing a new client id costs as much as the rest of the check, and the tape's account mostly has no live order.
    // The map alone answers here (not liveOrderIdOf): a tape quote's id is never an engine-made `auto-<n>`.
    if (!(Number.isSafeInteger(units) && units >= spec.minNotionalUnits) || (acct.liveClientIds.size > 0 && acct.liveClientIds.has(clientIdText(clientOrderId)))) return false;
    let open = acct.openCountBySymbol.get(spec.name) ?? 0;
    for (const q of this.pending) {
      if (q.acct !== acct) continue;
      if (sameClientId(q.clientOrderId, clientOrderId)) return false;
      if (q.st === st) open++;
    }
    return open < MAX_OPEN_ORDERS_PER_SYMBOL;
  }

  /** The order the intake prepares of a quote that `passes`. */
  private prepared(acct: EngineAccount, st: SymbolState, side: Side, ticks: number, steps: number, clientOrderId: string): PreparedOrder {
    const input: PlaceOrderInput = { symbol: st.spec.name, type: 'LIMIT', side, timeInForce: 'GTC', makerOnly: true, clientOrderId };
    return { acct, st, input, positionSide: 'BOTH', price: ticks, qty: steps, reducing: false, frozenPerStep: ZERO_RATE, clientOrderId };
  }

  /** Would a makerOnly order at `ticks` meet the other side: the book's touch or a pending quote? */
  private crosses(st: SymbolState, side: Side, ticks: number): boolean {
    const buy = side === 'BUY';
    let touch = st.book.bestPrice(buy ? ASK : BID);
    for (const q of this.pending) {
      if (q.st !== st || q.side === side) continue;
      if (touch === 0 || (buy ? q.ticks < touch : q.ticks > touch)) touch = q.ticks;
    }
    return touch !== 0 && (buy ? ticks >= touch : ticks <= touch);
  }

  private pendingIndex(userId: string, symbol: string, orderId: number): number {
    const p = this.pending;
    for (let i = 0; i < p.length; i++) if (p[i].id === orderId) return p[i].acct.userId === userId && p[i].st.spec.name === symbol ? i : -1;
    return -1;
  }

  /** The user's order by id, as `OrderQueries.find` answers it (another user's order does not exist). */
  private find(userId: string, symbol: string, orderId: number): EngineOrder {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    const o = this.s.ordersById.get(orderId);
    if (o === undefined || o.userId !== acct.userId || o.symbol !== st.spec) fail(ErrorCodes.ORDER_NOT_FOUND, `order not found: orderId ${orderId} on ${symbol}`, 'orderId');
    return o;
  }

  /** `OrderIntake.prepare` of the quote: in units where every check `passes`, else the general intake with the request as strings. */
  private prepare(userId: string, symbol: string, side: Side, ticks: number, steps: number, clientOrderId: string): PreparedOrder {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    if (this.passes(acct, st, ticks, steps, clientOrderId)) return this.prepared(acct, st, side, ticks, steps, clientOrderId);
    const input: PlaceOrderInput = { symbol, type: 'LIMIT', side, timeInForce: 'GTC', makerOnly: true, clientOrderId, price: st.spec.tick.fromUnits(ticks), quantity: st.spec.step.fromUnits(steps) };
    return this.intake.prepare(acct, input);
  }
}
