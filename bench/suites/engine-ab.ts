/**
 * The `engine` suite's A/B part, with BENCH_ENGINE_BASE=<another checkout, built>: the two
 * full-engine workloads (engine-full.ts) on that build and on this one, each build in its own
 * worker thread, in alternating blocks of BLOCK ops (which one goes first alternates too), and the
 * ratio of the paired blocks. The driver and its workload are this checkout's for both; only the
 * engine differs. Only one thread runs at a time, so the builds never compete for a core.
 *
 * Why threads: two builds driven in one thread share one heap, so each build's blocks also pay for
 * the other's garbage. Measured that way, reusing ended orders' objects looked like +6 % on
 * place+cancel and +14 % on crossing; with a heap each, +0.6 % and +1.1 %.
 *
 * Why several pairs of threads (BENCH_ENGINE_AB_PAIRS, default 4; BENCH_ENGINE_AB_ROUNDS paired
 * blocks in all, default 32): one pair of threads keeps its own code placement and heap layout for
 * the whole run, and that alone moved one build against itself by up to 25 % on this machine. A
 * fresh pair each time spreads it out; the lowest and highest pair's ratios are reported so a
 * reader can see how far the noise reaches (bench/README.md, "An A/B with a heap per build").
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { envCount, median, round, type BenchResult } from '../harness';
import type { EnginePart } from './engine';
import type { AbRequest, AbWorkerData } from './engine-ab-worker';

const BLOCK = 20_000;
/** This checkout's root (the suite runs from dist/bench/suites). */
const THIS_ROOT = path.resolve(__dirname, '..', '..', '..');
const WARMUP_BLOCKS = 3;

/** What the A/B part runs against and for how long. */
export interface AbSettings {
  /** The base checkout's root. */
  base: string;
  /** Paired blocks in all, and pairs of fresh threads they are spread over. */
  rounds: number;
  pairs: number;
}

/** BENCH_ENGINE_BASE, BENCH_ENGINE_AB_ROUNDS and BENCH_ENGINE_AB_PAIRS, checked before anything runs; undefined when no base is named. */
export function abSettings(): AbSettings | undefined {
  const raw = process.env.BENCH_ENGINE_BASE;
  if (raw === undefined || raw === '') return undefined;
  const base = path.resolve(raw);
  if (!existsSync(path.join(base, 'dist', 'src', 'exchange', 'engine', 'engine.js'))) {
    throw new Error(`engine bench: BENCH_ENGINE_BASE=${raw}: ${base} has no dist/src/exchange/engine/engine.js (a checkout built with npm run build is needed)`);
  }
  return { base, rounds: envCount('engine', 'BENCH_ENGINE_AB_ROUNDS', 32, 1), pairs: envCount('engine', 'BENCH_ENGINE_AB_PAIRS', 4, 1) };
}

/** `<short commit>` of a checkout, or its path when git cannot say. */
function labelOf(root: string): string {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return root;
  }
}

/** A worker thread driving one build; `ask` sends a request and waits for its answer. */
class Side {
  private readonly worker: Worker;
  private failure: Error | undefined;

  constructor(data: AbWorkerData) {
    this.worker = new Worker(path.join(__dirname, 'engine-ab-worker.js'), { workerData: data });
    this.worker.on('error', (e) => {
      this.failure = e;
    });
  }

  ask<T>(m: AbRequest): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.worker.once('error', onError);
      this.worker.once('message', (v: T) => {
        this.worker.off('error', onError);
        resolve(v);
      });
      this.worker.postMessage(m);
    });
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

/** Paired blocks of one pair of threads: base and this build's nanoseconds, in rounds. */
interface Pair {
  baseNs: number[];
  thisNs: number[];
}

/**
 * A fresh pair of threads, warmed up, then `rounds` alternating blocks (each side first in turn);
 * checks conservation after. `a` and `b` are each side's worker data but the ops and block size.
 */
