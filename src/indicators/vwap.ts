/**
 * Volume-weighted average price of trades, exact: the sums of price x quantity and of quantity
 * are kept as decimals, so the VWAP of a day of trades is the same to the last digit live, in a
 * backtest and on paper, and can be put on a tick grid without a float in between.
 *
 * Anchored: cumulative since the start, or since the start of the current session when
 * `sessionMs` is given (sessions aligned to the epoch: 86_400_000 restarts it at 00:00 UTC).
 */
import { Dec } from '../core/decimal';

export class Vwap {
  private pq = new Dec(0);
  private q = new Dec(0);
  private session: number | undefined;
  private current: Dec | undefined;

  constructor(readonly sessionMs?: number) {
    if (sessionMs !== undefined && (!Number.isInteger(sessionMs) || sessionMs < 1)) throw new RangeError(`VWAP session must be a whole number of ms, at least 1, got ${sessionMs}`);
  }

  /**
   * Adds a trade (price and quantity as decimal strings or Dec; `time` in epoch ms when sessions
   * are used); returns the VWAP so far. A trade of quantity 0 changes nothing. With sessions, a
   * late trade of an earlier session is ignored (as `TimeBars` ignores one): a session, once
   * over, is never reopened, and the current one is not restarted by it.
   */
  update(price: Dec | string, quantity: Dec | string, time = 0): Dec | undefined {
    const p = decimalOf(price, 'price');
    const q = decimalOf(quantity, 'quantity');
    if (!p.isFinite() || p.lte(0) || !q.isFinite() || q.lt(0)) throw new RangeError(`VWAP trade must have a positive price and a non-negative quantity, got ${p.toString()} x ${q.toString()}`);
    if (this.sessionMs !== undefined) {
      if (!Number.isFinite(time)) throw new RangeError(`VWAP trade time must be a finite number of epoch ms, got ${time}`);
      const s = Math.floor(time / this.sessionMs);
      if (this.session !== undefined && s < this.session) return this.current;
      if (this.session !== undefined && s !== this.session) this.reset();
      this.session = s;
    }
    if (q.isZero()) return this.current;
    this.pq = this.pq.plus(p.times(q));
    this.q = this.q.plus(q);
    this.current = this.pq.div(this.q);
    return this.current;
  }

  /** Starts over (a new session). */
  reset(): void {
    this.pq = new Dec(0);
    this.q = new Dec(0);
    this.current = undefined;
  }

  get value(): Dec | undefined {
    return this.current;
  }

  /** Quantity traded in the current session. */
  get volume(): Dec {
    return this.q;
  }

  get ready(): boolean {
    return this.current !== undefined;
  }
}

/** A trade's price or quantity as Dec: a decimal string or Dec, else a RangeError naming it (decimal.js said only "Invalid argument"). */
function decimalOf(v: Dec | string, what: string): Dec {
  try {
    return new Dec(v);
  } catch {
    throw new RangeError(`VWAP trade ${what} must be a decimal string or Dec, got ${typeof v === 'string' ? JSON.stringify(v) : `${String(v)} (${typeof v})`}`);
  }
}
