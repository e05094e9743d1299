/** The market side of a symbol: mark and index price, the book's depth and the market summary. */
import { formatDec } from '../../../core/decimal';
import type { Side } from '../../../core/enums';
import { ErrorCodes, VenueError } from '../../../core/errors';
import { ASK, BID } from '../book/order-book';
import { ticksOf } from '../orders/prepare';
import type { EngineState, SymbolState } from '../state';

export class Market {
  constructor(private readonly s: EngineState) {}

  /** Sets mark (and index) price; triggers, trailing stops and liquidation checks follow. */
  setMarkPrice(symbol: string, markPrice: string, indexPrice?: string): void {
    const s = this.s;
    const st = s.sym(symbol);
    const mark = ticksOf(st.spec, markPrice, 'markPrice');
    const index = indexPrice === undefined ? mark : ticksOf(st.spec, indexPrice, 'indexPrice');
    st.market.mark = mark;
    st.market.index = index;
    s.out.push({
      kind: 'markPrice',
      symbol: st.spec.name,
      time: s.clock.now(),
      markPrice: st.spec.tick.fromUnits(mark),
      indexPrice: st.spec.tick.fromUnits(index),
      fundingRate: this.rateTextOf(st),
      nextFundingTime: st.market.nextFundingTime,
    });
    s.follow.marketMoved(st);
    s.follow.marginMoved(st);
  }

  /**
   * A trade of the rest of the market that reached no order in this book (the `l2` replay: a
   * recorded trade is matched against the participants' queues outside the engine, tape.ts):
   * the last price moves to it, so conditions on last price (CONTRACT_PRICE stops, take-profits,
   * trailing stops) follow the market as they do when a trade is re-enacted in the book, and the
   * public trade stream shows it (`quantity` steps, 0: the trade was all participants' fills, which
   * came out as trades of their own). No account or position changes.
   */
  marketTrade(symbol: string, price: string, quantity: string, side: Side): void {
    const s = this.s;
    const st = s.sym(symbol);
    const ticks = ticksOf(st.spec, price, 'price');
    const steps = st.spec.step.toUnits(quantity);
    if (steps === undefined || steps < 0) throw new VenueError(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `quantity ${quantity} is not a multiple of the step size ${st.spec.step.size} of ${st.spec.name}`, 'quantity');
    st.market.last = ticks;
    if (steps > 0) {
      const tradeNo = s.nextTradeId++;
      s.out.push({ kind: 'trade', symbol: st.spec.name, time: s.clock.now(), tradeId: String(tradeNo), price: st.spec.tick.fromUnits(ticks), quantity: st.spec.step.fromUnits(steps), side });
    }
    s.follow.marketMoved(st);
  }

  /** True when conditions wait on the symbol (a market trade may fire them). */
  conditionsWait(symbol: string): boolean {
    return this.s.sym(symbol).conditions.length > 0;
  }

  private rateTextOf(st: SymbolState): string {
    const r = st.market.fundingRate;
    if (st.rateText === undefined || st.rateText.of !== r) st.rateText = { of: r, text: formatDec(r) };
    return st.rateText.text;
  }

  depth(symbol: string, limit: number): { bids: Array<[string, string]>; asks: Array<[string, string]>; lastUpdateTime: number } {
    const st = this.s.sym(symbol);
    const f = (lv: Array<[number, number]>): Array<[string, string]> => lv.map(([p, q]) => [st.spec.tick.fromUnits(p), st.spec.step.fromUnits(q)]);
    return { bids: f(st.book.depth(BID, limit)), asks: f(st.book.depth(ASK, limit)), lastUpdateTime: this.s.clock.now() };
  }

  marketState(symbol: string): { markPrice: string; indexPrice: string; lastPrice: string; fundingRate: string; nextFundingTime: number; bestBid: string; bestAsk: string } {
    const st = this.s.sym(symbol);
    const t = st.spec.tick;
    const bb = st.book.bestPrice(BID);
    const ba = st.book.bestPrice(ASK);
    return {
      markPrice: t.fromUnits(st.market.mark),
      indexPrice: t.fromUnits(st.market.index),
      lastPrice: st.market.last === 0 ? '0' : t.fromUnits(st.market.last),
      fundingRate: formatDec(st.market.fundingRate),
      nextFundingTime: st.market.nextFundingTime,
      bestBid: bb === 0 ? '0' : t.fromUnits(bb),
      bestAsk: ba === 0 ? '0' : t.fromUnits(ba),
    };
  }
}