async function alternate(
  a: Omit<AbWorkerData, 'ops' | 'block'>,
  b: Omit<AbWorkerData, 'ops' | 'block'>,
  rounds: number,
  block = BLOCK,
  warmupBlocks = WARMUP_BLOCKS,
): Promise<{ aNs: number[]; bNs: number[] }> {
  const ops = block * (rounds + warmupBlocks);
  const sideA = new Side({ ...a, ops, block });
  const sideB = new Side({ ...b, ops, block });
  try {
    for (let i = 0; i < warmupBlocks; i++) {
      await sideA.ask<number>('block');
      await sideB.ask<number>('block');
    }
    const out = { aNs: [] as number[], bNs: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      const aFirst = r % 2 === 0;
      const x = await (aFirst ? sideA : sideB).ask<number>('block');
      const y = await (aFirst ? sideB : sideA).ask<number>('block');
      out.aNs.push(aFirst ? x : y);
      out.bNs.push(aFirst ? y : x);
    }
    for (const [side, which] of [[sideA, a], [sideB, b]] as const) {
      if (!(await side.ask<boolean>('audit'))) throw new Error(`engine bench: the driver on ${which.root}${which.forget === true ? ' (ended orders not kept)' : ''} broke quantity conservation`);
    }
    return out;
  } finally {
    await Promise.all([sideA.stop(), sideB.stop()]);
  }
}

/** Paired blocks of the base build and this one. */
async function runPair(base: string, crossFraction: number, seed: number, rounds: number, clientIds: boolean, block = BLOCK, warmupBlocks = WARMUP_BLOCKS): Promise<Pair> {
  const { aNs, bNs } = await alternate({ root: base, crossFraction, seed, clientIds }, { root: THIS_ROOT, crossFraction, seed, clientIds }, rounds, block, warmupBlocks);
  return { baseNs: aNs, thisNs: bNs };
}

/** LONG_BLOCK-op blocks, after one of warm-up: LONG_ROUNDS paired blocks in each of LONG_PAIRS pairs of threads. */
const LONG_BLOCK = 400_000;
const LONG_ROUNDS = 3;
const LONG_PAIRS = 2;

/**
 * The A/B over a run as long as a busy exchange's first minutes (1.6 M operations a side): what
 * the collector does once a full collection has moved the engine's long-lived structures to the
 * old generation shows only there (2026-11-28: Map tables replaced under churn kept each other
 * alive, and a burst of resting orders could switch the order literal to old-generation
 * allocation; neither moved the 20,000-op blocks above, both moved this part).
 */
export function engineLongAbPart({ base }: AbSettings, label: string, crossFraction: number, seed: number, clientIds = false): EnginePart {
  return {
    title: `A/B against ${base}, long run: ${label}`,
    async run(): Promise<BenchResult[]> {
      const all: Pair[] = [];
      for (let p = 0; p < LONG_PAIRS; p++) all.push(await runPair(base, crossFraction, seed, LONG_ROUNDS, clientIds, LONG_BLOCK, 1));
      const baseNs = all.flatMap((x) => x.baseNs);
      const thisNs = all.flatMap((x) => x.thisNs);
      const ratios = baseNs.map((b, i) => b / thisNs[i]);
      const opsPerSec = (ns: number[]): number => Math.round((LONG_BLOCK * 1e9) / median(ns));
      const baseLabel = labelOf(base);
      const blocks = `${LONG_PAIRS} pairs of threads x ${LONG_ROUNDS} blocks of ${LONG_BLOCK.toLocaleString('en-US')} ops after one`;
      return [
        { name: `${label} A/B long run: base ${baseLabel}, median of ${blocks}`, value: opsPerSec(baseNs), unit: 'ops/s' },
        { name: `${label} A/B long run: this build, median of the same`, value: opsPerSec(thisNs), unit: 'ops/s' },
        { name: `${label} A/B long run: this build / base ${baseLabel}, median of paired blocks`, value: round(median(ratios), 3), unit: 'ratio' },
        { name: `${label} A/B long run: blocks this build was faster in`, value: ratios.filter((x) => x > 1).length, unit: `of ${ratios.length}` },
      ];
    },
  };
}

