/**
 * The risk engine: every intent passes an ordered list of checks, each an early exit with a
 * typed decision and a stable code (NautilusTrader style). The trading state ACTIVE / REDUCING /
 * HALTED gates everything first; loss limits move ACTIVE to REDUCING; the kill switch halts.
 */
import type { Clock } from '../../core/clock';
import { Dec, fractionDigits, toScaledInt } from '../../core/decimal';
import { ExactOfText, compare, decOfExact, digitsOf, exactOfText, exOfDec, formatExact, minus, sign, times, type Exact } from '../../core/exact';
import { Fifo } from '../../core/fifo';
import type { StateView } from '../state/cache';
import type { SymbolInfo } from '../strategy/api';
import type { BracketIntent, Intent } from '../strategy/intents';
import type { OrderTracker } from '../execution/order-tracker';
import { ALLOW, deny, type Decision, type TradingState } from './decision';
import type { RiskLimits } from './limits';

export interface RiskContext {
  state: StateView;
  symbols: ReadonlyMap<string, SymbolInfo>;
  tracker: OrderTracker;
  clock: Clock;
  /** Orders already passed in this tick (or in flight) that the tracker does not hold yet. */
  pending?: readonly Intent[];
}

type Check = (intent: Intent, ctx: RiskContext) => Decision;

const ZERO = new Dec(0);
const DAY = 86_400_000;

/** Notional a place or bracket intent would add, at its limit price or mark. */
function intentNotional(intent: Intent, ctx: RiskContext): Dec | undefined {
  if (intent.kind !== 'place' && intent.kind !== 'bracket') return undefined;
  const price = (intent.kind === 'place' ? intent.price : intent.entryPrice) ?? ctx.state.mark(intent.symbol)?.markPrice;
  if (price === undefined) return undefined;
  return new Dec(price).times(intent.quantity);
}

/**
 * Signed position in steps of the symbol's grid (one-way BOTH, or LONG minus SHORT in hedge mode).
 * Checks compare integers (ticks x steps) on the hot path; Dec appears only in denial messages.
 */
function positionSteps(ctx: RiskContext, symbol: string, info: SymbolInfo): number {
  let q = 0;
  for (const p of ctx.state.positions()) {
    if (p.symbol !== symbol) continue;
    const steps = info.step.toUnits(p.quantity) ?? 0;
    q += p.positionSide === 'SHORT' ? -Math.abs(steps) : steps;
  }
  return q;
}

/** Whether the intent can only lower exposure: cancels, reduce-only, or a close no larger than the position. */
export function reducesExposure(intent: Intent, ctx: RiskContext): boolean {
  switch (intent.kind) {
    case 'cancel':
    case 'cancelAll':
      return true;
    case 'setLeverage':
    case 'bracket':
      return false;
    case 'amend': {
      const o = ctx.tracker.get(intent.clientOrderId);
      return o !== undefined && o.reduceOnly;
    }
    case 'place': {
      if (intent.reduceOnly) return true;
      const info = ctx.symbols.get(intent.symbol);
      const qty = info?.step.toUnits(intent.quantity);
      if (!info || qty === undefined) return false;
      const pos = positionSteps(ctx, intent.symbol, info);
      const signed = intent.side === 'BUY' ? qty : -qty;
      return pos !== 0 && pos < 0 !== signed < 0 && Math.abs(signed) <= Math.abs(pos);
    }
  }
}

/** An order of the side that closes a hedge-mode position (SELL of LONG, BUY of SHORT): the venue holds it to no minimum notional. */
function closesSide(side: 'BUY' | 'SELL', positionSide: string | undefined): boolean {
  return (positionSide === 'LONG' && side === 'SELL') || (positionSide === 'SHORT' && side === 'BUY');
}

/** A price of an intent in ticks when it is a positive multiple of the tick size, else undefined. */
function priceTicks(info: SymbolInfo, price: string): number | undefined {
  const t = info.tick.toUnits(price);
  return t === undefined || t <= 0 ? undefined : t;
}

