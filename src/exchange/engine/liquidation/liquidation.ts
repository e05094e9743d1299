/**
 * Liquidation: after the mark price or funding moved, every account on the symbol whose margin
 * ratio reached 100 % is liquidated (its orders on the positions cancelled, a reduce-only market
 * order into the book, the insurance fund taking over the rest at mark and covering a loss
 * beyond the margin); after an order's matching, so is every account whose position its fills
 * changed (a fill far through mark can open a position already past its liquidation price). A
 * float screen first rules out the exact check when nobody is near maintenance.
 */
import type { Dec } from '../../../core/decimal';
import { decOfUnits, exactOfUnits, unitsOfDec } from '../../../core/money-units';
import { compare, decOfExact, minus, plus, sign } from '../../../core/exact';
import { ZERO_RATE } from '../accounts/margin-rate';
import type { PositionSide, Side } from '../../../core/enums';
import type { Ledger } from '../accounts/ledger';
import type { Margin } from '../accounts/margin';
import { EngineOrder, type EngineAccount, type EnginePosition } from '../model';
import type { Matching } from '../orders/matching';
import type { OrderIntake } from '../orders/prepare';
import * as pm from '../positions/position-math';
import type { Positions } from '../positions/positions';
import { INSURANCE_ACCOUNT, ZERO, type EngineState, type SymbolState } from '../state';
import type { SymbolSpec } from '../symbols';

/**
 * Relative tolerance of the liquidation screen's float figures: their rounding error is about
 * 1e-15 of the magnitudes summed, so anything within 1e-9 of them is left to the exact check.
 */
const SCREEN_TOLERANCE = 1e-9;