export function engineAbPart({ base, rounds, pairs }: AbSettings, label: string, crossFraction: number, seed: number, clientIds = false): EnginePart {
  return {
    title: `A/B against ${base}: ${label}`,
    async run(): Promise<BenchResult[]> {
      const perPair = Math.ceil(rounds / pairs);
      const all: Pair[] = [];
      for (let p = 0; p < pairs; p++) all.push(await runPair(base, crossFraction, seed, perPair, clientIds));
      const baseNs = all.flatMap((x) => x.baseNs);
      const thisNs = all.flatMap((x) => x.thisNs);
      const ratios = baseNs.map((b, i) => b / thisNs[i]);
      const pairRatios = all.map((x) => median(x.baseNs.map((b, i) => b / x.thisNs[i])));
      const opsPerSec = (ns: number[]): number => Math.round((BLOCK * 1e9) / median(ns));
      const baseLabel = labelOf(base);
      const blocks = `${pairs} pairs of threads x ${perPair} blocks of ${BLOCK.toLocaleString('en-US')} ops`;
      return [
        { name: `${label} A/B: base ${baseLabel}, median of ${blocks}`, value: opsPerSec(baseNs), unit: 'ops/s' },
        { name: `${label} A/B: this build, median of the same`, value: opsPerSec(thisNs), unit: 'ops/s' },
        { name: `${label} A/B: this build / base ${baseLabel}, median of paired blocks`, value: round(median(ratios), 3), unit: 'ratio' },
        { name: `${label} A/B: lowest pair's median ratio (noise: a build against itself moves too)`, value: round(Math.min(...pairRatios), 3), unit: 'ratio' },
        { name: `${label} A/B: highest pair's median ratio`, value: round(Math.max(...pairRatios), 3), unit: 'ratio' },
        { name: `${label} A/B: blocks this build was faster in`, value: ratios.filter((x) => x > 1).length, unit: `of ${ratios.length}` },
      ];
    },
  };
}

/**
 * What keeping the history costs place+cancel: this build's driver with the makers' ended orders
 * kept (as the exchange keeps them) and not kept (forgetFinalOrders, as a backtest's tape
 * accounts are), each in its own thread (its own heap and collector), alternating blocks. A
 * diagnostic, not a goal: the exchange keeps its history. On 2026-11-27 memory touched for the
 * first time cost ~12 us a 4 KiB page on this machine, and the history is ~300-400 bytes an order.
 */
export function historyCostPart(seed: number): EnginePart {
  return {
    title: 'engine place+cancel, ended orders kept and not kept (threads, alternating blocks)',
    async run(): Promise<BenchResult[]> {
      const rounds = 16;
      const { aNs: kept, bNs: forgot } = await alternate({ root: THIS_ROOT, crossFraction: 0, seed }, { root: THIS_ROOT, crossFraction: 0, seed, forget: true }, rounds);
      const keptOps = (BLOCK * 1e9) / median(kept);
      const forgotOps = (BLOCK * 1e9) / median(forgot);
      const blocks = `median of ${rounds} blocks of ${BLOCK.toLocaleString('en-US')} ops`;
      return [
        { name: `engine place+cancel, ended orders kept (thread, ${blocks})`, value: Math.round(keptOps), unit: 'ops/s' },
        { name: `engine place+cancel, ended orders not kept (diagnostic; thread, ${blocks})`, value: Math.round(forgotOps), unit: 'ops/s' },
        { name: "keeping the history: share of place+cancel's time", value: round(100 * (1 - keptOps / forgotOps), 1), unit: '%' },
      ];
    },
  };
}