/** The one denial of a price field off the grid or not positive, for every intent and field. */
function offTick(info: SymbolInfo, symbol: string, field: string, price: string): Decision {
  return deny('OFF_GRID', `${field} ${price} is not a positive multiple of the tick size ${info.tickSize} of ${symbol}`);
}

function priceOf(intent: Intent): string | undefined {
  if (intent.kind === 'place') return intent.price;
  if (intent.kind === 'amend') return intent.price;
  if (intent.kind === 'bracket') return intent.entryPrice;
  return undefined;
}

/**
 * The worst price a MARKET order that opens would fill at, as far as the bot can see: walked
 * through the order book it holds for the symbol (a strategy that asks for depth), or the best
 * price of its ticker; undefined when it holds neither (the band cannot be checked then). A
 * reduce-only order is not held back: a stop-loss or a flatten must go out whatever the price.
 */
function marketFillPrice(intent: Intent & { kind: 'place' }, ctx: RiskContext): { price: string; from: string } | undefined {
  if (intent.reduceOnly === true) return undefined;
  const buy = intent.side === 'BUY';
  const book = ctx.state.depth(intent.symbol);
  const levels = book === undefined ? undefined : buy ? book.asks : book.bids;
  if (levels !== undefined && levels.length > 0) {
    const want = new Dec(intent.quantity);
    let got = new Dec(0);
    for (const [price, qty] of levels) {
      got = got.plus(qty);
      if (got.gte(want)) return { price, from: 'the order book the bot holds' };
    }
    return { price: levels[levels.length - 1][0], from: `at least: the ${levels.length} levels of the order book the bot holds have ${got.toString()}` };
  }
  const ticker = ctx.state.ticker(intent.symbol);
  const best = ticker === undefined ? undefined : buy ? ticker.bestAsk : ticker.bestBid;
  return best === undefined || best === '' || best === '0' ? undefined : { price: best, from: 'at least: the best price of the ticker' };
}

/**
 * What the loss limits measure from, kept across a restart (the state file): the UTC day's first
 * equity reading and the peak. Without it each restart began a fresh day's budget.
 */
export interface RiskMemory {
  /** The UTC day (days since the epoch) of `dayStartEquity`. */
  day: number;
  dayStartEquity: string;
  peakEquity: string;
}

export class RiskEngine {
  private tradingState: TradingState = 'ACTIVE';
  private stateReason = 'start';
  /** Times (ms) of the orders let through in the last second, oldest first. */
  private readonly sent = new Fifo<number>();
  private dayStart = -1;
  private dayStartEquity: Exact | undefined;
  private peakEquity: Exact | undefined;
  /** Checks in order; the first denial wins. */
  readonly checks: ReadonlyArray<{ name: string; run: Check }>;

  constructor(
    private readonly limits: RiskLimits,
    private readonly onStateChange: (state: TradingState, reason: string) => void = () => undefined,
  ) {
    this.checks = [
      { name: 'tradingState', run: (i, c) => this.checkState(i, c) },
      { name: 'symbolAndGrid', run: (i, c) => this.checkSymbol(i, c) },
      { name: 'minNotional', run: (i, c) => this.checkMinNotional(i, c) },
      { name: 'priceBand', run: (i, c) => this.checkBand(i, c) },
      { name: 'maxOrderNotional', run: (i, c) => this.checkOrderNotional(i, c) },
      { name: 'maxPosition', run: (i, c) => this.checkPosition(i, c) },
      { name: 'maxExposure', run: (i, c) => this.checkExposure(i, c) },
      { name: 'maxOpenOrders', run: (i, c) => this.checkOpenOrders(i, c) },
      { name: 'rateThrottle', run: (i, c) => this.checkRate(i, c) },
    ];
  }

  /** The configured limits (read-only). */
  get configured(): Readonly<RiskLimits> {
    return this.limits;
  }

  get state(): TradingState {
    return this.tradingState;
  }

  get reason(): string {
    return this.stateReason;
  }

  setState(state: TradingState, reason: string): void {
    if (state === this.tradingState) return;
    this.tradingState = state;
    this.stateReason = reason;
    this.onStateChange(state, reason);
  }

