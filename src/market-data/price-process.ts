/**
 * Index and mark price of one synthetic symbol. Log returns per step follow GARCH(1,1):
 *
 *   r_t = sigma_t * z_t + J_t,   sigma_t^2 = omega + alpha * (r_{t-1} - J_{t-1})^2 + beta * sigma_{t-1}^2
 *
 * so calm and busy stretches alternate (volatility clustering) as in real markets, plus jumps J_t
 * arriving as a Poisson process with Laplace-distributed (fat-tailed, symmetric) sizes. The mark
 * price is the index times (1 + basis), the basis a mean-reverting (Ornstein-Uhlenbeck) premium,
 * which is what the funding rate follows. Both come out as integer ticks of the symbol's grid.
 */
import type { Prng } from './prng';

export interface PriceProcessParams {
  /** Long-run standard deviation of the diffusive log return per step. */
  stepVol: number;
  /** GARCH reaction to the last shock. */
  alpha: number;
  /** GARCH persistence of variance; alpha + beta < 1. */
  beta: number;
  /** Expected jumps per step. */
  jumpRate: number;
  /** Mean absolute jump size (log return). */
  jumpScale: number;
  /** Basis mean reversion per step, 0..1. */
  basisReversion: number;
  /** Basis noise per step. */
  basisVol: number;
}

/** 200 ms steps: about 80 % annualised volatility, a jump every ~5 minutes of ~0.15 %. */
export const DEFAULT_PRICE_PARAMS: PriceProcessParams = {
  stepVol: 0.8 / Math.sqrt(365 * 24 * 3600 * 5),
  alpha: 0.1,
  beta: 0.85,
  jumpRate: 1 / 1500,
  jumpScale: 0.0015,
  basisReversion: 0.05,
  basisVol: 0.00002,
};

export interface PriceStep {
  indexTicks: number;
  markTicks: number;
  /** Log return of the index this step. */
  ret: number;
  jump: boolean;
}

export class PriceProcess {
  private logIndex: number;
  private variance: number;
  private lastShock = 0;
  private basis = 0;
  private readonly omega: number;

  constructor(
    startPrice: number,
    private readonly tickSize: number,
    private readonly rng: Prng,
    private readonly p: PriceProcessParams = DEFAULT_PRICE_PARAMS,
  ) {
    if (!(p.alpha >= 0 && p.beta >= 0 && p.alpha + p.beta < 1)) throw new RangeError(`GARCH needs alpha, beta >= 0 and alpha + beta < 1, got alpha ${p.alpha}, beta ${p.beta}`);
    if (!(startPrice > 0 && tickSize > 0)) throw new RangeError('start price and tick size must be positive');
    const longRun = p.stepVol * p.stepVol;
    this.omega = longRun * (1 - p.alpha - p.beta);
    this.variance = longRun;
    this.logIndex = Math.log(startPrice);
  }

  /** Current conditional variance of the diffusive part. */
  get currentVariance(): number {
    return this.variance;
  }

  step(): PriceStep {
    const p = this.p;
    this.variance = this.omega + p.alpha * this.lastShock * this.lastShock + p.beta * this.variance;
    const shock = Math.sqrt(this.variance) * this.rng.normal();
    this.lastShock = shock;
    let jump = 0;
    const n = this.rng.poisson(p.jumpRate);
    for (let i = 0; i < n; i++) jump += (this.rng.next() < 0.5 ? -1 : 1) * this.rng.exponential(p.jumpScale);
    const ret = shock + jump;
    this.logIndex += ret;
    this.basis += -p.basisReversion * this.basis + p.basisVol * this.rng.normal();
    const index = Math.exp(this.logIndex);
    const indexTicks = Math.max(1, Math.round(index / this.tickSize));
    const markTicks = Math.max(1, Math.round((index * (1 + this.basis)) / this.tickSize));
    return { indexTicks, markTicks, ret, jump: n > 0 };
  }
}
