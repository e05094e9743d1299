/**
 * Position records and queries (what GET /positions and the account stream show), and the
 * per-symbol settings: leverage and margin mode.
 */
import { compare, divRound, EX_ONE, formatExact, minus, negate, plus, sign, type Exact } from '../../../core/exact';
import { exactOfUnits, formatUnits } from '../../../core/money-units';
import { MONEY_DP } from '../../../core/values';
import { marginModeFromCode, marginModeToCode, type MarginMode, type PositionSide, type Side } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import type { PositionHistoryRecord, PositionRecord, PositionSettingsRecord } from '../../../protocol/records';
import type { CrossFigures, Margin } from '../accounts/margin';
import type { SetLeverageInput, SetMarginModeInput } from '../inputs';
import type { EngineAccount, EnginePosition } from '../model';
import { DEFAULT_LEVERAGE, fail, pageOf, posKey, type EngineState, type SymbolState } from '../state';
import * as pm from './position-math';
import { moneyDown } from '../records';
import { closesByNature } from './positions';
import type { SymbolSpec } from '../symbols';

const ONE: pm.Quotient = { num: EX_ONE, den: EX_ONE };
const HEDGE_SIDES: readonly PositionSide[] = ['LONG', 'SHORT'];
const ONE_WAY_SIDES: readonly PositionSide[] = ['BOTH'];

export class PositionViews {
  constructor(
    private readonly s: EngineState,
    private readonly margin: Margin,
  ) {}

  /** At the end of a command: an account event per touched account, its asset and the positions of the symbols touched. */
  flushAccountUpdates(): void {
    const s = this.s;
    if (s.touched.size === 0) return;
    const now = s.clock.now();
    for (let i = 0; i < s.touched.size; i++) {
      const { acct, reason, symbols } = s.touched.at(i);
      // The cross figures of the account, worked out once for its asset and every position record.
      const f = this.margin.crossFigures(acct);
      const positions: PositionRecord[] = [];
      for (const sym of symbols) {
        if (sym === '') continue;
        for (const p of this.positionRecordsOf(acct, sym, true, f)) positions.push(p);
      }
      s.out.push({ kind: 'account', userId: acct.userId, time: now, reason, asset: this.margin.assetOf(acct, f), positions });
    }
    s.touched.clear();
  }

  /** `figures`: the account's cross figures, when the caller has them already. */
  positionRecordsOf(acct: EngineAccount, symbol: string | undefined, includeFlat = false, figures?: CrossFigures): PositionRecord[] {
    const out: PositionRecord[] = [];
    if (symbol !== undefined) {
      const st = this.s.symbols.get(symbol);
      if (st !== undefined) this.pushPositionRecords(out, acct, st, includeFlat, figures);
      return out;
    }
    for (const st of this.s.symbols.values()) this.pushPositionRecords(out, acct, st, includeFlat, figures);
    return out;
  }

  private pushPositionRecords(out: PositionRecord[], acct: EngineAccount, st: SymbolState, includeFlat: boolean, figures: CrossFigures | undefined): void {
    for (const side of acct.positionMode === 'HEDGE' ? HEDGE_SIDES : ONE_WAY_SIDES) {
      const p = acct.positions.size === 0 ? undefined : acct.positions.get(posKey(st.spec.name, side));
      if (p) out.push(this.positionRecord(acct, st, p, figures));
      else if (includeFlat) out.push(this.flatPositionRecord(acct, st, side));
    }
  }

  /**
   * pm.crossLiquidationPrice for the account's cross legs on a symbol: `rest` is the wallet less
   * isolated margins, plus the uPnL and less the MM of its cross positions on other symbols.
   */
  private accountLiquidation(acct: EngineAccount, spec: SymbolSpec, legs: EnginePosition[], figures: CrossFigures | undefined, mark: Exact): ReturnType<typeof pm.crossLiquidationPrice> {
    const f = figures ?? this.margin.crossFigures(acct);
    let rest = plus(minus(exactOfUnits(acct.wallet), f.isolated), f.upnl);
    let otherMm = f.mm;
    for (const l of legs) {
      rest = minus(rest, exactOfUnits(this.margin.upnlUnits(l)));
      otherMm = minus(otherMm, pm.maintenanceMargin(spec, spec.step.exactOf(l.qty), mark));
    }
    return pm.crossLiquidationPrice(spec, legs.map((l) => ({ q: spec.step.exactOf(l.qty), cost: exactOfUnits(l.cost) })), minus(rest, otherMm), mark);
  }