  /** Runs every check in order; the first denial is the decision. */
  check(intent: Intent, ctx: RiskContext): Decision {
    for (const c of this.checks) {
      const d = c.run(intent, ctx);
      if (!d.ok) return d;
    }
    if (intent.kind === 'place' || intent.kind === 'amend' || intent.kind === 'bracket') this.sent.push(ctx.clock.now());
    return ALLOW;
  }

  /** The references of the loss limits, for the state file; undefined before any equity reading. */
  memory(): RiskMemory | undefined {
    if (this.dayStartEquity === undefined || this.peakEquity === undefined) return undefined;
    return { day: this.dayStart, dayStartEquity: decOfExact(this.dayStartEquity).toFixed(), peakEquity: decOfExact(this.peakEquity).toFixed() };
  }

  /** Takes the references of a saved run: a reading on the same UTC day measures from its first one, and the peak stays. */
  restore(m: RiskMemory): void {
    this.dayStart = m.day;
    this.dayStartEquity = exactOfText(m.dayStartEquity);
    this.peakEquity = exactOfText(m.peakEquity);
  }

  /** Today's loss so far (positive when down since the UTC day's first reading), or undefined before any reading. */
  dailyLoss(): Dec | undefined {
    return this.dayStartEquity === undefined || this.lastEquity === undefined ? undefined : decOfExact(minus(this.dayStartEquity, this.lastEquity));
  }

  private lastEquity: Exact | undefined;
  private readonly dailyLossLimit = new ExactOfText();
  private readonly drawdownLimit = new ExactOfText();

  /** Feeds account equity (wallet + unrealized PnL): `observeEquityExact` of a Dec. */
  observeEquity(equity: Dec, now: number): void {
    this.observeEquityExact(exOfDec(equity), now);
  }

  /**
   * Feeds account equity (wallet + unrealized PnL) as an exact decimal (core/exact.ts: Dec's
   * digits, on bigint; the bot reads equity at every mark). Crossing the daily loss or drawdown
   * limit moves ACTIVE to REDUCING; a new UTC day resets the daily reference (not the state).
   */
  observeEquityExact(equity: Exact, now: number): void {
    const day = Math.floor(now / DAY);
    if (day !== this.dayStart || this.dayStartEquity === undefined) {
      this.dayStart = day;
      this.dayStartEquity = equity;
    }
    if (this.peakEquity === undefined || compare(equity, this.peakEquity) > 0) this.peakEquity = equity;
    this.lastEquity = equity;
    if (this.tradingState !== 'ACTIVE') return;
    if (this.limits.maxDailyLoss !== undefined) {
      const loss = minus(this.dayStartEquity, equity);
      if (compare(loss, this.dailyLossLimit.of(this.limits.maxDailyLoss)) > 0) {
        this.setState('REDUCING', `LOSS_LIMIT: daily loss ${formatExact(loss, Math.max(0, -loss.e))} exceeds ${this.limits.maxDailyLoss}`);
        return;
      }
    }
    const peak = this.peakEquity;
    if (this.limits.maxDrawdown !== undefined && sign(peak) > 0) {
      const limit = this.drawdownLimit.of(this.limits.maxDrawdown);
      const down = minus(peak, equity);
      // The drawdown down / peak (rounded to 60 digits) can exceed the limit only when down >
      // limit x peak, a product exact while the two have 60 digits between them (peak > 0, and
      // rounding never takes a quotient at or below a 60-digit limit above it): the division is
      // made, and decides as before, only then.
      if (digitsOf(limit.m) + digitsOf(peak.m) > 60 || compare(down, times(limit, peak)) > 0) {
        const dd = decOfExact(down).div(decOfExact(peak));
        if (dd.gt(this.limits.maxDrawdown)) this.setState('REDUCING', `LOSS_LIMIT: drawdown ${dd.toFixed(4)} exceeds ${this.limits.maxDrawdown}`);
      }
    }
  }

