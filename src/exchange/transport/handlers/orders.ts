/** Orders resource: each handler maps the validated request onto one core command or engine query. */
import { conditionStatusFromCode, orderStatusFromCode } from '../../../core/enums';
import type { BatchItem, BatchResult, BatchResultItem } from '../../../protocol/rest/common';
import type { ConditionOrderRecord, OrderRecord, StrategyOrderRecord } from '../../../protocol/records';
import { userOf, type HandlerMap } from './context';

/**
 * Runs the valid items of a batch as one command and puts the answers back in submission order,
 * next to the items the validator already refused.
 */
async function runBatch<T>(items: BatchItem<T>[], clientIdOf: (v: T) => string, run: (values: T[]) => Promise<BatchResult>): Promise<BatchResult> {
  const valid: T[] = [];
  for (const it of items) if (it.ok) valid.push(it.value);
  const answered = valid.length > 0 ? (await run(valid)).results : [];
  let next = 0;
  const results: BatchResultItem[] = items.map((it, index) => {
    if (!it.ok) return { index, success: false, code: it.error.code, message: it.error.message, orderId: '', clientOrderId: it.clientOrderId ?? '', status: '' };
    const r = answered[next++];
    return { ...r, index, clientOrderId: r.clientOrderId || clientIdOf(it.value) };
  });
  const successCount = results.filter((r) => r.success).length;
  return { successCount, failedCount: results.length - successCount, results };
}

/**
 * The engine's cursor for an int64 `lastOrderId` (base-10 text). The engine numbers orders with a
 * safe-integer counter, so a cursor above 2^53-1 is past every id it has, exactly as 2^53-1 is.
 */
function engineCursor(lastOrderId: string | undefined): number | undefined {
  if (lastOrderId === undefined) return undefined;
  const b = BigInt(lastOrderId);
  return b > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(b);
}

export const orderHandlers = {
  placeOrder: async (ctx, req) => {
    const o = await ctx.deps.core.execute<OrderRecord>({ k: 'placeOrder', userId: userOf(ctx), input: req });
    return { orderId: o.orderId, clientOrderId: o.clientOrderId, status: o.status, timestamp: o.createdAt };
  },
  batchPlaceOrders: (ctx, req) =>
    runBatch(req.orders, (v) => v.clientOrderId ?? '', (inputs) => ctx.deps.core.execute<BatchResult>({ k: 'batchPlace', userId: userOf(ctx), inputs })),
  placeConditionOrder: async (ctx, req) => {
    const c = await ctx.deps.core.execute<ConditionOrderRecord>({ k: 'placeCondition', userId: userOf(ctx), input: req });
    return { conditionId: c.conditionId, conditionStatus: c.conditionStatus, timestamp: c.createdAt };
  },
  placeStrategyOrder: async (ctx, req) => {
    const s = await ctx.deps.core.execute<StrategyOrderRecord>({ k: 'placeStrategy', userId: userOf(ctx), input: req });
    return { strategyId: s.strategyId, strategyStatus: s.strategyStatus, timestamp: s.bookTime };
  },
  getOrder: (ctx, req) => ctx.deps.core.engine.queryOrder(userOf(ctx), req),
  getCurrentOrders: (ctx, req) => ctx.deps.core.engine.currentOrders(userOf(ctx), { ...req, lastOrderId: engineCursor(req.lastOrderId) }),
  getCurrentConditionOrders: (ctx, req) => ctx.deps.core.engine.currentConditions(userOf(ctx), req.symbol),
  getOrderHistory: (ctx, req) =>
    ctx.deps.core.engine.orderHistory(userOf(ctx), {
      symbol: req.symbol,
      orderId: req.orderId,
      clientOrderId: req.clientOrderId,
      type: req.type === undefined ? undefined : req.type === 1 ? 'LIMIT' : 'MARKET',
      side: req.side === undefined ? undefined : req.side === 1 ? 'BUY' : 'SELL',
      status: req.status === undefined ? undefined : orderStatusFromCode(req.status),
      startTime: req.startTime,
      endTime: req.endTime,
      page: req.page,
      pageSize: req.pageSize,
    }),
  getConditionOrderHistory: (ctx, req) =>
    ctx.deps.core.engine.conditionHistory(userOf(ctx), {
      symbol: req.symbol,
      side: req.side === undefined ? undefined : req.side === 1 ? 'BUY' : 'SELL',
      status: req.status === undefined ? undefined : conditionStatusFromCode(req.status),
      startTime: req.startTime,
      endTime: req.endTime,
      page: req.page,
      pageSize: req.pageSize,
    }),
  getTrades: (ctx, req) => ctx.deps.core.engine.tradeHistory(userOf(ctx), req),
  cancelOrder: (ctx, req) => ctx.deps.core.execute<OrderRecord>({ k: 'cancelOrder', userId: userOf(ctx), ref: req }),
  moveOrder: (ctx, req) => ctx.deps.core.execute<OrderRecord>({ k: 'moveOrder', userId: userOf(ctx), input: req }),
  batchMoveOrders: (ctx, req) =>
    runBatch(req.orders, () => '', (inputs) => ctx.deps.core.execute<BatchResult>({ k: 'batchMove', userId: userOf(ctx), symbol: req.symbol, inputs })),
  batchCancelOrders: (ctx, req) =>
    runBatch(req.orders, (v) => v.clientOrderId ?? '', (refs) => ctx.deps.core.execute<BatchResult>({ k: 'batchCancel', userId: userOf(ctx), refs })),
  cancelAllOrders: async (ctx, req) => {
    await ctx.deps.core.execute({ k: 'cancelAll', userId: userOf(ctx), input: req });
    return { accepted: true as const };
  },
  cancelConditionOrder: (ctx, req) =>
    ctx.deps.core.execute<ConditionOrderRecord>({ k: 'cancelCondition', userId: userOf(ctx), symbol: req.symbol, conditionId: req.conditionId }),
  getStrategyOrder: (ctx, req) => ctx.deps.core.engine.strategy(userOf(ctx), req.strategyId),
} satisfies Partial<HandlerMap>;
