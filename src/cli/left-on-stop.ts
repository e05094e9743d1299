/** What `perpkit run` and the demo print when a bot stops with something left on the venue. */
import type { LeftOnStop } from '../bot/stop';

/** One line: what a stop left on the venue. */
export function leftText(left: LeftOnStop): string {
  const pos = left.positions.map((p) => `${p.symbol} ${p.positionSide} ${p.quantity} @ ${p.entryPrice} (upnl ${p.unrealizedPnl})`);
  const orders = left.openOrders.map((o) => `${o.symbol} ${o.side} ${o.quantity} @ ${o.price}`);
  const conds = left.conditionOrders.map((c) => `${c.symbol} ${c.side} ${c.type} ${c.quantity} at ${c.stopPrice}`);
  const flat = left.flattened === undefined ? '' : left.flattened ? '; positions flattened' : '; flattening did NOT close every position';
  const err = left.error === undefined ? '' : ` (venue not reachable: ${left.error}; the bot's last view)`;
  // A position whose stop-loss the stop cancelled (cancelOnStop) is said in capitals: nothing limits its loss now.
  const naked = (left.unprotected ?? []).map((u) => `; position ${u.symbol} ${u.positionSide} ${u.quantity} left WITHOUT a stop (cancelOnStop cancelled its stop-loss${u.cancelled.length === 1 ? '' : 's'} at ${u.cancelled.map((c) => c.stopPrice).join(', ')}; cancelOnStop: false keeps it, flattenOnStop: true closes the position)`);
  return `left on the venue: ${pos.length === 0 ? 'no position' : `positions ${pos.join(', ')}`}; ${orders.length === 0 ? 'no open order' : `${orders.length} open orders: ${orders.join(', ')}`}${conds.length === 0 ? '' : `; ${conds.length} condition orders: ${conds.join(', ')}`}${flat}${err}${naked.join('')}`;
}