  private checkState(intent: Intent, ctx: RiskContext): Decision {
    if (this.tradingState === 'ACTIVE') return ALLOW;
    if (intent.kind === 'cancel' || intent.kind === 'cancelAll') return ALLOW;
    if (this.tradingState === 'HALTED') return deny('STATE_HALTED', `trading is HALTED (${this.stateReason}): only cancels are allowed`);
    if (reducesExposure(intent, ctx)) return ALLOW;
    const code = this.stateReason.startsWith('LOSS_LIMIT') ? 'LOSS_LIMIT' : 'STATE_REDUCING';
    return deny(code, `trading is REDUCING (${this.stateReason}): only intents that reduce exposure are allowed`);
  }

  private checkSymbol(intent: Intent, ctx: RiskContext): Decision {
    if (intent.kind === 'cancel' || intent.kind === 'amend') {
      const o = ctx.tracker.get(intent.clientOrderId);
      if (!o) return deny('UNKNOWN_ORDER', `no order ${intent.clientOrderId} of this bot`);
      if (intent.kind === 'cancel') return ALLOW;
      return this.gridCheck(ctx.symbols.get(o.symbol), o.symbol, 'price', intent.price, intent.quantity);
    }
    if (intent.kind === 'cancelAll') return intent.symbol === undefined || ctx.symbols.has(intent.symbol) ? ALLOW : deny('UNKNOWN_SYMBOL', `unknown symbol ${intent.symbol}`);
    const info = ctx.symbols.get(intent.symbol);
    if (!info) return deny('UNKNOWN_SYMBOL', `unknown symbol ${intent.symbol}`);
    if (intent.kind === 'setLeverage') {
      return Number.isInteger(intent.leverage) && intent.leverage >= 1 && intent.leverage <= info.maxLeverage ? ALLOW : deny('OFF_GRID', `leverage must be 1..${info.maxLeverage}, got ${intent.leverage}`);
    }
    if (intent.kind === 'place') {
      if (intent.type === 'LIMIT' && intent.price === undefined) return deny('OFF_GRID', 'a LIMIT intent needs a price');
      return this.gridCheck(info, intent.symbol, 'price', intent.price, intent.quantity);
    }
    const entry = this.gridCheck(info, intent.symbol, 'entryPrice', intent.entryPrice, intent.quantity);
    return entry.ok ? RiskEngine.bracketCheck(intent, info) : entry;
  }

  private gridCheck(info: SymbolInfo | undefined, symbol: string, field: string, price: string | undefined, quantity: string): Decision {
    if (!info) return deny('UNKNOWN_SYMBOL', `unknown symbol ${symbol}`);
    if (price !== undefined && priceTicks(info, price) === undefined) return offTick(info, symbol, field, price);
    const q = info.step.toUnits(quantity);
    const min = info.step.toUnits(info.minQty) ?? 1;
    const max = info.step.toUnits(info.maxQty) ?? Number.MAX_SAFE_INTEGER;
    if (q === undefined || q < min || q > max) return deny('OFF_GRID', `quantity ${quantity} must be a multiple of ${info.stepSize} within ${info.minQty}..${info.maxQty} for ${symbol}`);
    return ALLOW;
  }

