/**
 * The price band of a quiet trade (run.ts, `skipQuietTrades`): a recorded trade priced strictly
 * between the participant's best bid and ask (at either it could fill) and not through a tape
 * quote (a trade at a quote's price leaves it; one through it removes it: TapeReplayer.passTrade)
 * changes nothing but the last price, so the driver passes it without building its event.
 */
import { Grid } from '../../core/values';
import type { TapeReplayer } from '../../exchange/engine/market/tape';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { RestingOrders } from './resting-orders';

export class QuietBounds {
  /** Per symbol, with the versions of the participant's orders and the tape quotes it was worked out at. */
  private readonly cache = new Map<string, { own: number; tape: number; lo: number; hi: number }>();
  private readonly grids = new Map<string, Grid>();

  constructor(
    symbols: readonly SymbolSpec[],
    private readonly resting: RestingOrders,
    private readonly replayer: TapeReplayer,
  ) {
    for (const s of symbols) this.grids.set(s.symbol, new Grid(s.tickSize));
  }

  /** Sets lo[si] and hi[si] to the ticks [lo, hi] (inclusive) of a quiet trade on `symbol` (an empty band when none is). */
  fill(symbol: string, si: number, lo: number[], hi: number[]): void {
    // Kept per symbol until the participant's orders or the tape quotes change.
    let c = this.cache.get(symbol);
    if (c === undefined || c.own !== this.resting.version || c.tape !== this.replayer.quoteVersion) {
      c = { own: this.resting.version, tape: this.replayer.quoteVersion, lo: Infinity, hi: -Infinity }; // never quiet unless worked out below
      this.cache.set(symbol, c);
      const grid = this.grids.get(symbol);
      if (grid !== undefined) {
        const own = this.resting.bestOf(symbol);
        const tape = this.replayer.quotePrices(symbol);
        const ticks = (s: string | undefined, none: number): number | undefined => (s === undefined ? none : grid.toUnits(s));
        const ownBid = ticks(own.bid, -Infinity);
        const ownAsk = ticks(own.ask, Infinity);
        const tapeBid = ticks(tape.bid, -Infinity);
        const tapeAsk = ticks(tape.ask, Infinity);
        if (ownBid !== undefined && ownAsk !== undefined && tapeBid !== undefined && tapeAsk !== undefined) {
          c.lo = Math.max(ownBid + 1, tapeBid);
          c.hi = Math.min(ownAsk - 1, tapeAsk);
        }
      }
    }
    lo[si] = c.lo;
    hi[si] = c.hi;
  }
}
