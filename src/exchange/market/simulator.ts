/**
 * The synthetic market: per symbol a price process moves mark and index, market makers keep a
 * ladder of limit orders around mark and takers hit it at random times. The simulated traders are
 * ordinary users (created through `createUser` at first start), and everything they do goes
 * through `core.execute`, so it is journaled like any user's commands: a restart replays what
 * they did rather than re-running the simulation.
 *
 * The simulator reads engine state (its own open orders and positions) to decide; it never
 * changes it other than by commands.
 */
import type { ExchangeCore } from '../service/exchange-core';
import type { SymbolSpec } from '../engine/symbols';
import { Prng } from '../../market-data/prng';
import { DEFAULT_PRICE_PARAMS, PriceProcess, type PriceProcessParams } from '../../market-data/price-process';

export interface SimLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const quiet: SimLogger = { debug: () => undefined, warn: () => undefined };

export interface MarketSimulatorOptions {
  core: ExchangeCore;
  seed: number;
  /** Step interval of the timers, ms. */
  tickMs?: number;
  makers?: number;
  takers?: number;
  /** Levels per side each maker keeps. */
  levels?: number;
  /** Expected taker orders per second per symbol. */
  takerRate?: number;
  /** Quote size per level, in quote currency (USDT). */
  quoteNotional?: number;
  /** Opening balance of every simulated trader. */
  balance?: string;
  price?: Partial<PriceProcessParams>;
  logger?: SimLogger;
}

/** Password hash that no password matches: simulated traders cannot log in. */
const NO_LOGIN = 'disabled$simulated-trader';

interface SymbolSim {
  spec: SymbolSpec;
  process: PriceProcess;
  /** Half spread and level spacing, ticks. */
  spacing: number;
  /** Quote size per level, steps. */
  baseSteps: number;
}