  /**
   * A bracket's exits, once its entry price and quantity passed the grid: each a positive multiple
   * of the tick (the venue refuses a zero or negative one only after the whole OTOCO went out, and
   * names its sub-order, not the field), then on the right side. The venue takes an exit on the
   * wrong side: when the entry fills it places the take-profit LIMIT, which trades at once, and the
   * STOP_MARKET, which triggers at once; no rule of its relates the legs. So the bot refuses what
   * the intent alone shows. A LIMIT entry fills at its price or better: for a BUY the take-profit
   * must be above it and the stop-loss below it (mirrored for a SELL). A MARKET entry has no price
   * and the venue checks its exits against none (the bot sends no priceProtect): only their order
   * is checked, the take-profit beyond the stop-loss, without which one of them is at or through
   * any fill.
   */
  private static bracketCheck(intent: BracketIntent, info: SymbolInfo): Decision {
    const tp = priceTicks(info, intent.takeProfitPrice);
    if (tp === undefined) return offTick(info, intent.symbol, 'takeProfitPrice', intent.takeProfitPrice);
    const sl = priceTicks(info, intent.stopLossPrice);
    if (sl === undefined) return offTick(info, intent.symbol, 'stopLossPrice', intent.stopLossPrice);
    const buy = intent.side === 'BUY';
    const [profit, loss] = buy ? ['above', 'below'] : ['below', 'above'];
    // Positive when `a` is on the profit side of `b` for this bracket's side.
    const beyond = (a: number, b: number): number => (buy ? a - b : b - a);
    const { takeProfitPrice: tpPrice, stopLossPrice: slPrice, entryPrice } = intent;
    if (entryPrice !== undefined) {
      const e = priceTicks(info, entryPrice) ?? 0;
      if (beyond(tp, e) <= 0) {
        return deny('BRACKET_EXITS', `takeProfitPrice ${tpPrice} must be ${profit} entryPrice ${entryPrice} for a ${intent.side} bracket: the entry may fill at its limit, and a take-profit at or ${loss} it would then close the position at once, at no gain or at a loss`);
      }
      if (beyond(e, sl) <= 0) {
        return deny('BRACKET_EXITS', `stopLossPrice ${slPrice} must be ${loss} entryPrice ${entryPrice} for a ${intent.side} bracket: the entry fills at its limit or better, and a stop-loss at or ${profit} it would trigger as soon as it does`);
      }
    } else if (beyond(tp, sl) <= 0) {
      return deny('BRACKET_EXITS', `takeProfitPrice ${tpPrice} must be ${profit} stopLossPrice ${slPrice} for a ${intent.side} bracket: wherever the MARKET entry fills, one of the two would be at or through that price and close the position at once`);
    }
    return ALLOW;
  }

  private checkBand(intent: Intent, ctx: RiskContext): Decision {
    const band = this.limits.priceBand;
    if (band === undefined) return ALLOW;
    const market = intent.kind === 'place' && intent.type === 'MARKET' ? marketFillPrice(intent, ctx) : undefined;
    const price = priceOf(intent) ?? market?.price;
    if (price === undefined) return ALLOW;
    const symbol = intent.kind === 'amend' ? ctx.tracker.get(intent.clientOrderId)?.symbol : 'symbol' in intent ? intent.symbol : undefined;
    const info = symbol === undefined ? undefined : ctx.symbols.get(symbol);
    const mark = symbol === undefined ? undefined : ctx.state.mark(symbol)?.markPrice;
    if (!info || mark === undefined) return ALLOW;
    const p = info.tick.toUnits(price);
    const m = info.tick.toUnits(mark);
    if (p === undefined || m === undefined || m <= 0) return ALLOW;
    // |p - m| / m > band  <=>  |p - m| * 10^scale > bandScaled * m, all integers.
    const { scaled, den } = this.bandRatio(band);
    if (Math.abs(p - m) * den <= scaled * m) return ALLOW;
    const dev = new Dec(price).minus(mark).abs().div(mark);
    const what = market === undefined || intent.kind !== 'place' ? `price ${price} is` : `a MARKET ${intent.side} of ${intent.quantity} would fill up to ${price} (${market.from}),`;
    return deny('PRICE_BAND', `${what} ${dev.times(100).toFixed(2)} % from mark ${mark}, beyond the band of ${new Dec(band).times(100).toFixed()} %`);
  }

  private bandCache: { band: string; scaled: number; den: number } | undefined;

  private bandRatio(band: string): { scaled: number; den: number } {
    if (this.bandCache?.band !== band) {
      const scale = fractionDigits(band);
      this.bandCache = { band, scaled: toScaledInt(band, scale) ?? 0, den: 10 ** scale };
    }
    return this.bandCache;
  }

  /** A USDT limit in the symbol's notional units (one tick times one step), floored; cached. */
  private readonly unitLimits = new Map<string, number>();

  private limitUnits(info: SymbolInfo, limit: string): number {
    const key = `${info.symbol}|${limit}`;
    let u = this.unitLimits.get(key);
    if (u === undefined) {
      const unit = new Dec(info.tickSize).times(info.stepSize);
      u = new Dec(limit).div(unit).toDecimalPlaces(0, Dec.ROUND_FLOOR).toNumber();
      this.unitLimits.set(key, u);
    }
    return u;
  }