  /** The account's cross positions on the symbol (hedge mode: LONG and SHORT). */
  private crossLegs(acct: EngineAccount, st: SymbolState): EnginePosition[] {
    const out: EnginePosition[] = [];
    for (const side of HEDGE_SIDES) {
      const p = acct.positions.get(posKey(st.spec.name, side));
      if (p !== undefined && p.marginMode === 'CROSS' && p.qty !== 0) out.push(p);
    }
    return out;
  }

  private flatPositionRecord(acct: EngineAccount, st: SymbolState, side: PositionSide): PositionRecord {
    const s = this.s.settingsOf(acct, st.spec.name);
    return {
      symbol: st.spec.name,
      marginMode: s.marginMode,
      positionSide: side,
      leverage: s.leverage,
      quantity: '0',
      entryPrice: '0',
      breakEvenPrice: '0',
      liqPrice: '0',
      marginRatio: '0',
      unrealizedPnl: '0',
      roe: '0',
      nextFundingFee: '0',
      fundingFeeAccum: '0',
      tpPrice: '0',
      slPrice: '0',
      positionMargin: '0',
      markPrice: st.spec.tick.fromUnits(st.market.mark),
    };
  }

  private positionRecord(acct: EngineAccount, st: SymbolState, p: EnginePosition, figures: CrossFigures | undefined): PositionRecord {
    const spec = st.spec;
    const s = this.s.settingsOf(acct, spec.name);
    const q = spec.step.exactOf(p.qty);
    const mark = this.s.markExact(st);
    const cost = exactOfUnits(p.cost);
    const isolated = exactOfUnits(p.isolatedMargin);
    const upnl = exactOfUnits(this.margin.upnlUnits(p));
    const im = pm.initialMargin(cost, s.leverage);
    const mm = pm.maintenanceMargin(spec, q, mark);
    let margin: Exact;
    // Maintenance margin over equity; 1 when there is no equity left.
    let ratio: pm.Quotient;
    if (p.marginMode === 'ISOLATED') {
      margin = isolated;
      const eq = plus(isolated, upnl);
      ratio = sign(eq) <= 0 ? ONE : { num: mm, den: eq };
    } else {
      const f = figures ?? this.margin.crossFigures(acct);
      const ownMm = mm;
      const crossEquity = plus(minus(exactOfUnits(acct.wallet), f.isolated), f.upnl);
      // Equity left for this position if the other cross positions stay where they are.
      margin = minus(minus(crossEquity, upnl), minus(f.mm, ownMm));
      ratio = sign(crossEquity) <= 0 ? ONE : { num: f.mm, den: crossEquity };
    }
    // Both legs of a hedge account's cross positions move with the one mark: the account's price.
    const legs = p.marginMode === 'CROSS' && acct.positionMode === 'HEDGE' ? this.crossLegs(acct, st) : undefined;
    const both = legs !== undefined && legs.length > 1 ? this.accountLiquidation(acct, spec, legs, figures, mark) : undefined;
    const liq = both !== undefined ? both.liq : pm.liquidationPrice(spec, q, cost, margin, mark);
    const liqBelow = both !== undefined ? both.below : p.qty > 0;
    const tpSl = this.tpSlOf(acct, st, p);
    const quantity = acct.positionMode === 'HEDGE' ? spec.step.fromUnits(Math.abs(p.qty)) : spec.step.fromUnits(p.qty);
    const priceDp = spec.tick.scale + 4;
    return {
      symbol: spec.name,
      marginMode: p.marginMode,
      positionSide: p.positionSide,
      leverage: s.leverage,
      quantity,
      entryPrice: pm.formatQuotientOf(pm.entryPrice(q, cost), priceDp),
      breakEvenPrice: pm.formatQuotientOf(pm.breakEvenPrice(q, cost, exactOfUnits(p.openFees), spec.takerFeeExact), priceDp),
      liqPrice: liq === undefined ? '0' : spec.tick.fromUnits(pm.liquidationTicks(spec, liq, liqBelow)),
      marginRatio: pm.formatQuotientOf(ratio, 8),
      unrealizedPnl: formatExact(upnl, MONEY_DP),
      roe: pm.formatQuotientOf(pm.roe(upnl, im), 8),
      nextFundingFee: formatExact(negate(pm.fundingPayment(q, mark, this.s.rateExact(st))), MONEY_DP),
      fundingFeeAccum: formatUnits(p.fundingAccum),
      tpPrice: tpSl.tp,
      slPrice: tpSl.sl,
      positionMargin: formatExact(p.marginMode === 'ISOLATED' ? isolated : im, MONEY_DP),
      markPrice: spec.tick.fromUnits(st.market.mark),
    };
  }

