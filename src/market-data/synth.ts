/**
 * Synthetic recordings, fast and reproducible: the SAME price process as the local exchange's
 * synthetic market (price-process.ts, forked from the seed with the same label, so the same seed
 * and start price give the same mark path), sampled without an engine or order book:
 *  - marks (mark, index, funding rate, next funding time) every `markEveryMs`;
 *  - trades arriving as a Poisson process (`tradeRate` per second), the taker side leaning with
 *    the last move, prices a spread or a few levels through mark, exponential sizes;
 *  - depth snapshots (a ladder around mark) every `depthEveryMs`;
 *  - funding every interval of the symbol (8 h), at the rate that followed the premium, as the
 *    local exchange's funding scheduler does.
 * Nothing reads the wall clock and the gzip level is fixed: the same options give the same bytes.
 */
import { rmSync } from 'node:fs';
import { Grid } from '../core/values';
import type { SymbolSpec } from '../protocol/rest/market';
import { Prng } from './prng';
import { DEFAULT_PRICE_PARAMS, PriceProcess, type PriceProcessParams } from './price-process';
import type { Level, RecordedEvent } from './format';
import { RecordingWriter } from './writer';

/** 2024-01-01T00:00:00Z: the default start, so output never depends on when it was made. */
export const SYNTH_EPOCH = 1_704_067_200_000;

export interface SynthOptions {
  out: string;
  symbols: string[];
  hours: number;
  seed: number;
  /** Epoch ms of the first step; default SYNTH_EPOCH. */
  startTime?: number;
  /**
   * The symbols to draw from (the local exchange's: `synthSymbolsOf()` in
   * src/exchange/market/synth-symbols.ts); each starts at its markPrice.
   */
  market: readonly SynthSymbol[];
  /** Price process step, ms; the default parameters are calibrated for 200 ms. */
  stepMs?: number;
  markEveryMs?: number;
  depthEveryMs?: number;
  /** Levels per side in depth snapshots. */
  depthLevels?: number;
  /** Expected trades per second per symbol. */
  tradeRate?: number;
  /** Typical trade size in quote currency. */
  quoteNotional?: number;
  price?: Partial<PriceProcessParams>;
  rotateBytes?: number;
  /** Called every few thousand steps with the fraction done (0..1). */
  onProgress?: (fraction: number) => void;
  /**
   * Stops the run (Ctrl+C): the files written so far are removed and synthesize rejects with the
   * signal's reason.
   */
  signal?: AbortSignal;
}

/** What synth needs of a symbol: its contract spec (written to the header) and where its market starts. */
export interface SynthSymbol {
  spec: SymbolSpec;
  /** Mark (and index) price at the start. */
  markPrice: string;
  /** Funding rate until the premium moves it. */
  fundingRate: string;
  /** Funding interval in ms; settlements fall on multiples of it since epoch. */
  fundingIntervalMs: number;
}

export interface SynthResult {
  files: string[];
  events: number;
  trades: number;
  endTime: number;
}

/** Funding rate from the premium, as the local exchange's scheduler sets it (Binance-style). */
const INTEREST = 0.0001;
const CLAMP = 0.0005;
const MAX_RATE = 0.0075;
const RATE_UPDATE_MS = 60_000;

interface SymSynth {
  cfg: SymbolSpec;
  fundingIntervalMs: number;
  tick: Grid;
  step: Grid;
  process: PriceProcess;
  rng: Prng;
  /** Draws of the depth lines' sizes, apart: how often the book is written leaves the trades as they are. */
  bookRng: Prng;
  /** Half spread and level spacing, ticks. */
  spacing: number;
  baseSteps: number;
  minSteps: number;
  maxSteps: number;
  tradeId: number;
  mark: number;
  index: number;
  lastRet: number;
  rate: string;
  premSum: number;
  premN: number;
  nextFunding: number;
}

function rateString(rate: number): string {
  // A ratio for a rate estimate, not money: a float is fine; 8 decimals like the scheduler.
  const s = rate.toFixed(8).replace(/\.?0+$/, '');
  return s === '-0' || s === '' ? '0' : s;
}

