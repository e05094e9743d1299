import { Dec, Grid, parseDec } from '../../core';
import { MONEY_DP } from '../../core/values';
import { compare, exOfDec, formatExact, type Exact } from '../../core/exact';
import { scaledRateOf, type ScaledRate } from '../../core/money-units';
import type { SymbolSpec as WireSymbolSpec } from '../../protocol/rest/market';

/** One maintenance-margin tier (Binance-style): applies while position notional <= `maxNotional`. */
export interface MarginTier {
  /** Upper bound of position notional for this tier; "0" means unbounded (last tier). */
  maxNotional: string;
  /** Maintenance margin rate, e.g. "0.004" for 0.4 %. */
  maintenanceMarginRate: string;
  /** Maintenance amount that keeps MM continuous across tiers. */
  maintenanceAmount: string;
  maxLeverage: number;
}

/** Contract specification of one symbol, as configured. */
export interface SymbolConfig {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  tickSize: string;
  stepSize: string;
  minQty: string;
  maxQty: string;
  minNotional: string;
  maxLeverage: number;
  makerFee: string;
  takerFee: string;
  /** Mark (and index) price at start. */
  markPrice: string;
  /** Funding rate applied at the next settlement unless the market changes it. */
  fundingRate: string;
  /** Funding interval in ms; settlements fall on multiples of it since epoch. */
  fundingIntervalMs: number;
  tiers: MarginTier[];
}

/** Parsed, integer-ready view of a symbol used by the engine. */
export class SymbolSpec {
  readonly name: string;
  readonly tick: Grid;
  readonly step: Grid;
  readonly minQtySteps: number;
  readonly maxQtySteps: number;
  readonly minNotional: Dec;
  /** The minimum notional in (tick x step) units, rounded up: ticks x steps below it is below the minimum. */
  readonly minNotionalUnits: number;
  readonly maxLeverage: number;
  /** Fraction digits of a price x quantity product (tick scale + step scale); at most MONEY_DP. */
  readonly notionalScale: number;
  /** 10^(MONEY_DP - notionalScale): a notional at its own scale times this is money units. */
  private readonly moneyFactor: bigint;
  /** moneyFactor as a double (a power of ten up to 10^MONEY_DP: exact). */
  private readonly moneyFactorNumber: number;
  readonly makerFee: Dec;
  readonly takerFee: Dec;
  /** The fees as exact integer ratios, for fills in money units. */
  readonly makerFeeRate: ScaledRate;
  readonly takerFeeRate: ScaledRate;
  /** takerFee as an exact decimal for position figures (core/exact.ts). */
  readonly takerFeeExact: Exact;
  readonly tiers: ReadonlyArray<{ maxNotional: Exact | undefined; mmr: Exact; amount: Exact; maxLeverage: number }>;
  /** The tiers as doubles (cap Infinity for the last), for float screens that leave anything close to the exact figures. */
  readonly floatTiers: ReadonlyArray<{ cap: number; mmr: number; amount: number }>;

  constructor(readonly config: SymbolConfig) {
    this.name = config.symbol;
    this.tick = new Grid(config.tickSize);
    this.step = new Grid(config.stepSize);
    const minQ = this.step.toUnits(config.minQty);
    const maxQ = this.step.toUnits(config.maxQty);
    if (minQ === undefined || minQ <= 0) throw new RangeError(`${config.symbol}: minQty ${config.minQty} must be a positive multiple of stepSize ${config.stepSize}`);
    if (maxQ === undefined || maxQ < minQ) throw new RangeError(`${config.symbol}: maxQty ${config.maxQty} must be a multiple of stepSize and >= minQty`);
    this.minQtySteps = minQ;
    this.maxQtySteps = maxQ;
    this.notionalScale = this.tick.scale + this.step.scale;
    // Balances are integer money units (10^-MONEY_DP): every notional must be one exactly.
    if (this.notionalScale > MONEY_DP) {
      throw new RangeError(`${config.symbol}: tickSize ${config.tickSize} and stepSize ${config.stepSize} have ${this.notionalScale} decimals together; at most ${MONEY_DP} are supported (a price x quantity must be a whole number of 10^-${MONEY_DP} USDT)`);
    }
    this.minNotional = parseDec(config.minNotional, `${config.symbol}.minNotional`);
    this.minNotionalUnits = this.minNotional.div(new Dec(config.tickSize).times(config.stepSize)).ceil().toNumber();
    if (!Number.isInteger(config.maxLeverage) || config.maxLeverage < 1) throw new RangeError(`${config.symbol}: maxLeverage must be an integer >= 1`);
    this.maxLeverage = config.maxLeverage;
    this.makerFee = parseDec(config.makerFee, `${config.symbol}.makerFee`);
    this.takerFee = parseDec(config.takerFee, `${config.symbol}.takerFee`);
    this.makerFeeRate = scaledRateOf(this.makerFee);
    this.takerFeeRate = scaledRateOf(this.takerFee);
    this.takerFeeExact = exOfDec(this.takerFee);
    this.moneyFactor = 10n ** BigInt(MONEY_DP - this.notionalScale);
    this.moneyFactorNumber = 10 ** (MONEY_DP - this.notionalScale);
    if (config.tiers.length === 0) throw new RangeError(`${config.symbol}: at least one margin tier is required`);
    this.tiers = config.tiers.map((t, i) => {
      const cap = parseDec(t.maxNotional, `${config.symbol}.tiers[${i}].maxNotional`);
      return {
        maxNotional: cap.isZero() ? undefined : exOfDec(cap),
        mmr: exOfDec(parseDec(t.maintenanceMarginRate, `${config.symbol}.tiers[${i}].maintenanceMarginRate`)),
        amount: exOfDec(parseDec(t.maintenanceAmount, `${config.symbol}.tiers[${i}].maintenanceAmount`)),
        maxLeverage: t.maxLeverage,
      };
    });
    this.floatTiers = this.tiers.map((t, i) => ({
      cap: t.maxNotional === undefined || i === this.tiers.length - 1 ? Infinity : Number(formatExact(t.maxNotional, Math.max(0, -t.maxNotional.e))),
      mmr: Number(formatExact(t.mmr, Math.max(0, -t.mmr.e))),
      amount: Number(formatExact(t.amount, Math.max(0, -t.amount.e))),
    }));
  }

