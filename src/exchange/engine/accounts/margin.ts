/**
 * Margin figures of an account: cross unrealized PnL, initial and maintenance margin, isolated
 * margins, what new orders may use, and the asset record. Reads state only.
 */
import type { Dec } from '../../../core/decimal';
import { decOfUnits, formatUnits } from '../../../core/money-units';
import type { UserAssetRecord } from '../../../protocol/records';
import type { EngineAccount } from '../model';
import * as pm from '../positions/position-math';
import { money } from '../records';
import { ZERO, type EngineState } from '../state';

export interface CrossFigures {
  upnl: Dec;
  im: Dec;
  mm: Dec;
  isolated: Dec;
}

export class Margin {
  constructor(private readonly s: EngineState) {}

  /** Unrealized PnL, initial and maintenance margin summed over an account's cross positions. */
  crossFigures(a: EngineAccount): CrossFigures {
    let upnl = ZERO;
    let im = ZERO;
    let mm = ZERO;
    let isolated = ZERO;
    for (const p of a.positions.values()) {
      if (p.marginMode === 'ISOLATED') {
        isolated = isolated.plus(p.isolatedMargin);
        continue;
      }
      const st = this.s.stateOf(p.symbol);
      const q = p.symbol.step.decOf(p.qty);
      const mark = this.s.markDec(st);
      upnl = upnl.plus(pm.unrealizedPnl(q, p.cost, mark));
      im = im.plus(pm.initialMargin(p.cost, this.s.settingsOf(a, p.symbol.name).leverage));
      mm = mm.plus(pm.maintenanceMargin(p.symbol, q, mark));
    }
    return { upnl, im, mm, isolated };
  }

  /** What new orders may use: wallet + cross uPnL - cross IM - isolated margins - frozen. */
  availableOf(a: EngineAccount): Dec {
    const f = this.crossFigures(a);
    return decOfUnits(a.wallet).plus(f.upnl).minus(f.im).minus(f.isolated).minus(decOfUnits(a.frozen));
  }

  /**
   * `availableOf` in money units when the account holds no position (wallet - frozen, exact
   * integers: the order path's common case), else undefined (then margins need `availableOf`).
   */
  availableUnitsWithoutPositions(a: EngineAccount): bigint | undefined {
    return a.positions.size === 0 ? a.wallet - a.frozen : undefined;
  }

  assetOf(a: EngineAccount): UserAssetRecord {
    const f = this.crossFigures(a);
    let isoUpnl = ZERO;
    for (const p of a.positions.values()) {
      if (p.marginMode !== 'ISOLATED') continue;
      isoUpnl = isoUpnl.plus(pm.unrealizedPnl(p.symbol.step.decOf(p.qty), p.cost, this.s.markDec(this.s.stateOf(p.symbol))));
    }
    return {
      userId: a.userId,
      assetType: 'USDT',
      walletBalance: formatUnits(a.wallet),
      frozenMargin: formatUnits(a.frozen),
      usedMargin: money(f.im.plus(f.isolated)),
      availableBalance: money(decOfUnits(a.wallet).plus(f.upnl).minus(f.im).minus(f.isolated).minus(decOfUnits(a.frozen))),
      unrealizedPnl: money(f.upnl.plus(isoUpnl)),
    };
  }

  /**
   * The wallet and unrealized PnL fields of `assetOf`, identical to them, without working out
   * margins (for an equity curve sampled often).
   */
  equityParts(a: EngineAccount): { walletBalance: string; unrealizedPnl: string } {
    let cross = ZERO;
    let iso = ZERO;
    for (const p of a.positions.values()) {
      const u = pm.unrealizedPnl(p.symbol.step.decOf(p.qty), p.cost, this.s.markDec(this.s.stateOf(p.symbol)));
      if (p.marginMode === 'ISOLATED') iso = iso.plus(u);
      else cross = cross.plus(u);
    }
    return { walletBalance: formatUnits(a.wallet), unrealizedPnl: money(cross.plus(iso)) };
  }
}
