/**
 * Orders resource (/v1/private/order/*), one method per endpoint, plus the order-safety rule of
 * DESIGN.md: every order carries a clientOrderId before it is sent, and a timeout, reset or 5xx
 * on an order request is settled by querying that id (bounded attempts), never by sending again.
 */
import type { ResponseOf } from '../../protocol/endpoints';
import type * as O from '../../protocol/rest/orders';
import type { BatchResult, BatchResultItem } from '../../protocol/rest/common';
import type { ConditionOrderRecord, OrderRecord, TradeRecord } from '../../protocol/records';
import { backoffDelay, type BackoffOptions } from '../backoff';
import {
  MalformedResponseError,
  NetworkError,
  NotFoundError,
  PerpkitError,
  RequestTimeoutError,
  ServiceUnavailableError,
  UnknownOrderOutcomeError,
  hadNoEffect,
} from '../errors';
import { sleep } from '../timers';
import type { ClientOrderIdGenerator } from './client-order-id';
import type { RequestOptions, RestCore } from './core';
import { CREATED_AT_TOLERANCE_MS, madeByRequest, type OrderShape } from './order-match';
import { paginate } from './paginate';

export interface OrderSafetyOptions {
  /** Queries made to learn the fate of an order whose answer was lost; default 5. */
  resolveAttempts: number;
  /** Delays between those queries; default 100 ms doubling up to 2 s. */
  resolveBackoff: BackoffOptions;
}

/** What the stream's working-order tracking learns from a placement answered over REST. */
export interface AcceptedOrder {
  orderId: string;
  status: string;
}

/**
 * Whether an error leaves an order request's outcome unknown (it may or may not have been placed).
 * A connection that was never made (refused, no route, connect timeout) sent nothing: not unknown.
 */
export function isUnknownOutcome(err: unknown): boolean {
  if (err instanceof NetworkError) return err.requestMayHaveBeenSent;
  if (err instanceof RequestTimeoutError || err instanceof MalformedResponseError) return true;
  return err instanceof ServiceUnavailableError;
}

export class OrdersApi {
  constructor(
    private readonly core: RestCore,
    private readonly ids: ClientOrderIdGenerator,
    private readonly safety: OrderSafetyOptions,
    private readonly onAccepted: (orders: AcceptedOrder[]) => void = () => undefined,
  ) {}

  /** A fresh clientOrderId, for callers that want to know it before placing. */
  newClientOrderId(): string {
    return this.ids.next();
  }

  // ---------------------------------------------------------------- placing

  /** POST /v1/private/order/place. Sets `clientOrderId` when absent; settles lost answers by it. */
  async placeOrder(params: O.PlaceOrderParams, ro?: RequestOptions): Promise<O.PlaceOrderResult> {
    const p: O.PlaceOrderParams = params.clientOrderId === undefined ? { ...params, clientOrderId: this.ids.next() } : params;
    const sentAt = this.core.opts.clock.now();
    try {
      const r = await this.core.call('placeOrder', p, ro);
      this.onAccepted([r]);
      return r;
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      const cid = p.clientOrderId as string;
      const notBefore = await this.notBefore(sentAt);
      const rec = await this.settle(err, [cid], () => this.findOrder(p, notBefore));
      this.onAccepted([rec]);
      return { orderId: rec.orderId, clientOrderId: rec.clientOrderId, status: rec.status, timestamp: rec.createdAt };
    }
  }

  /** POST /v1/private/order/batch-place (at most 20). Every order gets a clientOrderId. */
  async batchPlaceOrders(params: O.BatchPlaceParams, ro?: RequestOptions): Promise<O.BatchPlaceResult> {
    const orders = params.orders.map((o) => (o.clientOrderId === undefined ? { ...o, clientOrderId: this.ids.next() } : o));
    const sentAt = this.core.opts.clock.now();
    try {
      const r = await this.core.call('batchPlaceOrders', { orders }, ro);
      this.onAccepted(r.results.filter((x) => x.success));
      return r;
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      const results: (BatchResultItem | undefined)[] = orders.map(() => undefined);
      const notBefore = await this.notBefore(sentAt);
      const items = await this.settle(
        err,
        orders.map((o) => o.clientOrderId as string),
        async () => {
          for (let i = 0; i < orders.length; i++) {
            if (results[i] !== undefined) continue;
            const o = orders[i] as O.PlaceOrderParams;
            const rec = await this.findOrder(o, notBefore);
            if (rec !== undefined) results[i] = { index: i, success: true, code: 0, message: 'success', orderId: rec.orderId, clientOrderId: rec.clientOrderId, status: rec.status };
          }
          return results.every((x) => x !== undefined) ? (results as BatchResultItem[]) : undefined;
        },
        () => orders.filter((_, i) => results[i] === undefined).map((o) => o.clientOrderId as string),
      );
      this.onAccepted(items);
      return { successCount: items.length, failedCount: 0, results: items };
    }
  }

