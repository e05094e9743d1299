/**
 * Margin figures of an account: cross unrealized PnL, initial and maintenance margin, isolated
 * margins, what new orders may use, and the asset record. Reads state only.
 *
 * Whether an order's margin is covered is decided in integers (`covers`); the figures shown in
 * records (maintenance tiers, ratios) use exact decimals (core/exact.ts) over the positions'
 * integer money.
 */
import type { Dec } from '../../../core/decimal';
import { EX_ZERO, decOfExact, formatExact, minus, plus, type Exact } from '../../../core/exact';
import { exactOfUnits, formatUnits } from '../../../core/money-units';
import { MONEY_DP } from '../../../core/values';
import type { UserAssetRecord } from '../../../protocol/records';
import type { EngineAccount, EnginePosition } from '../model';
import * as pm from '../positions/position-math';
import type { EngineState } from '../state';
import { compareUnits, type MarginRate } from './margin-rate';

export interface CrossFigures {
  upnl: Exact;
  im: Exact;
  mm: Exact;
  isolated: Exact;
}

export class Margin {
  constructor(private readonly s: EngineState) {}

  /** Unrealized PnL of a position at its symbol's mark, in money units (exact). */
  upnlUnits(p: EnginePosition): bigint {
    const notional = p.symbol.notionalMoney(this.s.stateOf(p.symbol).market.mark, Math.abs(p.qty));
    return (p.qty < 0 ? -notional : notional) - p.cost;
  }

  /** Unrealized PnL, initial and maintenance margin summed over an account's cross positions. */
  crossFigures(a: EngineAccount): CrossFigures {
    let upnl = 0n;
    let im = EX_ZERO;
    let mm = EX_ZERO;
    let isolated = 0n;
    for (const p of a.positions.values()) {
      if (p.marginMode === 'ISOLATED') {
        isolated += p.isolatedMargin;
        continue;
      }
      upnl += this.upnlUnits(p);
      im = plus(im, pm.initialMargin(exactOfUnits(p.cost), this.s.settingsOf(a, p.symbol.name).leverage));
      mm = plus(mm, pm.maintenanceMargin(p.symbol, p.symbol.step.exactOf(p.qty), this.s.markExact(this.s.stateOf(p.symbol))));
    }
    return { upnl: exactOfUnits(upnl), im, mm, isolated: exactOfUnits(isolated) };
  }

  /** What new orders may use: wallet + cross uPnL - cross IM - isolated margins - frozen. */
  availableOf(a: EngineAccount): Dec {
    return decOfExact(this.available(a, this.crossFigures(a)));
  }

  private available(a: EngineAccount, f: CrossFigures): Exact {
    return minus(minus(minus(plus(exactOfUnits(a.wallet), f.upnl), f.im), f.isolated), exactOfUnits(a.frozen));
  }

  /**
   * Whether `availableOf(a)` is at least `required`, decided exactly in integers: with D the
   * product of the cross positions' leverages, available x D = (wallet - frozen - isolated +
   * cross uPnL) x D - sum |cost| x D / leverage, compared with required x D. `credit` (money
   * units) counts as available too: the margin an amended order already holds.
   */
  covers(a: EngineAccount, required: MarginRate, credit = 0n): boolean {
    let base = a.wallet - a.frozen + credit;
    let d = 1n;
    let imScaled = 0n;
    for (const p of a.positions.values()) {
      if (p.marginMode === 'ISOLATED') {
        base -= p.isolatedMargin;
        continue;
      }
      base += this.upnlUnits(p);
      const lev = BigInt(this.s.settingsOf(a, p.symbol.name).leverage);
      const cost = p.cost < 0n ? -p.cost : p.cost;
      // imScaled / d = sum |cost| / leverage so far; bring both to the new denominator d x lev.
      imScaled = imScaled * lev + cost * d;
      d *= lev;
    }
    const available = base * d - imScaled;
    return compareUnits(required, available, d) <= 0;
  }

  /** `f`: the account's cross figures, when the caller has them already. */
  assetOf(a: EngineAccount, f: CrossFigures = this.crossFigures(a)): UserAssetRecord {
    let isoUpnl = 0n;
    for (const p of a.positions.values()) if (p.marginMode === 'ISOLATED') isoUpnl += this.upnlUnits(p);
    return {
      userId: a.userId,
      assetType: 'USDT',
      walletBalance: formatUnits(a.wallet),
      frozenMargin: formatUnits(a.frozen),
      usedMargin: formatExact(plus(f.im, f.isolated), MONEY_DP, 'ceil'),
      availableBalance: formatExact(this.available(a, f), MONEY_DP, 'floor'),
      unrealizedPnl: formatExact(plus(f.upnl, exactOfUnits(isoUpnl)), MONEY_DP),
    };
  }

  /**
   * The wallet and unrealized PnL fields of `assetOf`, identical to them, without working out
   * margins (for an equity curve sampled often).
   */
  equityParts(a: EngineAccount): { walletBalance: string; unrealizedPnl: string } {
    let upnl = 0n;
    for (const p of a.positions.values()) upnl += this.upnlUnits(p);
    return { walletBalance: formatUnits(a.wallet), unrealizedPnl: formatUnits(upnl) };
  }
}
