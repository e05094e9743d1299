/**
 * The normal-order commands: place, cancel and amend, one at a time or in batches of up to 20
 * (one bad order never fails the others), and cancel-all of normal orders.
 */
import type { OrderStatus } from '../../../core/enums';
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { OrderRecord } from '../../../protocol/records';
import type { BatchResult, BatchResultItem } from '../../../protocol/rest/common';
import type { Ledger } from '../accounts/ledger';
import type { Margin } from '../accounts/margin';
import { frozenUnits } from '../accounts/margin-memo';
import { ZERO_RATE, rateDec, type MarginRate } from '../accounts/margin-rate';
import { decOfUnits, exactOfUnits } from '../../../core/money-units';
import { plus } from '../../../core/exact';
import { ASK, BID, type BookSide } from '../book/order-book';
import type { MoveOrderInput, OrderRef, PlaceOrderInput } from '../inputs';
import type { EngineAccount, EngineOrder } from '../model';
import type { SymbolSpec } from '../symbols';
import { isReducing, type Positions } from '../positions/positions';
import { moneyDown, moneyUp } from '../records';
import { fail, isFinal, type EngineState } from '../state';
import type { Matching } from './matching';
import { checkMinNotional, openLossText, openLossUnits, stepsOf, ticksOf, type OrderIntake } from './prepare';
import type { OrderQueries } from './queries';

const MAX_BATCH = 20;

export class OrderCommands {
  constructor(
    private readonly s: EngineState,
    private readonly intake: OrderIntake,
    private readonly matching: Matching,
    private readonly queries: OrderQueries,
    private readonly ledger: Ledger,
    private readonly margin: Margin,
    private readonly positions: Positions,
  ) {}

  place(userId: string, input: PlaceOrderInput): OrderRecord {
    const acct = this.s.acct(userId);
    return this.s.recordOf(this.matching.commit(this.intake.prepare(acct, input), {}));
  }

  /** `place` for a caller that reads only the outcome: its status, no record formatted. */
  placeStatus(userId: string, input: PlaceOrderInput): OrderStatus {
    return this.matching.commit(this.intake.prepare(this.s.acct(userId), input), {}).status;
  }

  /** `cancel` for a caller that reads nothing of the answer: no record formatted. */
  cancelQuiet(userId: string, ref: OrderRef): void {
    this.cancelOne(this.s.acct(userId), ref);
  }

  batchPlace(userId: string, inputs: PlaceOrderInput[]): BatchResult {
    const acct = this.s.acct(userId);
    checkBatch(inputs.length);
    return batch(inputs, (input) => this.s.recordOf(this.matching.commit(this.intake.prepare(acct, input), {})), (i) => ({ orderId: '', clientOrderId: i.clientOrderId ?? '' }));
  }

  cancel(userId: string, ref: OrderRef): OrderRecord {
    return this.s.recordOf(this.cancelOne(this.s.acct(userId), ref));
  }

  batchCancel(userId: string, refs: OrderRef[]): BatchResult {
    const acct = this.s.acct(userId);
    checkBatch(refs.length);
    return batch(refs, (ref) => this.s.recordOf(this.cancelOne(acct, ref)), (r) => ({ orderId: r.orderId ?? '', clientOrderId: r.clientOrderId ?? '' }));
  }

