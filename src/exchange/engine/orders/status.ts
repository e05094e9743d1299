/**
 * The order-status transitions of the engine, in one table: every status change of a normal
 * order goes through `transition`, which refuses a move the table does not list (an engine bug,
 * never a user error). An order is created NEW; the final statuses have no way out.
 *
 *   NEW              -> PARTIALLY_FILLED | FILLED | CANCELED | EXPIRED | REJECTED
 *   PARTIALLY_FILLED -> PARTIALLY_FILLED | FILLED | CANCELED | EXPIRED
 *   FILLED, CANCELED, EXPIRED, REJECTED: final
 *
 * REJECTED is only reachable from NEW: a makerOnly order that would take liquidity is refused
 * before it rests or trades. PARTIALLY_FILLED -> PARTIALLY_FILLED is a further partial fill.
 */
import type { OrderStatus } from '../../../core/enums';
import type { EngineOrder } from '../model';

export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  NEW: ['PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'EXPIRED', 'REJECTED'],
  PARTIALLY_FILLED: ['PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'EXPIRED'],
  FILLED: [],
  CANCELED: [],
  EXPIRED: [],
  REJECTED: [],
};

/** Whether the table allows an order in `from` to move to `to`. */
export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

/** Moves an order to a new status; throws (an internal error) on a move the table does not allow. */
export function transition(o: EngineOrder, to: OrderStatus): void {
  if (!canTransition(o.status, to)) throw new Error(`engine: order ${o.id} cannot move from ${o.status} to ${to}`);
  o.status = to;
}
