/**
 * Per-user request limits (PROTOCOL.md section 8): order requests per 10 s and all requests per
 * minute.
 *
 * Fixed windows aligned to the epoch (every user's minute starts at :00), as Binance-style venues
 * count: a client can predict exactly when its budget comes back, and `Retry-After` is simply the
 * time to the window's end. The price is that a burst straddling a boundary can reach twice the
 * limit in a short span, which a local exchange can live with. A refused request is not counted.
 */
import type { Clock } from '../../core/clock';

export interface LimitWindow {
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The all-requests window, reported in X-RateLimit-Limit / X-RateLimit-Remaining. */
  limit: number;
  remaining: number;
  /** Seconds until the refusing window ends (only when refused). */
  retryAfterSec: number;
  /** The order window when the request is an order request. */
  orders?: { limit: number; remaining: number };
}

interface Counter {
  windowStart: number;
  count: number;
}

class WindowCounter {
  private readonly counts = new Map<string, Counter>();

  constructor(readonly w: LimitWindow) {}

  private current(userId: string, now: number): Counter {
    const start = now - (now % this.w.windowMs);
    let c = this.counts.get(userId);
    if (!c || c.windowStart !== start) {
      c = { windowStart: start, count: 0 };
      this.counts.set(userId, c);
    }
    return c;
  }

  peek(userId: string, now: number): Counter {
    return this.current(userId, now);
  }

  retryAfterSec(c: Counter, now: number): number {
    return Math.max(1, Math.ceil((c.windowStart + this.w.windowMs - now) / 1000));
  }

  /** Drops counters of past windows so idle users cost nothing. */
  sweep(now: number): void {
    for (const [k, c] of this.counts) if (c.windowStart + this.w.windowMs <= now) this.counts.delete(k);
  }
}

export class RateLimiter {
  private readonly all: WindowCounter;
  private readonly orders: WindowCounter;

  constructor(
    private readonly clock: Clock,
    limits: { ordersPer10s: number; requestsPerMinute: number },
  ) {
    this.all = new WindowCounter({ limit: limits.requestsPerMinute, windowMs: 60_000 });
    this.orders = new WindowCounter({ limit: limits.ordersPer10s, windowMs: 10_000 });
  }

  /** Counts one request of the user, or refuses it (then nothing is counted). */
  take(userId: string, isOrder: boolean): RateDecision {
    const now = this.clock.now();
    const a = this.all.peek(userId, now);
    const o = isOrder ? this.orders.peek(userId, now) : undefined;
    const allFull = a.count >= this.all.w.limit;
    const ordersFull = o !== undefined && o.count >= this.orders.w.limit;
    if (allFull || ordersFull) {
      const retry = Math.max(allFull ? this.all.retryAfterSec(a, now) : 0, o && ordersFull ? this.orders.retryAfterSec(o, now) : 0);
      return {
        allowed: false,
        limit: this.all.w.limit,
        remaining: Math.max(0, this.all.w.limit - a.count),
        retryAfterSec: retry,
        orders: o && { limit: this.orders.w.limit, remaining: Math.max(0, this.orders.w.limit - o.count) },
      };
    }
    a.count++;
    if (o) o.count++;
    return {
      allowed: true,
      limit: this.all.w.limit,
      remaining: this.all.w.limit - a.count,
      retryAfterSec: 0,
      orders: o && { limit: this.orders.w.limit, remaining: this.orders.w.limit - o.count },
    };
  }

  sweep(): void {
    const now = this.clock.now();
    this.all.sweep(now);
    this.orders.sweep(now);
  }
}