  /** Take-profit and stop-loss prices of the waiting condition orders that close this position. */
  private tpSlOf(acct: EngineAccount, st: SymbolState, p: EnginePosition): { tp: string; sl: string } {
    let tp = '0';
    let sl = '0';
    const closingSide: Side = p.qty > 0 ? 'SELL' : 'BUY';
    for (const c of st.conditions) {
      if (c.userId !== acct.userId || c.positionSide !== p.positionSide || c.side !== closingSide) continue;
      if (!(c.reduceOnly || c.closePosition || closesByNature(c.side, c.positionSide))) continue;
      const price = st.spec.tick.fromUnits(c.stopPrice);
      if ((c.type === 'TAKE_PROFIT_MARKET' || c.type === 'TAKE_PROFIT_LIMIT') && tp === '0') tp = price;
      if ((c.type === 'STOP_MARKET' || c.type === 'STOP_LIMIT') && sl === '0') sl = price;
    }
    return { tp, sl };
  }

  positions(userId: string, symbol?: string): PositionRecord[] {
    const acct = this.s.acct(userId);
    if (symbol !== undefined) this.s.sym(symbol);
    return this.positionRecordsOf(acct, symbol);
  }

  /**
   * The user's signed net position on `symbol` in base units (long minus short), without
   * building position records (which work out margin, liquidation price and the rest).
   */
  netQuantity(userId: string, symbol: string): string {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    let steps = 0;
    for (const p of acct.positions.values()) if (p.symbol === st.spec) steps += p.qty;
    return st.spec.step.fromUnits(steps);
  }

  positionHistory(userId: string, f: { symbol?: string; side?: 'long' | 'short'; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: PositionHistoryRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (f.symbol !== undefined) this.s.sym(f.symbol);
    const h = acct.positionHistory;
    return pageOf(
      h,
      (i) =>
        (f.symbol === undefined || h.symbol(i) === f.symbol) &&
        (f.side === undefined || (f.side === 'long') === h.long(i)) &&
        (f.startTime === undefined || h.closedAtOf(i) >= f.startTime) &&
        (f.endTime === undefined || h.closedAtOf(i) <= f.endTime),
      f.page,
      f.pageSize,
    );
  }

  // ---------------------------------------------------------------- leverage and margin mode

  /**
   * `refreeze` puts the margin of the account's open orders on the symbol at the new leverage and
   * returns its undo (the orders' context, orders/commands.ts): a resting order kept the margin of
   * the leverage it was placed at, and lowering the leverage left the account promising margin it
   * did not have (negative available balance once the order filled).
   */
  setLeverage(userId: string, input: SetLeverageInput, refreeze: (acct: EngineAccount, spec: SymbolSpec) => () => void): { symbol: string; leverage: number; timestamp: number } {
    const acct = this.s.acct(userId);
    const st = this.s.sym(input.symbol);
    const max = st.spec.maxLeverage;
    if (!Number.isInteger(input.leverage) || input.leverage < 1 || input.leverage > max) {
      fail(ErrorCodes.LEVERAGE_OUT_OF_RANGE, `leverage must be a whole number from 1 to ${max} for ${st.spec.name}, got ${input.leverage}`, 'leverage');
    }
    const s = this.s.settingsOf(acct, st.spec.name);
    const old = s.leverage;
    if (old !== input.leverage) {
      s.leverage = input.leverage;
      const undoOrders = refreeze(acct, st.spec);
      const undoIsolated = this.rebaseIsolated(acct, st, input.leverage);
      const undo = (): void => {
        undoIsolated();
        undoOrders();
        s.leverage = old;
      };
      if (input.leverage < old) {
        const available = this.margin.availableOf(acct);
        if (available.isNegative()) {
          undo();
          fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin to lower leverage to ${input.leverage}x with the open ${st.spec.name} position and orders: available would be ${moneyDown(available)} USDT`, 'leverage');
        }
      } else {
        const unsafe = this.isolatedAtLiquidation(acct, st);
        if (unsafe !== undefined) {
          undo();
          fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin to raise leverage to ${input.leverage}x: the isolated ${st.spec.name} ${unsafe} position's margin at that leverage plus its unrealized PnL would not cover its maintenance margin`, 'leverage');
        }
      }
    }
    if (old !== input.leverage) this.s.touch(acct, 'LEVERAGE', st.spec.name);
    return { symbol: st.spec.name, leverage: s.leverage, timestamp: this.s.clock.now() };
  }

