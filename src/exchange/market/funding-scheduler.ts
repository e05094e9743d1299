/**
 * Settles funding when it is due, in every market mode: once a second it asks the engine which
 * symbols' funding time has come and executes `settleFunding` for them (a journaled command, so a
 * restart neither repeats nor skips a round). In the synthetic market it also moves the funding
 * rate with the premium of mark over index, as a real venue's rate follows its premium index.
 */
import type { Clock } from '../../core/clock';
import { Dec, formatDec } from '../../core/decimal';
import type { ExchangeCore } from '../service/exchange-core';

export interface FundingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface FundingSchedulerOptions {
  core: ExchangeCore;
  /** Time source for "is it due"; defaults to the core's wall clock (which stamps commands). */
  clock?: Clock;
  intervalMs?: number;
  /** Follow the premium with the funding rate (synthetic market). */
  premium?: boolean;
  /** How often a new rate is set when following the premium, ms. */
  rateUpdateMs?: number;
  logger?: FundingLogger;
}

/** Interest part of the rate and the clamp around it (Binance-style: 0.01 % +- 0.05 %). */
const INTEREST = 0.0001;
const CLAMP = 0.0005;
/** Largest rate set, well inside the engine's +-5 %. */
const MAX_RATE = 0.0075;

export class FundingScheduler {
  private readonly core: ExchangeCore;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly premium: boolean;
  private readonly rateUpdateMs: number;
  private readonly log: FundingLogger | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Running mean of the premium per symbol since the last rate update. */
  private readonly samples = new Map<string, { sum: number; n: number }>();
  private lastRateUpdate = 0;
  /** Rounds settled by this scheduler. */
  settled = 0;

  constructor(opts: FundingSchedulerOptions) {
    this.core = opts.core;
    this.clock = opts.clock ?? opts.core.wallClock;
    this.intervalMs = opts.intervalMs ?? 1000;
    this.premium = opts.premium ?? false;
    this.rateUpdateMs = opts.rateUpdateMs ?? 60_000;
    this.log = opts.logger;
  }

  start(): void {
    if (this.timer) return;
    this.lastRateUpdate = this.clock.now();
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((e: unknown) => this.log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'funding tick failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One check: settle what is due, and in premium mode sample and maybe set the rate. */
  async tick(): Promise<void> {
    const now = this.clock.now();
    const engine = this.core.engine;
    if (this.premium) {
      for (const spec of engine.symbolSpecs()) {
        const m = engine.marketState(spec.name);
        const index = Number(m.indexPrice);
        if (!(index > 0)) continue;
        // A ratio of prices for a rate estimate, not money: a float is fine here.
        const p = (Number(m.markPrice) - index) / index;
        const s = this.samples.get(spec.name) ?? { sum: 0, n: 0 };
        s.sum += p;
        s.n++;
        this.samples.set(spec.name, s);
      }
      if (now - this.lastRateUpdate >= this.rateUpdateMs) {
        this.lastRateUpdate = now;
        for (const [symbol, s] of this.samples) {
          if (s.n === 0) continue;
          const prem = s.sum / s.n;
          const rate = Math.max(-MAX_RATE, Math.min(MAX_RATE, prem + Math.max(-CLAMP, Math.min(CLAMP, INTEREST - prem))));
          const str = formatDec(new Dec(rate.toFixed(8)));
          this.samples.set(symbol, { sum: 0, n: 0 });
          if (str === engine.marketState(symbol).fundingRate) continue;
          await this.core.execute({ k: 'setFundingRate', symbol, rate: str === '-0' ? '0' : str });
        }
      }
    }
    for (const symbol of engine.fundingDue(now)) {
      await this.core.execute({ k: 'settleFunding', symbol });
      this.settled++;
      this.log?.info({ symbol, rate: engine.marketState(symbol).fundingRate }, 'funding settled');
    }
  }
}