  /** Ticks of the intent's price, or of mark for a market order; undefined when unknown. */
  private static priceTicks(intent: Intent & { symbol: string }, info: SymbolInfo, ctx: RiskContext): number | undefined {
    const price = (intent.kind === 'place' ? intent.price : intent.kind === 'bracket' ? intent.entryPrice : undefined) ?? ctx.state.mark(intent.symbol)?.markPrice;
    return price === undefined ? undefined : info.tick.toUnits(price);
  }

  /** The symbol's minimum notional in its notional units (one tick times one step), rounded up; per spec, cached. */
  private readonly minUnits = new WeakMap<SymbolInfo, number>();

  private minNotionalUnits(info: SymbolInfo): number {
    let u = this.minUnits.get(info);
    if (u === undefined) {
      u = new Dec(info.minNotional).div(new Dec(info.tickSize).times(info.stepSize)).ceil().toNumber();
      this.minUnits.set(info, u);
    }
    return u;
  }

  /**
   * The venue's minimum notional (30006), before the order goes out: price x quantity of a place,
   * of a bracket's entry and of an amend (its new price and total quantity), a MARKET order (or
   * MARKET entry) valued at mark as the order-notional limit values it. As the venue, an order that
   * only closes is not held to it: reduce-only, or in hedge mode a SELL of the LONG side or a BUY
   * of the SHORT side. A MARKET order with no mark known yet passes (the venue decides).
   */
  private checkMinNotional(intent: Intent, ctx: RiskContext): Decision {
    let symbol: string;
    let price: string | undefined;
    let what = 'order';
    let at = 'price';
    if (intent.kind === 'place' || intent.kind === 'bracket') {
      if (intent.kind === 'place' && (intent.reduceOnly === true || closesSide(intent.side, intent.positionSide))) return ALLOW;
      symbol = intent.symbol;
      price = intent.kind === 'place' ? intent.price : intent.entryPrice;
      if (price === undefined) {
        price = ctx.state.mark(symbol)?.markPrice;
        at = 'mark';
      }
      if (intent.kind === 'bracket') what = 'bracket entry';
    } else if (intent.kind === 'amend') {
      const o = ctx.tracker.get(intent.clientOrderId);
      if (!o || o.reduceOnly || closesSide(o.side, ctx.state.order(intent.clientOrderId)?.positionSide)) return ALLOW;
      symbol = o.symbol;
      price = intent.price;
      what = 'amended order';
    } else return ALLOW;
    const info = ctx.symbols.get(symbol);
    if (!info || price === undefined) return ALLOW;
    const steps = info.step.toUnits(intent.quantity);
    if (steps === undefined) return ALLOW;
    // In integer (tick x step) units while the product is exact (a mark off the tick grid, or a
    // product beyond 2^53, in decimals).
    const ticks = info.tick.toUnits(price);
    const units = ticks === undefined ? Number.NaN : ticks * steps;
    const notional = (): Dec => new Dec(price).times(info.step.decOf(steps));
    if (Number.isSafeInteger(units) ? units >= this.minNotionalUnits(info) : !notional().lt(info.minNotional)) return ALLOW;
    return deny('MIN_NOTIONAL', `${what} notional ${notional().toFixed()} (${at} ${price} x quantity ${intent.quantity}) is below the minimum notional ${info.minNotional} of ${symbol}`);
  }

  private checkOrderNotional(intent: Intent, ctx: RiskContext): Decision {
    const limit = this.limits.maxOrderNotional;
    if (limit === undefined || (intent.kind !== 'place' && intent.kind !== 'bracket')) return ALLOW;
    const info = ctx.symbols.get(intent.symbol);
    if (!info) return ALLOW;
    const ticks = RiskEngine.priceTicks(intent, info, ctx);
    const steps = info.step.toUnits(intent.quantity);
    if (ticks === undefined || steps === undefined) return ALLOW;
    if (ticks * steps <= this.limitUnits(info, limit)) return ALLOW;
    const n = info.tick.decOf(ticks).times(info.step.decOf(steps));
    return deny('MAX_ORDER_NOTIONAL', `order notional ${n.toFixed()} exceeds ${limit}`);
  }