  /** POST /v1/private/order/place-condition. Sets `clientOrderId`; settles lost answers by it. */
  async placeConditionOrder(params: O.PlaceConditionParams, ro?: RequestOptions): Promise<O.PlaceConditionResult> {
    const p: O.PlaceConditionParams = params.clientOrderId === undefined ? { ...params, clientOrderId: this.ids.next() } : params;
    const sentAt = this.core.opts.clock.now();
    try {
      return await this.core.call('placeConditionOrder', p, ro);
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      const cid = p.clientOrderId as string;
      const notBefore = await this.notBefore(sentAt);
      const rec = await this.settle(err, [cid], () => this.findCondition(p, notBefore));
      return { conditionId: rec.conditionId, conditionStatus: rec.conditionStatus, timestamp: rec.createdAt };
    }
  }

  /**
   * POST /v1/private/order/place-strategy. Every sub-order gets a clientOrderId; a lost answer is
   * settled through the first sub-order placed at once (its order record names the strategy).
   */
  async placeStrategyOrder(params: O.PlaceStrategyParams, ro?: RequestOptions): Promise<O.PlaceStrategyResult> {
    const subOrderList = params.subOrderList.map((s) => (s.clientOrderId === undefined ? { ...s, clientOrderId: this.ids.next() } : s));
    const p: O.PlaceStrategyParams = { ...params, subOrderList };
    const sentAt = this.core.opts.clock.now();
    try {
      return await this.core.call('placeStrategyOrder', p, ro);
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      const cids = subOrderList.map((s) => s.clientOrderId as string);
      const notBefore = await this.notBefore(sentAt);
      const st = await this.settle(err, cids, async (): Promise<ResponseOf<'getStrategyOrder'> | undefined> => {
        for (const s of subOrderList) {
          const rec = await this.findOrder(s, notBefore);
          if (rec?.strategyId !== undefined) return this.core.call('getStrategyOrder', { strategyId: rec.strategyId });
          const cond = await this.findCondition(s, notBefore);
          if (cond?.strategyId !== undefined) return this.core.call('getStrategyOrder', { strategyId: cond.strategyId });
        }
        return undefined;
      });
      return { strategyId: st.strategyId, strategyStatus: st.strategyStatus, timestamp: st.bookTime };
    }
  }

  // ---------------------------------------------------------------- queries

  /** GET /v1/private/order: by orderId or clientOrderId (at least one). */
  getOrder(params: O.QueryOrderParams, ro?: RequestOptions): Promise<O.QueryOrderResult> {
    return this.core.call('getOrder', params, ro);
  }

  /**
   * GET /v1/private/order/current: open orders, ascending by id; `lastOrderId` (the last orderId of
   * the previous page, as a string) gives the orders with a larger id.
   */
  getCurrentOrders(params: O.CurrentOrdersParams = {}, ro?: RequestOptions): Promise<O.CurrentOrdersResult> {
    return this.core.call('getCurrentOrders', params, ro);
  }

  /** GET /v1/private/order/current-condition. */
  getCurrentConditionOrders(params: O.CurrentConditionOrdersParams = {}, ro?: RequestOptions): Promise<O.CurrentConditionOrdersResult> {
    return this.core.call('getCurrentConditionOrders', params, ro);
  }

  /** GET /v1/private/order/history. */
  getOrderHistory(params: O.OrderHistoryParams = {}, ro?: RequestOptions): Promise<O.OrderHistoryResult> {
    return this.core.call('getOrderHistory', params, ro);
  }

  /** GET /v1/private/order/history-condition. */
  getConditionOrderHistory(params: O.ConditionHistoryParams = {}, ro?: RequestOptions): Promise<O.ConditionHistoryResult> {
    return this.core.call('getConditionOrderHistory', params, ro);
  }

