/** The market side of a symbol: mark and index price, the book's depth and the market summary. */
import { formatDec } from '../../../core/decimal';
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
