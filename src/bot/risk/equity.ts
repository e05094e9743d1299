/**
 * Account equity at the latest marks (wallet balance plus each position's mark-to-market PnL),
 * the reading the risk engine's loss limits are fed at every mark. The figures it is worked out
 * from are texts of records that change only on fills; their Decs are parsed when they change.
 */
import { Dec, DecOfText } from '../../core/decimal';
import { positionKey, type StateView } from '../state/cache';

export class EquityReading {
  private readonly wallet = new DecOfText();
  private readonly positions = new Map<string, { quantity: DecOfText; entry: DecOfText }>();

  constructor(private readonly state: Pick<StateView, 'asset' | 'positions' | 'mark'>) {}

  /** Equity now, or undefined before the account is known. */
  read(): Dec | undefined {
    const asset = this.state.asset();
    if (asset === undefined) return undefined;
    let equity = this.wallet.of(asset.walletBalance);
    for (const p of this.state.positions()) {
      const mark = this.state.mark(p.symbol)?.markPrice;
      if (mark === undefined) {
        equity = equity.plus(p.unrealizedPnl);
        continue;
      }
      const key = positionKey(p.symbol, p.positionSide);
      let texts = this.positions.get(key);
      if (texts === undefined) {
        texts = { quantity: new DecOfText(), entry: new DecOfText() };
        this.positions.set(key, texts);
      }
      const q = texts.quantity.of(p.quantity);
      equity = equity.plus(new Dec(mark).minus(texts.entry.of(p.entryPrice)).times(p.positionSide === 'SHORT' ? q.negated() : q));
    }
    return equity;
  }
}