  /**
   * Puts the margin of the user's isolated positions on the symbol at `leverage`, as if opened now:
   * |cost| / leverage, rounded up as a fill adds it. Returns what puts the old figures back.
   */
  private rebaseIsolated(acct: EngineAccount, st: SymbolState, leverage: number): () => void {
    const before: Array<[EnginePosition, bigint]> = [];
    for (const p of acct.positions.values()) {
      if (p.symbol !== st.spec || p.marginMode !== 'ISOLATED') continue;
      before.push([p, p.isolatedMargin]);
      const cost = p.cost < 0n ? -p.cost : p.cost;
      p.isolatedMargin = divRound(cost, BigInt(leverage), 'up');
    }
    return () => {
      for (const [p, m] of before) p.isolatedMargin = m;
    };
  }

  /** Long or short: an isolated position on the symbol whose margin plus uPnL is at or below its maintenance margin. */
  private isolatedAtLiquidation(acct: EngineAccount, st: SymbolState): 'long' | 'short' | undefined {
    const mark = this.s.markExact(st);
    for (const p of acct.positions.values()) {
      if (p.symbol !== st.spec || p.marginMode !== 'ISOLATED') continue;
      const q = st.spec.step.exactOf(p.qty);
      const equity = plus(exactOfUnits(p.isolatedMargin), exactOfUnits(this.margin.upnlUnits(p)));
      if (compare(equity, pm.maintenanceMargin(st.spec, q, mark)) <= 0) return p.qty > 0 ? 'long' : 'short';
    }
    return undefined;
  }

  setMarginMode(userId: string, input: SetMarginModeInput): { symbol: string; marginMode: 1 | 2; timestamp: number } {
    const acct = this.s.acct(userId);
    const st = this.s.sym(input.symbol);
    const mode = marginModeFromCode(input.marginMode);
    const s = this.s.settingsOf(acct, st.spec.name);
    if (s.marginMode !== mode) {
      const what = openOnSymbol(acct, st);
      if (what !== undefined) {
        fail(ErrorCodes.MARGIN_MODE_LOCKED, `margin mode of ${st.spec.name} cannot change while there is an open ${what} on it`, 'marginMode');
      }
      s.marginMode = mode;
      this.s.touch(acct, 'MARGIN_MODE', st.spec.name);
    }
    return { symbol: st.spec.name, marginMode: marginModeToCode(s.marginMode), timestamp: this.s.clock.now() };
  }

  positionSettings(userId: string, symbol: string): PositionSettingsRecord {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    const s = acct.settings.get(st.spec.name) ?? { leverage: Math.min(DEFAULT_LEVERAGE, st.spec.maxLeverage), marginMode: 'CROSS' as MarginMode };
    return { symbol: st.spec.name, marginMode: marginModeToCode(s.marginMode), leverage: s.leverage };
  }
}

/**
 * What keeps the margin mode of a symbol from changing (PROTOCOL.md section 4: an open position or
 * open orders), or undefined. Open orders include a waiting condition order, as on Binance-style
 * venues: it places an order on the symbol later, which would open under the new mode. A strategy
 * order's pending sub-order always waits on its sub-order 1 (structure.ts), a live order or
 * condition order on the same symbol, so it keeps the mode through that one.
 */
function openOnSymbol(acct: EngineAccount, st: SymbolState): string | undefined {
  if ([...acct.positions.values()].some((p) => p.symbol === st.spec)) return 'position';
  if ([...acct.openOrders.values()].some((o) => o.symbol === st.spec)) return 'order';
  return st.conditions.some((c) => c.userId === acct.userId) ? 'condition order' : undefined;
}
