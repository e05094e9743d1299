/**
 * Queue-position models for resting orders replayed against a recorded L2 book (the tape's `l2`
 * book mode). A participant's order at price p joins behind the recorded quantity at p (`ahead`,
 * in steps of the symbol: the market's queue, never the participant's own orders, which the
 * recording does not hold). Recorded trades at p consume the queue ahead first; what a trade
 * leaves past the queue reaches the order. Recorded decreases of the level that trades do not
 * explain are cancellations; the models differ in where those cancellations sit:
 *
 * - `none`: no queue (fill at touch): every trade at p reaches the order. An upper bound.
 * - `risk-averse`: only trades advance the order; a cancellation is always behind it. The queue
 *   ahead is capped by the level's recorded quantity (it cannot hold more than the level).
 * - `probabilistic`: a decrease of `d` steps not explained by trades is split between the queue
 *   ahead and behind the order: the share behind is f(back) / (f(back) + f(ahead)), with
 *   f(x) = x^n (`shape: power`, n = `power`, default 2) or f(x) = ln(1 + x) (`shape: log`), as in
 *   the queue-position literature (and hftbacktest's probability models). A share larger than
 *   what is behind comes out of the queue ahead. Deterministic: an expectation, not a draw.
 *
 * Quantities are floating-point steps: a queue position is an estimate, not money; what fills is
 * always a whole number of steps (the caller floors it).
 */

export type QueueModelName = 'none' | 'risk-averse' | 'probabilistic';
export const QUEUE_MODELS: readonly QueueModelName[] = ['none', 'risk-averse', 'probabilistic'];

export interface QueueOptions {
  model: QueueModelName;
  /** `probabilistic`: the shape of f. Default `power`. */
  shape?: 'power' | 'log';
  /** `probabilistic` with `shape: power`: the exponent n of f(x) = x^n. Default 2. */
  power?: number;
}

/** One resting order's place in its level's queue. */
export interface QueuePos {
  /** Price the position is for, ticks (an amended price starts a new position). */
  ticks: number;
  /** The market's quantity ahead of the order, steps. */
  ahead: number;
  /** Recorded trade quantity at the level since its last depth change, steps (`probabilistic`). */
  traded: number;
}

export interface QueueModel {
  readonly name: QueueModelName;
  /** The position of an order joining a level that holds `levelQty` steps. */
  join(ticks: number, levelQty: number): QueuePos;
  /** A recorded trade of `qty` steps at the order's price: advances it; returns the part past the queue. */
  trade(pos: QueuePos, qty: number): number;
  /** The level's recorded quantity went from `prev` to `next` steps. */
  depth(pos: QueuePos, prev: number, next: number): void;
}

class NoQueue implements QueueModel {
  readonly name = 'none' as const;
  join(ticks: number): QueuePos {
    return { ticks, ahead: 0, traded: 0 };
  }
  trade(_pos: QueuePos, qty: number): number {
    return qty;
  }
  depth(): void {
    // Fill at touch: nothing is ever ahead.
  }
}

class RiskAverseQueue implements QueueModel {
  readonly name: QueueModelName = 'risk-averse';
  join(ticks: number, levelQty: number): QueuePos {
    return { ticks, ahead: Math.max(0, levelQty), traded: 0 };
  }
  trade(pos: QueuePos, qty: number): number {
    const past = qty - pos.ahead;
    pos.ahead = Math.max(0, pos.ahead - qty);
    pos.traded += qty;
    return Math.max(0, past);
  }
  depth(pos: QueuePos, _prev: number, next: number): void {
    pos.traded = 0;
    pos.ahead = Math.min(pos.ahead, Math.max(0, next));
  }
}

class ProbabilisticQueue extends RiskAverseQueue {
  override readonly name: QueueModelName = 'probabilistic';
  constructor(private readonly f: (x: number) => number) {
    super();
  }
  override depth(pos: QueuePos, prev: number, next: number): void {
    const cancelled = prev - next - pos.traded;
    pos.traded = 0;
    if (cancelled > 0 && pos.ahead > 0) {
      const back = Math.max(0, prev - pos.ahead);
      const fa = this.f(pos.ahead);
      const fb = this.f(back);
      const shareBack = fa + fb > 0 ? fb / (fa + fb) : 0;
      const fromBack = shareBack * cancelled;
      // What the back cannot hold came from ahead too.
      const over = Math.max(0, fromBack - back);
      pos.ahead -= (1 - shareBack) * cancelled + over;
    }
    pos.ahead = Math.min(Math.max(0, pos.ahead), Math.max(0, next));
  }
}

/** The model an option names; throws a RangeError naming the known ones. */
export function queueModel(opts: QueueOptions): QueueModel {
  switch (opts.model) {
    case 'none':
      return new NoQueue();
    case 'risk-averse':
      return new RiskAverseQueue();
    case 'probabilistic': {
      if (opts.shape === 'log') return new ProbabilisticQueue((x) => Math.log1p(x));
      const n = opts.power ?? 2;
      if (!(n > 0 && Number.isFinite(n))) throw new RangeError(`queue power must be a positive number, got ${n}`);
      return new ProbabilisticQueue((x) => Math.pow(x, n));
    }
    default:
      throw new RangeError(`unknown queue model '${String(opts.model)}'; known: ${QUEUE_MODELS.join(', ')}`);
  }
}
