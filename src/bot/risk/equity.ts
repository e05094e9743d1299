/**
 * Account equity at the latest marks (wallet balance plus each position's mark-to-market PnL),
 * the reading the risk engine's loss limits are fed at every mark. The figures it is worked out
 * from are texts of records that change only on fills; they are parsed when they change. The
 * arithmetic is core/exact.ts's (Dec's digits on bigint): it runs at every mark of a backtest.
 */
import type { Dec } from '../../core/decimal';
import { ExactOfText, decOfExact, exactOfText, minus, negate, plus, times, type Exact } from '../../core/exact';
import { positionKey, type StateView } from '../state/cache';

export class EquityReading {
  private readonly wallet = new ExactOfText();
  private readonly positions = new Map<string, { quantity: ExactOfText; entry: ExactOfText }>();

  constructor(private readonly state: Pick<StateView, 'asset' | 'positions' | 'mark'>) {}

  /** Equity now, or undefined before the account is known. */
  read(): Dec | undefined {
    const e = this.readExact();
    return e === undefined ? undefined : decOfExact(e);
  }

  /**
   * `read` as an exact decimal (core/exact.ts: the digits Dec gives, on bigint), for the risk
   * engine, which reads equity at every mark.
   */
  readExact(): Exact | undefined {
    const asset = this.state.asset();
    if (asset === undefined) return undefined;
    let equity = this.wallet.of(asset.walletBalance);
    for (const p of this.state.positions()) {
      const mark = this.state.mark(p.symbol)?.markPrice;
      if (mark === undefined) {
        equity = plus(equity, exactOfText(p.unrealizedPnl));
        continue;
      }
      const key = positionKey(p.symbol, p.positionSide);
      let texts = this.positions.get(key);
      if (texts === undefined) {
        texts = { quantity: new ExactOfText(), entry: new ExactOfText() };
        this.positions.set(key, texts);
      }
      const q = texts.quantity.of(p.quantity);
      equity = plus(equity, times(minus(exactOfText(mark), texts.entry.of(p.entryPrice)), p.positionSide === 'SHORT' ? negate(q) : q));
    }
    return equity;
  }
}
