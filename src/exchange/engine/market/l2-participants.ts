/**
 * The participants' resting orders as the L2 tape reads them (l2-tape.ts): the sink's resting
 * orders without the tape's own, best first and in time priority. Where the sink versions its
 * book (`bookVersion`), each side is read once per version and kept: most events come while the
 * participants' orders stand still, so a level update or quote takes the kept list (no list made
 * per call) and looks at the orders at its price.
 */
import type { RestingOrder } from '../orders/queries';

type Side = 'BUY' | 'SELL';

/** What the reading needs of the sink (the L2 tape's). */
export interface RestingOrdersSink {
  restingThrough(symbol: string, side: Side, limitTicks: number, exactly?: boolean): RestingOrder[];
  bookVersion?(symbol: string): number;
}

/** The participants' resting orders of one side of a symbol, as read at a book version. */
export interface SideOrders {
  version: number;
  orders: RestingOrder[];
}

const WHOLE_SIDE = (side: Side): number => (side === 'BUY' ? 0 : Number.MAX_SAFE_INTEGER);

export class ParticipantOrders {
  /** Per symbol, bids and asks as read at a book version. */
  private readonly sides = new Map<string, [SideOrders, SideOrders]>();

  constructor(
    private readonly sink: RestingOrdersSink,
    private readonly isTape: (userId: string) => boolean,
    /** Called before every read of the sink (the tape drops queue positions of orders gone then). */
    private readonly beforeRead: () => void,
  ) {}

  /** The orders on `side` at `ticks` (`exactly`) or priced at it or better. */
  through(symbol: string, side: Side, ticks: number, exactly: boolean): RestingOrder[] {
    const version = this.sink.bookVersion?.(symbol);
    if (version === undefined) return this.read(symbol, side, ticks, exactly);
    const buy = side === 'BUY';
    const all = this.cached(symbol, version, buy, !buy)[buy ? 0 : 1].orders;
    if (all.length === 0 || (!exactly && ticks === WHOLE_SIDE(side))) return all;
    const out: RestingOrder[] = [];
    for (const o of all) if (exactly ? o.ticks === ticks : buy ? o.ticks >= ticks : o.ticks <= ticks) out.push(o);
    return out;
  }

  /** The whole side. */
  side(symbol: string, side: Side): RestingOrder[] {
    return this.through(symbol, side, WHOLE_SIDE(side), false);
  }

  /**
   * Orders for a level update at one price: the whole side where the book is versioned (the
   * caller skips the other prices), else those at the price.
   */
  at(symbol: string, side: Side, ticks: number): RestingOrder[] {
    return this.sink.bookVersion === undefined ? this.through(symbol, side, ticks, true) : this.side(symbol, side);
  }

  /** Both whole sides (kept, not copied) at one reading of the book version; undefined where the book is not versioned. */
  both(symbol: string): readonly [Readonly<SideOrders>, Readonly<SideOrders>] | undefined {
    const version = this.sink.bookVersion?.(symbol);
    return version === undefined ? undefined : this.cached(symbol, version, true, true);
  }

  /** The symbol's kept sides, the bids and/or asks read again when the book's version moved. */
  private cached(symbol: string, version: number, bids: boolean, asks: boolean): [SideOrders, SideOrders] {
    let c = this.sides.get(symbol);
    if (c === undefined) {
      c = [{ version: -1, orders: [] }, { version: -1, orders: [] }];
      this.sides.set(symbol, c);
    }
    if (bids && c[0].version !== version) {
      c[0].orders = this.read(symbol, 'BUY', 0, false);
      c[0].version = version;
    }
    if (asks && c[1].version !== version) {
      c[1].orders = this.read(symbol, 'SELL', Number.MAX_SAFE_INTEGER, false);
      c[1].version = version;
    }
    return c;
  }

  private read(symbol: string, side: Side, ticks: number, exactly: boolean): RestingOrder[] {
    this.beforeRead();
    const all = this.sink.restingThrough(symbol, side, ticks, exactly);
    if (all.length === 0) return all;
    const out: RestingOrder[] = [];
    for (const o of all) if (!this.isTape(o.userId)) out.push(o);
    return out;
  }
}