  private checkPosition(intent: Intent, ctx: RiskContext): Decision {
    const limit = this.limits.maxPositionNotional;
    if (limit === undefined || (intent.kind !== 'place' && intent.kind !== 'bracket')) return ALLOW;
    if (reducesExposure(intent, ctx)) return ALLOW;
    const info = ctx.symbols.get(intent.symbol);
    if (!info) return ALLOW;
    const markStr = ctx.state.mark(intent.symbol)?.markPrice ?? (intent.kind === 'place' ? intent.price : intent.entryPrice);
    const mark = markStr === undefined ? undefined : info.tick.toUnits(markStr);
    const qty = info.step.toUnits(intent.quantity);
    if (mark === undefined || qty === undefined) return ALLOW;
    const sign = intent.side === 'BUY' ? 1 : -1;
    let worst = positionSteps(ctx, intent.symbol, info) + qty * sign;
    for (const o of ctx.tracker.live(undefined, intent.symbol)) {
      if (o.reduceOnly || o.side !== intent.side) continue;
      worst += ((info.step.toUnits(o.quantity) ?? 0) - (info.step.toUnits(o.executedQty) ?? 0)) * sign;
    }
    for (const p of ctx.pending ?? []) {
      if (p.kind === 'place' && p.reduceOnly === true) continue;
      if ((p.kind !== 'place' && p.kind !== 'bracket') || p.symbol !== intent.symbol || p.side !== intent.side) continue;
      worst += (info.step.toUnits(p.quantity) ?? 0) * sign;
    }
    if (Math.abs(worst) * mark <= this.limitUnits(info, limit)) return ALLOW;
    const n = info.step.decOf(Math.abs(worst)).times(info.tick.decOf(mark));
    return deny('MAX_POSITION', `${intent.symbol} position could reach ${n.toFixed(2)} notional with open orders, above ${limit}`);
  }

  private checkExposure(intent: Intent, ctx: RiskContext): Decision {
    if (this.limits.maxTotalExposure === undefined || (intent.kind !== 'place' && intent.kind !== 'bracket')) return ALLOW;
    if (reducesExposure(intent, ctx)) return ALLOW;
    let total = intentNotional(intent, ctx) ?? ZERO;
    for (const p of ctx.state.positions()) {
      const mark = ctx.state.mark(p.symbol)?.markPrice ?? p.markPrice;
      total = total.plus(new Dec(p.quantity).abs().times(mark));
    }
    return total.gt(this.limits.maxTotalExposure) ? deny('MAX_EXPOSURE', `total exposure would be ${total.toFixed(2)}, above ${this.limits.maxTotalExposure}`) : ALLOW;
  }

  private checkOpenOrders(intent: Intent, ctx: RiskContext): Decision {
    if (this.limits.maxOpenOrders === undefined || (intent.kind !== 'place' && intent.kind !== 'bracket')) return ALLOW;
    let live = ctx.tracker.live().length;
    // A pending bracket counts once: the tracker follows its entry; its exits appear on fill.
    live += (ctx.pending ?? []).length;
    return live >= this.limits.maxOpenOrders ? deny('MAX_OPEN_ORDERS', `${live} orders are live, the limit is ${this.limits.maxOpenOrders}`) : ALLOW;
  }

  private checkRate(intent: Intent, ctx: RiskContext): Decision {
    if (this.limits.maxOrdersPerSecond === undefined) return ALLOW;
    if (intent.kind !== 'place' && intent.kind !== 'amend' && intent.kind !== 'bracket') return ALLOW;
    const now = ctx.clock.now();
    for (let t = this.sent.peek(); t !== undefined && t <= now - 1000; t = this.sent.peek()) this.sent.shift();
    return this.sent.length >= this.limits.maxOrdersPerSecond ? deny('RATE_THROTTLED', `${this.sent.length} orders in the last second, the limit is ${this.limits.maxOrdersPerSecond}`) : ALLOW;
  }
}
