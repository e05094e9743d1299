/**
 * When condition orders fire: after any change of a symbol's book, last or mark price, once the
 * current command is done, every waiting condition whose trigger is met (triggers.ts) places its
 * normal order, in creation order.
 */
import { Dec } from '../../../core/decimal';
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { PlaceOrderInput } from '../inputs';
import type { EngineCondition } from '../model';
import type { Matching } from '../orders/matching';
import type { OrderIntake, PreparedOrder } from '../orders/prepare';
import { liveOrderIdOf } from '../orders/client-ids';
import type { EngineState, SymbolState } from '../state';
import { orderTimeInForce } from './conditions';
import { stopFires, trailingStep } from './triggers';
import { placedByEngine } from './taking';

/** priceProtect: a CONTRACT_PRICE trigger is held while last and mark differ by more than this. */
const PRICE_PROTECT_TRIGGER = new Dec('0.05');

export class ConditionFiring {
  private readonly queued = new Set<SymbolState>();

  constructor(
    private readonly s: EngineState,
    private readonly intake: OrderIntake,
    private readonly matching: Matching,
  ) {}

  /** Evaluates condition triggers of a symbol once the current operation is done. */
  queue(st: SymbolState): void {
    if (st.conditions.length === 0 || this.queued.has(st)) return;
    this.queued.add(st);
    this.s.work.push(() => {
      this.queued.delete(st);
      this.run(st);
    });
  }

  /** Fires every waiting condition whose trigger is met, in creation order. */
  private run(st: SymbolState): void {
    const mark = st.market.mark;
    const last = st.market.last === 0 ? mark : st.market.last;
    for (const c of [...st.conditions]) {
      if (c.status !== 'NEW') continue;
      const price = c.workingType === 'MARK_PRICE' ? mark : last;
      const fires = c.type === 'TRAILING_STOP' ? trailingStep(c, price) : stopFires(c, price);
      if (!fires) continue;
      if (c.priceProtect && c.workingType === 'CONTRACT_PRICE') {
        const dev = st.spec.tick.decOf(last).minus(st.spec.tick.decOf(mark)).abs().div(st.spec.tick.decOf(mark));
        if (dev.gt(PRICE_PROTECT_TRIGGER)) continue;
      }
      this.fire(c, st);
    }
  }

  /** A condition fires: it places its normal order (MARKET for *_MARKET and trailing, else LIMIT). */
  private fire(c: EngineCondition, st: SymbolState): void {
    const s = this.s;
    const acct = s.owner(c.userId);
    const spec = st.spec;
    const isLimit = c.type === 'STOP_LIMIT' || c.type === 'TAKE_PROFIT_LIMIT';
    const input: PlaceOrderInput = {
      symbol: spec.name,
      type: isLimit ? 'LIMIT' : 'MARKET',
      side: c.side,
      positionSide: c.positionSide,
      reduceOnly: c.reduceOnly,
      closePosition: c.closePosition,
      timeInForce: orderTimeInForce(c.timeInForce),
    };
    if (isLimit) input.price = spec.tick.fromUnits(c.price);
    if (!c.closePosition) input.quantity = spec.step.fromUnits(c.qty);
    const i = st.conditions.indexOf(c);
    if (i >= 0) st.conditions.splice(i, 1);
    c.triggerTime = s.clock.now();
    c.updateTime = c.triggerTime;
    let prepared: PreparedOrder;
    try {
      prepared = this.intake.prepare(acct, input);
    } catch (e) {
      if (!(e instanceof VenueError)) throw e;
      const status = e.code === ErrorCodes.REDUCE_ONLY_WOULD_INCREASE ? 'EXPIRED' : 'REJECTED';
      c.status = status;
      c.refusal = { code: e.code, message: e.message };
      // The reason first: an in-process venue hands it over with the condition's update (sim-venue.ts).
      s.emitRefused({ userId: c.userId, symbol: spec.name, conditionId: String(c.id), strategyId: c.strategyId ? String(c.strategyId) : '', strategySubId: subIdOf(s, c), status, code: e.code, message: e.message });
      s.emitCondition(c);
      if (c.strategyId) s.follow.strategyTouched(c.strategyId);
      return;
    }
    c.status = 'TRIGGERED';
    const p = prepared;
    // The order takes liquidity as a participant's own would (an l2 replay's levels around it).
    const order = placedByEngine(s, p, () => {
      // The condition's update (with the id its order will get) goes out before the order's own.
      c.triggeredOrderId = s.nextOrderId;
      s.emitCondition(c);
      // The order inherits the condition's clientOrderId, so a client can attribute it.
      if (liveOrderIdOf(acct, c.clientOrderId) === undefined) p.clientOrderId = c.clientOrderId;
      return this.matching.commit(p, { conditionId: c.id, strategyId: c.strategyId || undefined, closesPosition: c.timeInForce === 'GTE_GTC' });
    });
    if (c.strategyId) s.follow.conditionTriggered(c, order.id);
  }
}

/** The strategySubId of the sub-order a condition is (0 for a condition of its own). */
function subIdOf(s: EngineState, c: EngineCondition): number {
  if (!c.strategyId) return 0;
  return s.strategiesById.get(c.strategyId)?.subs.find((x) => x.conditionId === c.id)?.subId ?? 0;
}