  /** GET /v1/private/order/trades. */
  getTrades(params: O.TradesParams = {}, ro?: RequestOptions): Promise<O.TradesResult> {
    return this.core.call('getTrades', params, ro);
  }

  /** GET /v1/private/order/strategy. */
  getStrategyOrder(params: O.StrategyOrderParams, ro?: RequestOptions): Promise<O.StrategyOrderResult> {
    return this.core.call('getStrategyOrder', params, ro);
  }

  // ---------------------------------------------------------------- changes

  /** POST /v1/private/order/cancel: by orderId or clientOrderId; answers the order record. */
  cancelOrder(params: O.CancelOrderParams, ro?: RequestOptions): Promise<O.CancelOrderResult> {
    return this.core.call('cancelOrder', params, ro);
  }

  /** POST /v1/private/order/move: `quantity` is the new total. */
  moveOrder(params: O.MoveOrderParams, ro?: RequestOptions): Promise<O.MoveOrderResult> {
    return this.core.call('moveOrder', params, ro);
  }

  /** POST /v1/private/order/batch-move. */
  batchMoveOrders(params: O.BatchMoveParams, ro?: RequestOptions): Promise<O.BatchMoveResult> {
    return this.core.call('batchMoveOrders', params, ro);
  }

  /** POST /v1/private/order/batch-cancel. */
  batchCancelOrders(params: O.BatchCancelParams, ro?: RequestOptions): Promise<O.BatchCancelResult> {
    return this.core.call('batchCancelOrders', params, ro);
  }

  /** POST /v1/private/order/batch-cancel-all: accepted now, finished asynchronously (ORDER_TRADE_UPDATE). */
  cancelAllOrders(params: O.CancelAllParams = {}, ro?: RequestOptions): Promise<O.CancelAllResult> {
    return this.core.call('cancelAllOrders', params, ro);
  }

  /** POST /v1/private/order/cancel-condition. */
  cancelConditionOrder(params: O.CancelConditionParams, ro?: RequestOptions): Promise<O.CancelConditionResult> {
    return this.core.call('cancelConditionOrder', params, ro);
  }

  // ---------------------------------------------------------------- every page

  /** Every order of the history matching `params`, page after page. */
  iterateOrderHistory(params: O.OrderHistoryParams = {}, ro?: RequestOptions): AsyncGenerator<OrderRecord, void, undefined> {
    return paginate((p) => this.getOrderHistory(p, ro), params);
  }

  iterateConditionOrderHistory(params: O.ConditionHistoryParams = {}, ro?: RequestOptions): AsyncGenerator<ConditionOrderRecord, void, undefined> {
    return paginate((p) => this.getConditionOrderHistory(p, ro), params);
  }

  iterateTrades(params: O.TradesParams = {}, ro?: RequestOptions): AsyncGenerator<TradeRecord, void, undefined> {
    return paginate((p) => this.getTrades(p, ro), params);
  }

  /**
   * Every open order, ascending by id, following the `lastOrderId` cursor (the last id of each
   * full page; ids are int64 and kept as text, never rounded). An answer the cursor cannot follow
   * (an id that is not a base-10 integer, a full page that does not move past the cursor) throws
   * MalformedResponseError naming it, rather than ending the iteration early.
   */
  async *iterateCurrentOrders(params: O.CurrentOrdersParams = {}, ro?: RequestOptions): AsyncGenerator<OrderRecord, void, undefined> {
    const limit = params.limit ?? 100;
    let cursor = params.lastOrderId === undefined ? undefined : String(params.lastOrderId);
    for (;;) {
      const r = await this.getCurrentOrders({ ...params, limit, lastOrderId: cursor }, ro);
      for (const o of r.list) yield o;
      if (r.list.length < limit) return;
      const i = r.list.length - 1;
      const next = (r.list[i] as OrderRecord).orderId;
      const field = `data.list[${i}].orderId`;
      if (!/^(?:0|[1-9]\d*)$/.test(next)) {
        throw new MalformedResponseError('getCurrentOrders', field, `is ${JSON.stringify(next.slice(0, 64))}, not a base-10 integer id: the lastOrderId cursor cannot follow it to the next page`);
      }
      if (cursor !== undefined && /^\d+$/.test(cursor) && BigInt(next) <= BigInt(cursor)) {
        throw new MalformedResponseError('getCurrentOrders', field, `is ${next}, not above the cursor ${cursor}: the next page would not move on`);
      }
      cursor = next;
    }
  }