/** Steps between checks of the signal and progress reports. */
const YIELD_STEPS = 5000;

export async function synthesize(o: SynthOptions): Promise<SynthResult> {
  const start = o.startTime ?? SYNTH_EPOCH;
  const stepMs = o.stepMs ?? 200;
  const markEvery = Math.max(1, Math.round((o.markEveryMs ?? 1000) / stepMs));
  const depthEvery = Math.max(1, Math.round((o.depthEveryMs ?? 1000) / stepMs));
  const rateEvery = Math.max(1, Math.round(RATE_UPDATE_MS / stepMs));
  const levels = o.depthLevels ?? 10;
  const tradeRate = o.tradeRate ?? 2;
  const quote = o.quoteNotional ?? 5000;
  const params = { ...DEFAULT_PRICE_PARAMS, ...o.price };
  const configs = o.market;
  if (!(o.hours > 0)) throw new RangeError(`hours must be positive, got ${o.hours}`);
  if (o.symbols.length === 0) throw new RangeError('at least one symbol is required');
  const root = new Prng(o.seed);
  const sims: SymSynth[] = o.symbols.map((name) => {
    const sym = configs.find((c) => c.spec.symbol === name);
    if (!sym) throw new RangeError(`unknown symbol ${name}; known: ${configs.map((c) => c.spec.symbol).join(', ')}`);
    const cfg = sym.spec;
    const tick = new Grid(cfg.tickSize);
    const step = new Grid(cfg.stepSize);
    const mark = Number(sym.markPrice);
    const minSteps = step.toUnits(cfg.minQty) ?? 1;
    // Smallest size whose notional clears the minimum comfortably even after a fall in price.
    const minNotionalSteps = Math.ceil((Number(cfg.minNotional) * 2) / mark / Number(cfg.stepSize));
    return {
      cfg,
      fundingIntervalMs: sym.fundingIntervalMs,
      tick,
      step,
      // Same label as the simulator: the same seed gives the same price path.
      process: new PriceProcess(mark, Number(cfg.tickSize), root.fork(`price:${name}`), params),
      rng: root.fork(`synth:${name}`),
      bookRng: root.fork(`book:${name}`),
      spacing: Math.max(1, Math.round((mark * 0.0001) / Number(cfg.tickSize))),
      baseSteps: Math.max(minSteps, minNotionalSteps, Math.round(quote / mark / Number(cfg.stepSize))),
      minSteps: Math.max(minSteps, minNotionalSteps),
      maxSteps: step.toUnits(cfg.maxQty) ?? Number.MAX_SAFE_INTEGER,
      tradeId: 0,
      mark: tick.toUnits(sym.markPrice) ?? 1,
      index: tick.toUnits(sym.markPrice) ?? 1,
      lastRet: 0,
      rate: sym.fundingRate,
      premSum: 0,
      premN: 0,
      nextFunding: (Math.floor(start / sym.fundingIntervalMs) + 1) * sym.fundingIntervalMs,
    };
  });
  const writer = new RecordingWriter({
    path: o.out,
    source: `synth:${o.seed}`,
    symbols: sims.map((s) => s.cfg),
    startTime: start,
    rotateBytes: o.rotateBytes,
    level: 6,
    // Only v1 kinds, so a v1 header: the shipped sample stays byte for byte what `npm run sample` makes.
    version: 1,
    meta: { generator: 'perpkit synth', seed: o.seed, hours: o.hours, stepMs, tradeRate, symbols: o.symbols.join(',') },
  });
  const steps = Math.round((o.hours * 3_600_000) / stepMs);
  const batch: RecordedEvent[] = [];
  let trades = 0;
  let events = 0;
  for (let i = 1; i <= steps; i++) {
    // Rotation by size reads the compressed bytes so far, which zlib hands over asynchronously: a
    // file was never rotated (a 3 h run with --rotate-mb 0.1 wrote one 1.4 MB file). Flushed at
    // the same steps on every run, the parts are the same on every run too.
    if (i % YIELD_STEPS === 0 && (o.rotateBytes ?? 0) > 0) await writer.flush();
    if (i % YIELD_STEPS === 0 && (o.signal !== undefined || o.onProgress !== undefined)) {
      // A turn of the event loop, so a signal handler can run; the bytes do not depend on it.
      await new Promise<void>((r) => setImmediate(r));
      if (o.signal?.aborted === true) {
        await writer.close().catch(() => undefined);
        for (const f of writer.files) rmSync(f, { force: true });
        throw o.signal.reason;
      }
      o.onProgress?.(i / steps);
    }
    const t0 = start + (i - 1) * stepMs;
    const t = start + i * stepMs;
    batch.length = 0;
    for (const s of sims) {
      const mv = s.process.step();
      s.mark = mv.markTicks;
      s.index = mv.indexTicks;
      s.lastRet = mv.ret;
      // Trades of this step at their arrival times inside it.
      const n = s.rng.poisson((tradeRate * stepMs) / 1000);
      for (let k = 0; k < n; k++) {
        const lean = Math.max(-0.3, Math.min(0.3, (s.lastRet / params.stepVol) * 0.1));
        const buy = s.rng.next() < 0.5 + lean;
        const through = s.spacing * (1 + Math.floor(s.rng.exponential(0.7)));
        const price = buy ? s.mark + through : Math.max(1, s.mark - through);
        const q = Math.min(s.maxSteps, Math.max(s.minSteps, Math.round(s.baseSteps * s.rng.exponential(0.8))));
        batch.push({ t: t0 + Math.floor(s.rng.next() * stepMs), k: 'trade', s: s.cfg.symbol, id: String(++s.tradeId), p: s.tick.fromUnits(price), q: s.step.fromUnits(q), side: buy ? 'BUY' : 'SELL' });
        trades++;
      }
      // The rate follows the premium of mark over index, updated once a minute.
      s.premSum += (s.mark - s.index) / s.index;
      s.premN++;
      if (i % rateEvery === 0) {
        const prem = s.premSum / s.premN;
        s.rate = rateString(Math.max(-MAX_RATE, Math.min(MAX_RATE, prem + Math.max(-CLAMP, Math.min(CLAMP, INTEREST - prem)))));
        s.premSum = 0;
        s.premN = 0;
      }
      // The book first: a mark of the same moment (which triggers stop orders) meets this book.
      if (i % depthEvery === 0) batch.push(depthOf(s, t, levels));
      if (t >= s.nextFunding) {
        batch.push({ t, k: 'funding', s: s.cfg.symbol, r: s.rate, p: s.tick.fromUnits(s.mark) });
        s.nextFunding += s.fundingIntervalMs;
      }
      if (i % markEvery === 0) {
        batch.push({ t, k: 'mark', s: s.cfg.symbol, p: s.tick.fromUnits(s.mark), i: s.tick.fromUnits(s.index), r: s.rate, n: s.nextFunding });
      }
    }
    // Events of one step in time order (stable: equal times keep generation order).
    if (batch.length > 1) batch.sort((a, b) => a.t - b.t);
    for (const e of batch) {
      events++;
      if (!writer.write(e)) await writer.drained();
    }
  }
  await writer.close();
  return { files: [...writer.files], events, trades, endTime: start + steps * stepMs };
}

function depthOf(s: SymSynth, t: number, levels: number): RecordedEvent {
  const b: Level[] = [];
  const a: Level[] = [];
  for (let i = 0; i < levels; i++) {
    const dist = s.spacing * (i + 1);
    const size = (): string => s.step.fromUnits(Math.min(s.maxSteps, Math.max(s.minSteps, Math.round(s.baseSteps * (1 + i * 0.5) * (0.5 + s.bookRng.next())))));
    if (s.mark - dist > 0) b.push([s.tick.fromUnits(s.mark - dist), size()]);
    a.push([s.tick.fromUnits(s.mark + dist), size()]);
  }
  return { t, k: 'depth', s: s.cfg.symbol, b, a };
}