  /**
   * price x quantity as an integer at 10^-notionalScale (exact, any size). Ticks and steps are
   * safe integers, so a product of doubles up to 2^53 is exact (every partial
   * product is an integer no larger): one BigInt then, rather than four and three multiplications.
   */
  notionalUnits(ticks: number, steps: number): bigint {
    const p = ticks * this.tick.unitScaled * steps * this.step.unitScaled;
    if (Math.abs(p) <= Number.MAX_SAFE_INTEGER) return BigInt(p);
    return BigInt(ticks) * BigInt(this.tick.unitScaled) * BigInt(steps) * BigInt(this.step.unitScaled);
  }

  /** price x quantity in money units (exact: notionalScale <= MONEY_DP); the same exact double product first. */
  notionalMoney(ticks: number, steps: number): bigint {
    const p = ticks * this.tick.unitScaled * steps * this.step.unitScaled * this.moneyFactorNumber;
    if (Math.abs(p) <= Number.MAX_SAFE_INTEGER) return BigInt(p);
    return this.notionalUnits(ticks, steps) * this.moneyFactor;
  }

  /** The tier that applies to a position of this absolute notional. */
  tierFor(notional: Exact): { mmr: Exact; amount: Exact } {
    for (const t of this.tiers) {
      if (t.maxNotional === undefined || compare(notional, t.maxNotional) <= 0) return t;
    }
    return this.tiers[this.tiers.length - 1];
  }
}

const BTC_TIERS: MarginTier[] = [
  { maxNotional: '50000', maintenanceMarginRate: '0.004', maintenanceAmount: '0', maxLeverage: 125 },
  { maxNotional: '250000', maintenanceMarginRate: '0.005', maintenanceAmount: '50', maxLeverage: 100 },
  { maxNotional: '1000000', maintenanceMarginRate: '0.01', maintenanceAmount: '1300', maxLeverage: 50 },
  { maxNotional: '0', maintenanceMarginRate: '0.025', maintenanceAmount: '16300', maxLeverage: 20 },
];

const ETH_TIERS: MarginTier[] = [
  { maxNotional: '10000', maintenanceMarginRate: '0.005', maintenanceAmount: '0', maxLeverage: 100 },
  { maxNotional: '100000', maintenanceMarginRate: '0.0065', maintenanceAmount: '15', maxLeverage: 75 },
  { maxNotional: '500000', maintenanceMarginRate: '0.01', maintenanceAmount: '365', maxLeverage: 50 },
  { maxNotional: '0', maintenanceMarginRate: '0.02', maintenanceAmount: '5365', maxLeverage: 25 },
];

const EIGHT_HOURS = 8 * 60 * 60 * 1000;

/** The symbols every local exchange has (PROTOCOL.md section 7). */
export const DEFAULT_SYMBOLS: readonly SymbolConfig[] = [
  {
    symbol: 'BTCUSDT',
    baseAsset: 'BTC',
    quoteAsset: 'USDT',
    tickSize: '0.1',
    stepSize: '0.001',
    minQty: '0.001',
    maxQty: '1000',
    minNotional: '5',
    maxLeverage: 125,
    makerFee: '0.0002',
    takerFee: '0.0005',
    markPrice: '50000',
    fundingRate: '0.0001',
    fundingIntervalMs: EIGHT_HOURS,
    tiers: BTC_TIERS,
  },
  {
    symbol: 'ETHUSDT',
    baseAsset: 'ETH',
    quoteAsset: 'USDT',
    tickSize: '0.01',
    stepSize: '0.001',
    minQty: '0.001',
    maxQty: '10000',
    minNotional: '5',
    maxLeverage: 100,
    makerFee: '0.0002',
    takerFee: '0.0005',
    markPrice: '3000',
    fundingRate: '0.0001',
    fundingIntervalMs: EIGHT_HOURS,
    tiers: ETH_TIERS,
  },
];

/** The wire contract spec (GET /v1/public/market/symbols, recording headers) of a configured symbol. */
export function wireSpecOf(c: SymbolConfig): WireSymbolSpec {
  return {
    symbol: c.symbol,
    baseAsset: c.baseAsset,
    quoteAsset: c.quoteAsset,
    tickSize: c.tickSize,
    stepSize: c.stepSize,
    minQty: c.minQty,
    maxQty: c.maxQty,
    minNotional: c.minNotional,
    maxLeverage: c.maxLeverage,
    makerFee: c.makerFee,
    takerFee: c.takerFee,
    marginTiers: c.tiers.map((t, i) => ({
      tier: i + 1,
      maxNotional: t.maxNotional,
      maxLeverage: t.maxLeverage,
      maintenanceMarginRate: t.maintenanceMarginRate,
      maintenanceAmount: t.maintenanceAmount,
    })),
  };
}
