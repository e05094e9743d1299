/**
 * `perpkit synth`: writes a synthetic recording (format v1) from the local exchange's price
 * process. Deterministic: the same options give a byte-identical file.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { synthSymbolsOf } from '../exchange/market/synth-symbols';
import { SYNTH_EPOCH, synthesize } from '../market-data/synth';
import { staleOutProblem } from '../market-data/writer';
import { argsMessage, usageFailure } from './usage';
import { signalExit, stopOnSignals } from './stop-signal';
import { SYNTH_USAGE } from './usage-texts';
import { makeDirSync } from '../core/dirs';

class UsageError extends Error {}

function num(name: string, v: string | undefined, def: number, min: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(n >= min)) throw new UsageError(`--${name} must be a number >= ${min}, got '${v}'`);
  return n;
}

function startArg(v: string | undefined): number {
  if (v === undefined) return SYNTH_EPOCH;
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new UsageError(`--start must be epoch ms or an ISO 8601 time, got '${v}'`);
  return t;
}

export async function runSynth(argv: string[]): Promise<number> {
  let opts: Parameters<typeof synthesize>[0];
  try {
    const { values: o } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        out: { type: 'string' },
        symbols: { type: 'string' },
        hours: { type: 'string' },
        seed: { type: 'string' },
        start: { type: 'string' },
        'trade-rate': { type: 'string' },
        'depth-every': { type: 'string' },
        'rotate-mb': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (o.help) {
      process.stdout.write(SYNTH_USAGE);
      return 0;
    }
    if (o.out === undefined || o.out === '') throw new UsageError('--out <file> is required');
    const seed = num('seed', o.seed, 1, 0);
    if (!Number.isInteger(seed) || seed > 2 ** 32 - 1) throw new UsageError(`--seed must be an integer from 0 to ${2 ** 32 - 1}`);
    const rotateMb = num('rotate-mb', o['rotate-mb'], 0, 0);
    if (existsSync(o.out) && statSync(o.out).isDirectory()) throw new UsageError(`--out ${o.out}: expected the path of the recording to write, got a folder`);
    const stale = staleOutProblem(o.out);
    if (stale !== undefined) throw new UsageError(stale);
    const market = synthSymbolsOf();
    const symbols = (o.symbols ?? 'BTCUSDT').split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (symbols.length === 0) throw new UsageError(`--symbols must name at least one symbol, got '${o.symbols ?? ''}'`);
    const unknown = symbols.filter((s) => !market.some((m) => m.spec.symbol === s));
    if (unknown.length > 0) throw new UsageError(`--symbols: unknown symbol ${unknown.join(', ')}; known: ${market.map((m) => m.spec.symbol).join(', ')}`);
    opts = {
      out: o.out,
      market,
      symbols,
      hours: num('hours', o.hours, 24, 0.001),
      seed,
      startTime: startArg(o.start),
      tradeRate: num('trade-rate', o['trade-rate'], 2, 0),
      depthEveryMs: num('depth-every', o['depth-every'], 1000, 1),
      rotateBytes: Math.round(rotateMb * 1024 * 1024),
    };
  } catch (e) {
    return usageFailure('synth', argsMessage(e));
  }
  const t0 = performance.now();
  // Ctrl+C (SIGTERM) stops the run and removes what it wrote; a second one quits at once.
  const stop = stopOnSignals();
  // A long run (weeks of data) says how far it is, every 2 s.
  let lastSaid = t0;
  opts.signal = stop.signal;
  opts.onProgress = (f) => {
    const now = performance.now();
    if (now - lastSaid < 2000) return;
    lastSaid = now;
    process.stderr.write(`synth: ${(f * 100).toFixed(0)}% (${(f * opts.hours).toFixed(1)} of ${opts.hours} h)\n`);
  };
  try {
    makeDirSync(dirname(opts.out));
    const r = await synthesize(opts);
    const s = ((performance.now() - t0) / 1000).toFixed(2);
    process.stdout.write(`wrote ${r.events} events (${r.trades} trades) to ${r.files.join(', ')} in ${s} s\n`);
    return 0;
  } catch (e) {
    if (stop.signal.aborted) {
      const sig = String(stop.signal.reason);
      process.stderr.write(`perpkit synth: stopped by ${sig}; the partial recording was removed (${opts.out})\n`);
      return signalExit(sig);
    }
    process.stderr.write(`perpkit synth: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
}
