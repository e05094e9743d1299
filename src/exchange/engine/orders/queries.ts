/** Finding orders by id or clientOrderId, and the order and trade history queries. */
import { numericId } from '../../../core/ids';
import type { OrderStatus, Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import type { OrderRecord, TradeRecord } from '../../../protocol/records';
import type { OrderRef } from '../inputs';
import type { EngineAccount, EngineOrder } from '../model';
import { orderRecord } from '../records';
import { fail, page, pageOf, type EngineState } from '../state';
import { ASK, BID } from '../book/order-book';
import { orderIdByClientId } from './client-ids';

export interface OrderHistoryFilter {
  symbol?: string;
  orderId?: string;
  clientOrderId?: string;
  type?: 'LIMIT' | 'MARKET';
  side?: Side;
  status?: OrderStatus;
  startTime?: number;
  endTime?: number;
  page?: number;
  pageSize?: number;
}

/** A resting order as the tape's queue model sees it: price in ticks, remaining quantity in steps. */
export interface RestingOrder {
  orderId: number;
  userId: string;
  ticks: number;
  left: number;
}

export class OrderQueries {
  constructor(private readonly s: EngineState) {}

  find(acct: EngineAccount, ref: OrderRef): EngineOrder {
    const st = this.s.sym(ref.symbol);
    if (ref.orderId === undefined && ref.clientOrderId === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'orderId or clientOrderId is required', 'orderId');
    let o: EngineOrder | undefined;
    if (ref.orderId !== undefined) {
      o = this.s.ordersById.get(numericId(ref.orderId));
      if (o && ref.clientOrderId !== undefined && o.clientOrderId !== ref.clientOrderId) o = undefined;
    } else if (ref.clientOrderId !== undefined) {
      const id = orderIdByClientId(this.s, acct, ref.clientOrderId);
      o = id === undefined ? undefined : this.s.ordersById.get(id);
    }
    // Another user's order behaves exactly as one that does not exist.
    if (!o || o.userId !== acct.userId || o.symbol !== st.spec) {
      // Both ids given: name both and the rule, or an order the caller can see looks missing.
      const which = ref.orderId === undefined ? `clientOrderId ${ref.clientOrderId}`
        : ref.clientOrderId === undefined ? `orderId ${ref.orderId}`
        : `no order has both orderId ${ref.orderId} and clientOrderId ${ref.clientOrderId} (given both, both must match)`;
      fail(ErrorCodes.ORDER_NOT_FOUND, `order not found: ${which} on ${ref.symbol}`, ref.orderId !== undefined ? 'orderId' : 'clientOrderId');
    }
    return o;
  }

  queryOrder(userId: string, ref: OrderRef): OrderRecord {
    return orderRecord(this.find(this.s.acct(userId), ref));
  }

  /** Status and executed quantity of an order, as `queryOrder` has them, without the whole record. */
  orderProgress(userId: string, ref: OrderRef): { status: OrderStatus; executedQty: string } {
    const o = this.find(this.s.acct(userId), ref);
    return { status: o.status, executedQty: o.symbol.step.fromUnits(o.executed) };
  }

  /**
   * The resting orders on one side of `symbol` priced at `limitTicks` or better, best first and in
   * time priority within a price (what a taker priced at `limitTicks` would meet), in ticks and steps;
   * with `exactly`, only those at `limitTicks`.
   */
  restingThrough(symbol: string, side: Side, limitTicks: number, exactly = false): RestingOrder[] {
    const book = this.s.sym(symbol).book;
    const bookSide = side === 'BUY' ? BID : ASK;
    const ids = exactly ? book.idsAt(bookSide, limitTicks) : book.idsThrough(bookSide, limitTicks);
    const out: RestingOrder[] = [];
    for (const id of ids) {
      const o = this.s.ordersById.get(id) as EngineOrder;
      out.push({ orderId: id, userId: o.userId, ticks: o.price, left: o.qty - o.executed });
    }
    return out;
  }

  /** Open orders, ascending by id, after the `lastOrderId` cursor. */
  currentOrders(userId: string, q: { symbol?: string; limit?: number; lastOrderId?: number }): { list: OrderRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (q.symbol !== undefined) this.s.sym(q.symbol);
    const all = [...acct.openOrders.values()].filter((o) => q.symbol === undefined || o.symbol.name === q.symbol).sort((a, b) => a.id - b.id);
    const after = all.filter((o) => q.lastOrderId === undefined || o.id > q.lastOrderId);
    return { list: after.slice(0, q.limit ?? 100).map(orderRecord), total: all.length };
  }

  /** Every order of the user, newest first, filtered. */
  orderHistory(userId: string, f: OrderHistoryFilter): { list: OrderRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (f.symbol !== undefined) this.s.sym(f.symbol);
    const orders = this.s.ordersById;
    // Ended orders are read in place (peek) for the filter; records are made for the page only.
    const rows = acct.orders.filter((id) => {
      const o = orders.peek(id) as EngineOrder;
      return (
        (f.symbol === undefined || o.symbol.name === f.symbol) &&
        (f.orderId === undefined || String(o.id) === f.orderId) &&
        (f.clientOrderId === undefined || o.clientOrderId === f.clientOrderId) &&
        (f.type === undefined || o.type === f.type) &&
        (f.side === undefined || o.side === f.side) &&
        (f.status === undefined || o.status === f.status) &&
        (f.startTime === undefined || o.createdAt >= f.startTime) &&
        (f.endTime === undefined || o.createdAt <= f.endTime)
      );
    });
    return page(rows.reverse(), f.page, f.pageSize, (id) => orderRecord(orders.peek(id) as EngineOrder));
  }

  tradeHistory(userId: string, f: { symbol?: string; orderId?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: TradeRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (f.symbol !== undefined) this.s.sym(f.symbol);
    const t = acct.trades;
    return pageOf(
      t,
      (i) =>
        (f.symbol === undefined || t.symbol(i) === f.symbol) &&
        (f.orderId === undefined || t.orderId(i) === f.orderId) &&
        (f.startTime === undefined || t.createdAt(i) >= f.startTime) &&
        (f.endTime === undefined || t.createdAt(i) <= f.endTime),
      f.page,
      f.pageSize,
    );
  }
}