export class MarketSimulator {
  readonly makerNames: string[];
  readonly takerNames: string[];
  private readonly core: ExchangeCore;
  private readonly tickMs: number;
  private readonly levels: number;
  private readonly takerRate: number;
  private readonly quoteNotional: number;
  private readonly balance: string;
  private readonly params: PriceProcessParams;
  private readonly rng: Prng;
  private readonly log: SimLogger;
  private readonly userIds = new Map<string, string>();
  private readonly sims: SymbolSim[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private orderSeq = 0;
  /** Steps run, for tests and stats. */
  steps = 0;

  constructor(opts: MarketSimulatorOptions) {
    this.core = opts.core;
    this.tickMs = opts.tickMs ?? 200;
    this.levels = opts.levels ?? 5;
    this.takerRate = opts.takerRate ?? 2;
    this.quoteNotional = opts.quoteNotional ?? 5000;
    this.balance = opts.balance ?? '100000000';
    this.params = { ...DEFAULT_PRICE_PARAMS, ...opts.price };
    this.rng = new Prng(opts.seed);
    this.log = opts.logger ?? quiet;
    this.makerNames = Array.from({ length: opts.makers ?? 2 }, (_, i) => `mm-${i + 1}`);
    this.takerNames = Array.from({ length: opts.takers ?? 2 }, (_, i) => `taker-${i + 1}`);
  }

  /**
   * Creates the simulated traders that do not exist yet and sets up a price process per symbol
   * starting at the current mark (so a restart continues where the market was).
   */
  async init(): Promise<void> {
    for (const name of [...this.makerNames, ...this.takerNames]) {
      const existing = this.core.accounts.byUsername.get(name);
      if (existing) {
        this.userIds.set(name, existing.userId);
        continue;
      }
      const userId = this.core.accounts.nextUserId();
      await this.core.execute({ k: 'createUser', userId, username: name, passwordHash: NO_LOGIN, balance: this.balance, positionMode: 'ONE_WAY' });
      this.userIds.set(name, userId);
    }
    // Client order ids must not collide with orders of an earlier run that are still open.
    this.orderSeq = this.core.appliedCount;
    this.sims.length = 0;
    for (const spec of this.core.engine.symbolSpecs()) {
      const st = this.core.engine.marketState(spec.name);
      const tick = Number(spec.config.tickSize);
      const mark = Number(st.markPrice);
      const spacing = Math.max(1, Math.round((mark * 0.0001) / tick));
      const step = Number(spec.config.stepSize);
      const baseSteps = Math.max(spec.minQtySteps, Math.round(this.quoteNotional / mark / step));
      this.sims.push({
        spec,
        process: new PriceProcess(mark, tick, this.rng.fork(`price:${spec.name}`), this.params),
        spacing,
        baseSteps,
      });
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // A slow step (a long journal write) is not stacked on: the next one waits its turn.
      if (this.running) return;
      this.running = this.step()
        .catch((e: unknown) => this.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'market simulator step failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One step for every symbol: move the price, requote, maybe trade. */
  async step(): Promise<void> {
    this.steps++;
    for (const sim of this.sims) {
      const move = sim.process.step();
      const cur = this.core.engine.marketState(sim.spec.name);
      const tick = sim.spec.tick;
      if (tick.fromUnits(move.markTicks) !== cur.markPrice || tick.fromUnits(move.indexTicks) !== cur.indexPrice) {
        await this.exec({ k: 'setMarkPrice', symbol: sim.spec.name, markPrice: tick.fromUnits(move.markTicks), indexPrice: tick.fromUnits(move.indexTicks) });
      }
      for (let m = 0; m < this.makerNames.length; m++) await this.quote(sim, m, move.markTicks);
      const n = this.rng.poisson((this.takerRate * this.tickMs) / 1000);
      for (let i = 0; i < n; i++) await this.take(sim, move.markTicks);
    }
  }

  private async exec(cmd: Parameters<ExchangeCore['execute']>[0]): Promise<unknown> {
    try {
      return await this.core.execute(cmd);
    } catch (e) {
      // Refusals (margin, a level that filled in between) are part of a live market: skip.
      this.log.debug({ cmd: cmd.k, err: e instanceof Error ? e.message : String(e) }, 'simulated command refused');
      return undefined;
    }
  }

  private positionSteps(userId: string, sim: SymbolSim): number {
    let q = 0;
    for (const p of this.core.engine.positions(userId, sim.spec.name)) {
      const steps = sim.spec.step.toUnits(p.quantity.replace('-', '')) ?? 0;
      q += p.quantity.startsWith('-') ? -steps : steps;
    }
    return q;
  }

  /**
   * Keeps maker `m`'s ladder around mark: levels that drifted by half a spacing or more are
   * amended (same order, new price), missing ones placed. Inventory shifts the ladder away from
   * the side that would grow it and shrinks that side's sizes, so makers stay near flat.
   */
  private async quote(sim: SymbolSim, m: number, mark: number): Promise<void> {
    const name = this.makerNames[m];
    const userId = this.userIds.get(name) as string;
    const spec = sim.spec;
    const inv = this.positionSteps(userId, sim);
    const invRatio = Math.max(-1, Math.min(1, inv / (sim.baseSteps * this.levels * 2)));
    const skew = Math.round(-invRatio * sim.spacing * 2);
    const open = this.core.engine.currentOrders(userId, { symbol: spec.name, limit: 200 }).list;
    const byLevel = new Map<string, (typeof open)[number]>();
    const strays: string[] = [];
    for (const o of open) {
      const lv = /^mm\d+-([ba]\d+)-/.exec(o.clientOrderId)?.[1];
      if (lv === undefined || byLevel.has(lv)) strays.push(o.orderId);
      else byLevel.set(lv, o);
    }
    const moves: Array<{ orderId: string; price: string; quantity: string }> = [];
    const places: Array<Parameters<ExchangeCore['engine']['placeOrder']>[1]> = [];
    const offset = m; // makers a tick apart, so their levels interleave instead of stacking
    for (let i = 0; i < this.levels; i++) {
      for (const side of ['b', 'a'] as const) {
        const dist = sim.spacing * (i + 1) + offset;
        const price = side === 'b' ? mark + skew - dist : mark + skew + dist;
        if (price <= 0) continue;
        const growing = (side === 'b' && invRatio > 0) || (side === 'a' && invRatio < 0);
        const sizeFactor = (1 + i * 0.5) * (growing ? 1 - Math.abs(invRatio) * 0.8 : 1);
        const steps = Math.max(spec.minQtySteps, Math.round(sim.baseSteps * sizeFactor));
        const key = `${side}${i}`;
        const cur = byLevel.get(key);
        if (cur) {
          const curPrice = spec.tick.toUnits(cur.price) ?? 0;
          if (Math.abs(curPrice - price) * 2 >= sim.spacing) {
            const executed = spec.step.toUnits(cur.executedQty) ?? 0;
            moves.push({ orderId: cur.orderId, price: spec.tick.fromUnits(price), quantity: spec.step.fromUnits(executed + steps) });
          }
        } else {
          places.push({
            symbol: spec.name,
            type: 'LIMIT',
            side: side === 'b' ? 'BUY' : 'SELL',
            price: spec.tick.fromUnits(price),
            quantity: spec.step.fromUnits(steps),
            timeInForce: 'GTC',
            clientOrderId: `mm${m + 1}-${key}-${++this.orderSeq}`,
          });
        }
      }
    }
    for (const id of strays) await this.exec({ k: 'cancelOrder', userId, ref: { symbol: spec.name, orderId: id } });
    for (let i = 0; i < moves.length; i += 20) await this.exec({ k: 'batchMove', userId, symbol: spec.name, inputs: moves.slice(i, i + 20) });
    for (let i = 0; i < places.length; i += 20) await this.exec({ k: 'batchPlace', userId, inputs: places.slice(i, i + 20) });
  }

  /** One taker order: MARKET or IOC LIMIT a few spacings through mark, leaning against inventory. */
  private async take(sim: SymbolSim, mark: number): Promise<void> {
    const name = this.takerNames[this.rng.int(this.takerNames.length)];
    const userId = this.userIds.get(name) as string;
    const spec = sim.spec;
    const inv = this.positionSteps(userId, sim);
    const limit = sim.baseSteps * this.levels * 10;
    const pBuy = 0.5 - 0.4 * Math.max(-1, Math.min(1, inv / limit));
    const buy = this.rng.next() < pBuy;
    const steps = Math.max(spec.minQtySteps, Math.round(sim.baseSteps * this.rng.exponential(0.8)));
    const qty = spec.step.fromUnits(Math.min(steps, spec.maxQtySteps));
    if (this.rng.next() < 0.5) {
      await this.exec({ k: 'placeOrder', userId, input: { symbol: spec.name, type: 'MARKET', side: buy ? 'BUY' : 'SELL', quantity: qty, clientOrderId: `tk-${++this.orderSeq}` } });
    } else {
      const through = sim.spacing * (1 + this.rng.int(3));
      const price = buy ? mark + through : Math.max(1, mark - through);
      await this.exec({
        k: 'placeOrder',
        userId,
        input: { symbol: spec.name, type: 'LIMIT', side: buy ? 'BUY' : 'SELL', price: spec.tick.fromUnits(price), quantity: qty, timeInForce: 'IOC', clientOrderId: `tk-${++this.orderSeq}` },
      });
    }
  }
}
