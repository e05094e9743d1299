/**
 * Positions: which position an order acts on, what it may close, and applying a fill to it
 * (cost basis, fees, realized PnL, isolated margin, the closed-position history).
 */
import { divRound } from '../../../core/exact';
import type { PositionSide, Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import type { EngineAccount, EngineOrder, EnginePosition } from '../model';
import { fail, posKey, type EngineState } from '../state';

/** Whether an order of this side on this positionSide closes (reduces) its position by nature. */
export function closesByNature(side: Side, positionSide: PositionSide): boolean {
  return (positionSide === 'LONG' && side === 'SELL') || (positionSide === 'SHORT' && side === 'BUY');
}

export function isReducing(o: { reduceOnly: boolean; closePosition: boolean; side: Side; positionSide: PositionSide }): boolean {
  return o.reduceOnly || o.closePosition || closesByNature(o.side, o.positionSide);
}

export class Positions {
  constructor(private readonly s: EngineState) {}

  positionSideFor(acct: EngineAccount, given: PositionSide | undefined): PositionSide {
    const ps = given ?? 'BOTH';
    if (acct.positionMode === 'ONE_WAY' && ps !== 'BOTH') fail(ErrorCodes.POSITION_SIDE_MISMATCH, `positionSide ${ps} does not fit a one-way account: use BOTH`, 'positionSide');
    if (acct.positionMode === 'HEDGE' && ps === 'BOTH') fail(ErrorCodes.POSITION_SIDE_MISMATCH, 'positionSide BOTH does not fit a hedge-mode account: use LONG or SHORT', 'positionSide');
    return ps;
  }

  /** Signed position quantity (steps) of the position an order on `positionSide` acts on. */
  positionQty(acct: EngineAccount, symbol: string, positionSide: PositionSide): number {
    return acct.positions.size === 0 ? 0 : (acct.positions.get(posKey(symbol, positionSide))?.qty ?? 0);
  }

  /** How many steps an order of `side` could close now on that position (0 if it would not reduce it). */
  closable(acct: EngineAccount, symbol: string, side: Side, positionSide: PositionSide): number {
    const q = this.positionQty(acct, symbol, positionSide);
    if (side === 'BUY' && q < 0) return -q;
    if (side === 'SELL' && q > 0) return q;
    return 0;
  }

  /**
   * Applies one fill to the position an order acts on; `fee` in money units. Returns the realized
   * PnL in money units. One-way positions may flip through zero (the close part realizes, the
   * rest opens); hedge positions never do. Shares of cost, fees and margin released by a partial
   * close are rounded half-even to the unit; isolated margin added is rounded up.
   */
  applyFill(acct: EngineAccount, o: EngineOrder, price: number, q: number, fee: bigint, liquidation: boolean): bigint {
    const st = this.s.stateOf(o.symbol);
    const spec = st.spec;
    const key = posKey(spec.name, o.positionSide);
    const settings = this.s.settingsOf(acct, spec.name);
    const dq = o.side === 'BUY' ? q : -q;
    let pos = acct.positions.get(key);
    let realized = 0n;
    let openSteps = q;
    let openFee = fee;
    if (pos && pos.qty !== 0 && Math.sign(pos.qty) !== Math.sign(dq)) {
      const absQ = Math.abs(pos.qty);
      const closeQ = Math.min(q, absQ);
      const full = closeQ === absQ;
      const cq = BigInt(closeQ);
      const aq = BigInt(absQ);
      const share = (u: bigint): bigint => (full ? u : divRound(u * cq, aq, 'half-even'));
      const released = share(pos.cost);
      const closeNotional = spec.notionalMoney(price, closeQ);
      realized = (dq > 0 ? -closeNotional : closeNotional) - released;
      pos.cost -= released;
      pos.openFees -= share(pos.openFees);
      pos.isolatedMargin -= share(pos.isolatedMargin);
      pos.qty += dq > 0 ? closeQ : -closeQ;
      pos.closeQuote += closeNotional;
      pos.closeQty += closeQ;
      pos.realizedAccum += realized;
      openSteps = q - closeQ;
      openFee = openSteps === 0 ? 0n : divRound(fee * BigInt(openSteps), BigInt(q), 'half-even');
      pos.realizedAccum -= fee - openFee;
      if (pos.qty === 0) {
        this.closePositionRecord(acct, pos, settings.leverage, liquidation ? 2 : 1);
        acct.positions.delete(key);
        if (![...acct.positions.values()].some((p) => p.symbol === spec)) st.holders.delete(acct);
        pos = undefined;
      }
    }
    if (openSteps > 0) {
      if (!pos) {
        pos = {
          symbol: spec,
          positionSide: o.positionSide,
          qty: 0,
          cost: 0n,
          openFees: 0n,
          isolatedMargin: 0n,
          marginMode: settings.marginMode,
          fundingAccum: 0n,
          realizedAccum: 0n,
          maxAbsQty: 0,
          closeQuote: 0n,
          closeQty: 0,
          openQuote: 0n,
          openQty: 0,
          lastDirection: 0,
          openedAt: this.s.clock.now(),
        };
        acct.positions.set(key, pos);
        st.holders.add(acct);
      }
      const openNotional = spec.notionalMoney(price, openSteps);
      pos.qty += dq > 0 ? openSteps : -openSteps;
      pos.lastDirection = Math.sign(pos.qty);
      pos.cost += dq > 0 ? openNotional : -openNotional;
      pos.openFees += openFee;
      pos.realizedAccum -= openFee;
      if (pos.marginMode === 'ISOLATED') {
        pos.isolatedMargin += divRound(openNotional, BigInt(settings.leverage), 'up');
      }
      pos.maxAbsQty = Math.max(pos.maxAbsQty, Math.abs(pos.qty));
      pos.openQuote += openNotional;
      pos.openQty += openSteps;
    }
    return realized;
  }

  private closePositionRecord(acct: EngineAccount, pos: EnginePosition, leverage: number, triggerMode: number): void {
    acct.positionHistory.push({
      spec: pos.symbol,
      positionSide: pos.positionSide,
      marginMode: pos.marginMode,
      long: pos.lastDirection > 0,
      leverage,
      triggerMode,
      maxAbsQty: pos.maxAbsQty,
      openQuote: pos.openQuote,
      openQty: pos.openQty,
      closeQuote: pos.closeQuote,
      closeQty: pos.closeQty,
      pnl: pos.realizedAccum + pos.fundingAccum,
      fundingAccum: pos.fundingAccum,
      openedAt: pos.openedAt,
      closedAt: this.s.clock.now(),
    });
  }

}