/** 10^i as doubles (exact), for a grid's scale: `10 ** scale` cost the screen more than the rest of it. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

export class Liquidation {
  constructor(
    private readonly s: EngineState,
    private readonly ledger: Ledger,
    private readonly margin: Margin,
    private readonly positions: Positions,
    private readonly intake: OrderIntake,
    private readonly matching: Matching,
  ) {}

  /**
   * True while a check runs: the orders its liquidations place trade, and the accounts those fills
   * change (the makers the liquidation order met) wait in `state.traded` for the outermost check
   * to go through them once it is done, rather than being checked in the middle of a liquidation.
   */
  private busy = false;

  /** Liquidates every account on this symbol whose margin ratio reached 100 % (after a mark change or funding). */
  check(st: SymbolState): void {
    if (this.busy || st.holders.size === 0 || !this.mayLiquidate(st)) return;
    const s = this.s;
    this.busy = true;
    try {
      for (const acct of s.holdersInOrder(st)) {
        if (acct.userId === INSURANCE_ACCOUNT || s.marginExempt.has(acct.userId)) continue;
        this.checkAccount(acct, st, false);
      }
    } finally {
      this.busy = false;
    }
    this.checkTraded();
  }

  /**
   * After an order's matching: each account whose position the fills changed (`state.traded`) is
   * checked at the current mark as a mark change checks it, its position on the symbol if
   * isolated, the whole account if it holds cross positions (a fill's fee, realized PnL or isolated
   * margin moves the cross equity, whatever the symbol). The insurance fund and margin-exempt
   * users are never noted there.
   */
  checkTraded(): void {
    if (this.busy) return;
    const traded = this.s.traded;
    this.busy = true;
    try {
      // Liquidations here add the accounts their orders fill: they are taken in turn too.
      while (traded.take()) {
        const acct = traded.acct as EngineAccount;
        const st = traded.st as SymbolState;
        if (this.accountMayLiquidate(acct, st, true)) this.checkAccount(acct, st, true);
      }
    } finally {
      traded.clear();
      this.busy = false;
    }
  }

  /**
   * Liquidates the account's isolated positions on the symbol that reached maintenance, then its
   * cross positions if its cross equity did. `anyCross`: the cross account is checked whatever
   * symbols its cross positions are on (else only when one is on this symbol, as a mark change of
   * the symbol moves it).
   */
  private checkAccount(acct: EngineAccount, st: SymbolState, anyCross: boolean): void {
    for (const p of [...acct.positions.values()]) {
      if (p.symbol !== st.spec || p.marginMode !== 'ISOLATED') continue;
      const q = st.spec.step.exactOf(p.qty);
      const mark = this.s.markExact(st);
      const iso = exactOfUnits(p.isolatedMargin);
      const equity = plus(iso, pm.unrealizedPnl(q, exactOfUnits(p.cost), mark));
      if (compare(equity, pm.maintenanceMargin(st.spec, q, mark)) <= 0) this.liquidate(acct, [p], decOfExact(iso));
    }
    const cross = [...acct.positions.values()].filter((p) => p.marginMode === 'CROSS');
    if (cross.length === 0 || (!anyCross && !cross.some((p) => p.symbol === st.spec))) return;
    const f = this.margin.crossFigures(acct);
    const left = minus(exactOfUnits(acct.wallet), f.isolated);
    const equity = plus(left, f.upnl);
    if (sign(f.mm) > 0 && compare(equity, f.mm) <= 0) this.liquidate(acct, cross, decOfExact(left));
  }

  /**
   * Maintenance margin of a position of float notional `notional` (> 0), or NaN when the notional
   * is so close to a tier boundary that float rounding could pick another tier than the exact
   * figure does.
   */
  private approxMaintenance(spec: SymbolSpec, notional: number): number {
    const tiers = spec.floatTiers;
    for (const t of tiers) {
      if (Math.abs(notional - t.cap) <= SCREEN_TOLERANCE * t.cap) return NaN;
      if (notional <= t.cap) return Math.max(0, notional * t.mmr - t.amount);
    }
    const t = tiers[tiers.length - 1];
    return Math.max(0, notional * t.mmr - t.amount);
  }

  /**
   * The liquidation sweep's screen: false only when, in float arithmetic with a tolerance far above
   * its rounding error, every holder of the symbol keeps its equity clearly above maintenance, so
   * the exact check would liquidate nobody. Allocation-free; anything close, or any figure float
   * cannot place with certainty, goes to the exact check, so results never change.
   */
  private mayLiquidate(st: SymbolState): boolean {
    for (const acct of st.holders) {
      if (acct.userId === INSURANCE_ACCOUNT || this.s.marginExempt.has(acct.userId)) continue;
      if (this.accountMayLiquidate(acct, st, false)) return true;
    }
    return false;
  }

  /**
   * The screen of one account (`mayLiquidate`): false only when its isolated positions on the
   * symbol and its cross equity (when `checkAccount` with this `anyCross` would check it) are
   * clearly above maintenance in float arithmetic.
   */
  private accountMayLiquidate(acct: EngineAccount, st: SymbolState, anyCross: boolean): boolean {
    const wallet = Number(acct.wallet) / 1e8;
    let equity = wallet;
    let scale = Math.abs(wallet);
    let mm = 0;
    let crossHere = false;
    for (const p of acct.positions.values()) {
      const spec = p.symbol;
      const qty = (p.qty * spec.step.unitScaled) / POW10[spec.step.scale];
      const mark = ((spec === st.spec ? st : this.s.stateOf(spec)).market.mark * spec.tick.unitScaled) / POW10[spec.tick.scale];
      const cost = Number(p.cost) / 1e8;
      const notional = Math.abs(qty) * mark;
      const m = notional === 0 ? 0 : this.approxMaintenance(spec, notional);
      if (Number.isNaN(m)) return true;
      if (p.marginMode === 'ISOLATED') {
        const iso = Number(p.isolatedMargin) / 1e8;
        equity -= iso;
        scale += Math.abs(iso);
        if (spec === st.spec) {
          const isoEquity = iso + qty * mark - cost;
          const isoScale = Math.abs(iso) + notional + Math.abs(cost) + m + 1;
          if (!(isoEquity - m > SCREEN_TOLERANCE * isoScale)) return true;
        }
        continue;
      }
      if (anyCross || spec === st.spec) crossHere = true;
      equity += qty * mark - cost;
      mm += m;
      scale += 2 * notional + Math.abs(cost) + m;
    }
    return crossHere && !(equity - mm > SCREEN_TOLERANCE * (scale + 1));
  }

  /**
   * Closes positions by liquidation: the account's orders on them are cancelled, a reduce-only
   * market order (placeType LIQUIDATION) takes what the book offers, and the insurance fund takes
   * over the rest at mark price. A loss beyond `margin` is covered by the insurance fund.
   */
  private liquidate(acct: EngineAccount, positions: EnginePosition[], margin: Dec): void {
    const s = this.s;
    const walletBefore = decOfUnits(acct.wallet);
    const symbols = new Set(positions.map((p) => p.symbol));
    for (const o of [...acct.openOrders.values()]) {
      if (symbols.has(o.symbol)) this.matching.finish(o, 'CANCELED', 'CANCELED');
    }
    // The closed-position records this liquidation makes, each with the loss it realized here.
    const closed: Array<{ index: number; loss: bigint }> = [];
    for (const p of positions) {
      const pnlBefore = p.realizedAccum + p.fundingAccum;
      const records = acct.positionHistory.length;
      const st = s.stateOf(p.symbol);
      const side: Side = p.qty > 0 ? 'SELL' : 'BUY';
      const qtyBefore = Math.abs(p.qty);
      s.out.push({ kind: 'liquidation', userId: acct.userId, symbol: st.spec.name, time: s.clock.now(), positionSide: p.positionSide, quantity: st.spec.step.fromUnits(qtyBefore), markPrice: st.spec.tick.fromUnits(st.market.mark) });
      const prepared = this.intake.prepare(acct, { symbol: st.spec.name, type: 'MARKET', side, positionSide: p.positionSide, closePosition: true, timeInForce: 'IOC' });
      this.matching.commit(prepared, { placeType: 'LIQUIDATION' });
      const left = Math.abs(this.positions.positionQty(acct, st.spec.name, p.positionSide));
      if (left > 0) this.insuranceTakeover(acct, st, p.positionSide, side, left);
      if (acct.positionHistory.length > records) {
        const index = acct.positionHistory.length - 1;
        const loss = pnlBefore - acct.positionHistory.pnlUnits(index);
        closed.push({ index, loss: loss > 0n ? loss : 0n });
      }
    }
    const walletAfter = decOfUnits(acct.wallet);
    const loss = walletBefore.minus(walletAfter);
    const cover = loss.minus(margin.isNegative() ? ZERO : margin);
    if (cover.gt(0) && walletAfter.lt(walletBefore.minus(margin))) {
      const insurance = s.owner(INSURANCE_ACCOUNT);
      insurance.wallet -= unitsOfDec(cover);
      this.ledger.changeWallet(acct, unitsOfDec(cover), 'LIQUIDATION', 'insurance-cover', [...symbols][0].name);
      this.shareCover(acct, closed, unitsOfDec(cover));
    }
  }

  /**
   * The cover is part of the closed positions' realized PnL: the account never paid it, so each
   * record made by the liquidation shows what the wallet lost on it. Shared in proportion to the
   * loss each realized in the liquidation (rounded down, the rest to the last record with a loss),
   * so the records add up to the wallet's change, as the account change log and overviews do.
   */
  private shareCover(acct: EngineAccount, closed: ReadonlyArray<{ index: number; loss: bigint }>, cover: bigint): void {
    if (closed.length === 0) return;
    let total = 0n;
    for (const c of closed) total += c.loss;
    if (total === 0n) {
      acct.positionHistory.addPnl(closed[closed.length - 1].index, cover);
      return;
    }
    let last = 0;
    for (let i = 0; i < closed.length; i++) if (closed[i].loss > 0n) last = i;
    let given = 0n;
    for (let i = 0; i < last; i++) {
      const share = (cover * closed[i].loss) / total;
      given += share;
      if (share !== 0n) acct.positionHistory.addPnl(closed[i].index, share);
    }
    acct.positionHistory.addPnl(closed[last].index, cover - given);
  }

  /** The insurance fund takes the other side of what the book could not absorb, at mark price. */
  private insuranceTakeover(acct: EngineAccount, st: SymbolState, positionSide: PositionSide, side: Side, qty: number): void {
    const s = this.s;
    const insurance = s.owner(INSURANCE_ACCOUNT);
    const now = s.clock.now();
    const mk = (userId: string, sd: Side, ps: PositionSide): EngineOrder => {
      const id = s.nextOrderId++;
      // The order is an EngineOrder made with `new` (model.ts says why); this literal is only read.
      const o = EngineOrder.from({
        id, userId, symbol: st.spec, side: sd, positionSide: ps, type: 'MARKET', timeInForce: 'IOC', price: 0, qty, executed: 0,
        cumQuote: 0n, status: 'NEW', reduceOnly: userId !== INSURANCE_ACCOUNT, makerOnly: false, closePosition: false, priceType: 0,
        placeType: 'LIQUIDATION', clientOrderId: `liq-${id}`, createdAt: now, updateTime: now, conditionId: 0, strategyId: 0,
        frozenPerStep: ZERO_RATE, frozen: 0n,
      });
      s.ordersById.set(id, o);
      const a = s.owner(userId);
      if (userId !== INSURANCE_ACCOUNT) a.orders.push(id);
      a.openOrders.set(id, o);
      a.openCountBySymbol.set(st.spec.name, (a.openCountBySymbol.get(st.spec.name) ?? 0) + 1);
      return o;
    };
    const taker = mk(acct.userId, side, positionSide);
    const maker = mk(insurance.userId, side === 'BUY' ? 'SELL' : 'BUY', 'BOTH');
    s.emitOrder(taker, 'NEW');
    this.matching.trade(st, maker, taker, st.market.mark, qty);
  }
}