  private cancelOne(acct: EngineAccount, ref: OrderRef): EngineOrder {
    const o = this.queries.find(acct, ref);
    if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be cancelled`, 'orderId');
    this.matching.finish(o, 'CANCELED', 'CANCELED');
    return o;
  }

  move(userId: string, input: MoveOrderInput): OrderRecord {
    return this.s.recordOf(this.amend(this.s.acct(userId), input.symbol, input));
  }

  batchMove(userId: string, symbol: string, inputs: Array<Omit<MoveOrderInput, 'symbol'>>): BatchResult {
    const acct = this.s.acct(userId);
    this.s.sym(symbol);
    checkBatch(inputs.length);
    return batch(inputs, (i) => this.s.recordOf(this.amend(acct, symbol, i)), (i) => ({ orderId: i.orderId, clientOrderId: '' }));
  }

  /**
   * After the account's leverage on `spec` changed: each open order there that holds margin holds
   * it at the new leverage, as if placed now (matching.ts refreezeOpening). Returns what puts the
   * amounts back, for a change that is then refused.
   */
  refreezeAtLeverage(acct: EngineAccount, spec: SymbolSpec): () => void {
    const before: Array<{ o: EngineOrder; perStep: MarginRate; frozen: bigint }> = [];
    for (const o of acct.openOrders.values()) {
      if (o.symbol !== spec || o.frozenPerStep.m === 0n) continue;
      before.push({ o, perStep: o.frozenPerStep, frozen: o.frozen });
      this.matching.refreezeOpening(acct, o);
    }
    return () => {
      for (const b of before) {
        b.o.frozenPerStep = b.perStep;
        this.ledger.setFrozen(b.o, b.frozen);
      }
    };
  }

  /** Cancels the user's open normal orders (all, or LIMIT only), optionally of one symbol. */
  cancelAll(acct: EngineAccount, symbol: string | undefined, limitOnly: boolean): number {
    let n = 0;
    for (const o of [...acct.openOrders.values()]) {
      if (symbol !== undefined && o.symbol.name !== symbol) continue;
      if (limitOnly && o.type !== 'LIMIT') continue;
      this.matching.finish(o, 'CANCELED', 'CANCELED');
      n++;
    }
    return n;
  }

  /**
   * Amends price and total quantity. A pure quantity decrease keeps queue priority; any price
   * change or increase goes to the back of the queue, and a new price that crosses trades at once
   * (a makerOnly order refuses such an amend).
   */
  private amend(acct: EngineAccount, symbol: string, input: Omit<MoveOrderInput, 'symbol'>): EngineOrder {
    const o = this.queries.find(acct, { symbol, orderId: input.orderId });
    if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be amended`, 'orderId');
    const st = this.s.sym(symbol);
    const spec = st.spec;
    const price = ticksOf(spec, input.price, 'price');
    const qty = stepsOf(spec, input.quantity, 'quantity');
    if (qty <= o.executed) fail(ErrorCodes.INVALID_PARAMETER, `quantity is the new total and must exceed the executed quantity ${spec.step.fromUnits(o.executed)}, got ${input.quantity}`, 'quantity');
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    const touch = st.book.bestPrice(opp);
    const crosses = touch !== 0 && (o.side === 'BUY' ? price >= touch : price <= touch);
    if (o.makerOnly && crosses) fail(ErrorCodes.INVALID_PARAMETER, `makerOnly order cannot be amended to ${input.price}: it would take liquidity at ${spec.tick.fromUnits(touch)}`, 'price');
    let finalQty = qty;
    if (isReducing(o)) {
      finalQty = Math.min(qty, o.executed + this.positions.closable(acct, spec.name, o.side, o.positionSide));
    }
    const remaining = finalQty - o.executed;
    const keepsPriority = price === o.price && finalQty <= o.qty;
    let perStep = o.frozenPerStep;
    if (!isReducing(o)) {
      // As a placement is: the whole amended order's notional (30006).
      checkMinNotional(spec, price, finalQty, 'amended order');
      const leverage = this.s.settingsOf(acct, spec.name).leverage;
      // notional / leverage and its rate per step, as a placement of `remaining` works them out.
      const memo = this.intake.memoOf(spec);
      memo.lookup(price, remaining, remaining, leverage);
      const frees = o.frozenPerStep.m === 0n;
      // The open loss of a price through mark, as a placement counts it (prepare.ts), when the amend
      // moves the price or adds quantity: a pure decrease asks for no more than the order had.
      const loss = frees || keepsPriority ? 0n : openLossUnits(st, o.side, price, remaining);
      const needed = loss === 0n ? memo.required : plus(memo.required, exactOfUnits(loss));
      if (!this.margin.covers(acct, frees ? ZERO_RATE : needed, o.frozen)) {
        const available = this.margin.availableOf(acct).plus(decOfUnits(o.frozen));
        fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin: the amended order needs ${moneyUp(rateDec(needed))} USDT${openLossText(st, loss)}, available is ${moneyDown(available)} USDT`);
      }
      perStep = frees ? ZERO_RATE : memo.perStep;
    }
    if (keepsPriority) {
      if (remaining < o.qty - o.executed) st.book.reduce(o.id, remaining);
    } else {
      st.book.remove(o.id);
    }
    o.price = price;
    o.qty = finalQty;
    o.frozenPerStep = perStep;
    o.updateTime = this.s.clock.now();
    this.ledger.setFrozen(o, frozenUnits(perStep, remaining));
    this.s.emitOrder(o, 'AMENDED');
    // The strategy order's detail shows its orders' prices and quantities.
    if (o.strategyId) this.s.follow.strategyTouched(o.strategyId, true);
    if (!keepsPriority) {
      if (crosses) this.matching.matchTaker(o, st);
      if (!isFinal(o.status)) {
        const left = o.qty - o.executed;
        if (left > 0 && this.matching.stillPlaceable(o)) {
          st.book.add(o.id, o.side === 'BUY' ? BID : ASK, o.price, left);
          this.ledger.freeze(o, left);
        } else {
          this.matching.finish(o, 'CANCELED', 'CANCELED');
        }
      }
      this.s.follow.marketMoved(st);
      this.matching.matched();
    }
    return o;
  }
}

function checkBatch(n: number): void {
  if (n > MAX_BATCH) fail(ErrorCodes.TOO_MANY_IN_BATCH, `at most ${MAX_BATCH} orders in a batch, got ${n}`, 'orders');
}

/**
 * One result per input, in order; a failed item names the order as the request did (`idsOf`: its
 * orderId and clientOrderId, '' where the request gave none): a failed move or cancel came back
 * with both '', though the request named the order.
 */
function batch<I>(inputs: I[], one: (input: I) => OrderRecord, idsOf: (input: I) => { orderId: string; clientOrderId: string }): BatchResult {
  const results: BatchResultItem[] = [];
  let ok = 0;
  inputs.forEach((input, index) => {
    try {
      const r = one(input);
      ok++;
      results.push({ index, success: true, code: 0, message: 'success', orderId: r.orderId, clientOrderId: r.clientOrderId, status: r.status });
    } catch (e) {
      if (!(e instanceof VenueError)) throw e;
      results.push({ index, success: false, code: e.code, message: e.message, ...idsOf(input), status: '' });
    }
  });
  return { successCount: ok, failedCount: inputs.length - ok, results };
}