  // ---------------------------------------------------------------- settling unknown outcomes

  /**
   * The earliest `createdAt` (venue ms) an order made by a request sent at local time `sentAt` can
   * carry: the send time on the venue's clock as the client knows it, less CREATED_AT_TOLERANCE_MS.
   * A client that never synced its clock (a JWT session, or autoTimeSync off) asks GET /v1/time
   * once here, without adopting the answer for signing; if that fails too, the local clock is used.
   */
  private async notBefore(sentAt: number): Promise<number> {
    const { clock } = this.core.opts;
    let offset = this.core.offset.offset;
    if (!this.core.offset.synced) {
      try {
        const t0 = clock.now();
        const { serverTime } = await this.core.call('getTime', undefined);
        offset = Math.round(serverTime - (t0 + clock.now()) / 2);
      } catch {
        // The lost answer may well be followed by more network trouble; the queries will say.
      }
    }
    return sentAt + offset - CREATED_AT_TOLERANCE_MS;
  }

  /**
   * The order this request made, by clientOrderId. The venue answers the latest order with that id,
   * which may be an older, final one (ids are unique only among live orders): taken only when
   * created since the request was sent and matching it, else not found (yet).
   */
  private async findOrder(want: OrderShape & { clientOrderId?: string }, notBefore: number): Promise<OrderRecord | undefined> {
    try {
      const rec = await this.core.call('getOrder', { symbol: want.symbol, clientOrderId: want.clientOrderId as string });
      return madeByRequest(rec, want, notBefore) ? rec : undefined;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The condition order this request made, by clientOrderId: live ones first, then history; same rule as findOrder. */
  private async findCondition(want: OrderShape & { clientOrderId?: string }, notBefore: number): Promise<ConditionOrderRecord | undefined> {
    const mine = (c: ConditionOrderRecord): boolean => c.clientOrderId === want.clientOrderId && madeByRequest(c, want, notBefore);
    const current = await this.core.call('getCurrentConditionOrders', { symbol: want.symbol });
    const hit = current.list.find(mine);
    if (hit !== undefined) return hit;
    const hist = await this.core.call('getConditionOrderHistory', { symbol: want.symbol, pageSize: 100 });
    return hist.list.find(mine);
  }

  /**
   * Queries until `probe` finds what the lost request made, with backoff, at most
   * `resolveAttempts` times. Not found: the original error if the venue said the request had no
   * effect, else UnknownOrderOutcomeError. Never resends the order.
   */
  private async settle<T>(
    original: unknown,
    clientOrderIds: string[],
    probe: () => Promise<T | undefined>,
    unresolved: () => string[] = () => clientOrderIds,
  ): Promise<T> {
    const log = this.core.log;
    // A venue that said the request had no effect (50001/50002 in its envelope) is taken at its
    // word only once the queries agree: said so at info, not as an unknown outcome.
    if (hadNoEffect(original)) log.info({ clientOrderIds, err: (original as Error).message }, 'the venue says the order request had no effect; confirming by clientOrderId');
    else log.warn({ clientOrderIds, err: (original as Error).message }, 'order request outcome unknown; settling by clientOrderId');
    let lastProbeError: unknown;
    for (let i = 0; i < this.safety.resolveAttempts; i++) {
      await sleep(this.core.opts.timers, backoffDelay(i, this.safety.resolveBackoff));
      try {
        const r = await probe();
        if (r !== undefined) {
          log.info({ clientOrderIds, attempts: i + 1 }, 'order request outcome settled: the venue has it');
          return r;
        }
      } catch (err) {
        if (err instanceof PerpkitError && !err.retryable) throw err;
        lastProbeError = err;
      }
    }
    if (hadNoEffect(original) && lastProbeError === undefined) throw original;
    const ctx = original instanceof PerpkitError ? { endpoint: original.endpoint, requestId: original.requestId, httpStatus: original.httpStatus, venueCode: original.venueCode } : {};
    throw new UnknownOrderOutcomeError(
      `outcome of the order request is unknown after ${this.safety.resolveAttempts} queries by clientOrderId (${(original as Error).message}); reconcile before acting again`,
      unresolved(),
      { ...ctx, cause: original },
    );
  }
}

export type { BatchResult };
