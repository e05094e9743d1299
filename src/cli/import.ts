/**
 * `perpkit import binance-futures|tardis <files...> --out <rec.jsonl.gz>`: raw Binance USD-M
 * captures or archives, or Tardis.dev CSV files, to a recording (format v2). Bad input (another
 * format, a torn gzip, a symbol not in the files, an empty range) is one line on stderr and exit 2;
 * anything skipped is counted in the summary.
 */
import { parseArgs } from 'node:util';
import { importBinanceFutures, type BinanceImportOptions } from '../market-data/import/binance-futures';
import type { ImportOptions, ImportSummary } from '../market-data/import/common';
import { ImportInputError } from '../market-data/import/errors';
import { importTardis } from '../market-data/import/tardis';
import { argsMessage, usageFailure } from './usage';
import { signalExit, stopOnSignals } from './stop-signal';
import { IMPORT_USAGE } from './usage-texts';

const IMPORTERS: Record<string, (o: ImportOptions) => Promise<ImportSummary>> = { 'binance-futures': importBinanceFutures, tardis: importTardis };

class UsageError extends Error {}

function timeArg(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(t)) throw new UsageError(`--${name} must be epoch ms or an ISO 8601 time, got '${v}'`);
  return t;
}

const counts = (r: Record<string, number>): string =>
  Object.entries(r)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

export function importSummaryText(s: ImportSummary, seconds: number): string {
  const written = Object.values(s.events).reduce((a, b) => a + b, 0);
  const skipped = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  let out = `import: ${s.messages} messages in ${seconds.toFixed(1)} s -> ${written} events (${counts(s.events)}) + ${s.added.derivedMarks} derived marks, ${s.added.gaps} gaps${s.added.derivedFunding !== undefined ? `, ${s.added.derivedFunding} funding settlements derived` : ''}${s.added.rebuiltSnapshots > 0 ? `, ${s.added.rebuiltSnapshots} snapshots rebuilt at --from` : ''}\n`;
  out += `  skipped ${skipped}${skipped > 0 ? `: ${counts(s.skipped)}` : ''}\n`;
  for (const sym of s.symbols) out += `  ${sym.symbol}: tick ${sym.tickSize}, step ${sym.stepSize}; marks ${s.marks[sym.symbol]?.source ?? 'none'}\n`;
  for (const w of s.warnings ?? []) out += `  warning: ${w}\n`;
  for (const n of s.notes ?? []) out += `  note: ${n}\n`;
  if ((s.events.mark ?? 0) === 0 && s.added.derivedMarks === 0) out += '  note: no mark price in the output (none recorded, and no quote or book top to derive one from): a backtest on it cannot start its strategies\n';
  if (s.stoppedAt !== undefined) out += `  stopped reading at --to (${s.stoppedAt}); later lines were not read\n`;
  out += `  wrote ${s.out}\n`;
  return out;
}

export async function runImport(argv: string[]): Promise<number> {
  const [kind, ...rest] = argv;
  if (kind === undefined) return usageFailure('import', `expected a source: ${Object.keys(IMPORTERS).join(', ')}`);
  if (kind === '--help' || kind === '-h' || kind === 'help') {
    process.stdout.write(IMPORT_USAGE);
    return 0;
  }
  let opts: ImportOptions;
  const importer = Object.hasOwn(IMPORTERS, kind) ? IMPORTERS[kind] : undefined;
  try {
    if (importer === undefined) throw new UsageError(`unknown source '${kind}'; this version imports ${Object.keys(IMPORTERS).join(', ')}`);
    const { values: o, positionals } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        symbol: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        tick: { type: 'string' },
        step: { type: 'string' },
        'bare-depth': { type: 'string' },
        overwrite: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (o.help === true) {
      process.stdout.write(IMPORT_USAGE);
      return 0;
    }
    if (o.out === undefined || o.out === '') throw new UsageError('--out <file> is required');
    if (positionals.length === 0) throw new UsageError(`no input files; expected one or more ${kind === 'tardis' ? 'Tardis CSV files' : 'Binance capture files'}`);
    const bare = o['bare-depth'];
    if (bare !== undefined && kind !== 'binance-futures') throw new UsageError(`--bare-depth applies to binance-futures captures only, not to ${kind}`);
    if (bare !== undefined && bare !== 'diff' && bare !== 'partial') throw new UsageError(`--bare-depth must be diff or partial, got '${bare}'`);
    const given: BinanceImportOptions = { files: positionals, out: o.out, symbol: o.symbol, from: timeArg('from', o.from), to: timeArg('to', o.to), tick: o.tick, step: o.step, bareDepth: bare, overwrite: o.overwrite === true };
    opts = given;
  } catch (e) {
    return usageFailure('import', argsMessage(e));
  }
  const t0 = performance.now();
  let lastDraw = t0;
  opts.onProgress = (p) => {
    const now = performance.now();
    if (now - lastDraw < 2000) return;
    lastDraw = now;
    const pct = p.bytesTotal > 0 ? ((100 * p.bytesDone) / p.bytesTotal).toFixed(0) : '?';
    // The line within the file named (a count over every file read as part2.gz's line 93954 of 43,954).
    process.stderr.write(`import: ${pct}% (${p.file}, line ${p.line})\n`);
  };
  // Ctrl+C (SIGTERM) stops the import at its next progress check: its partial files are removed
  // and --out is not written; a second one quits at once.
  const stop = stopOnSignals();
  opts.signal = stop.signal;
  try {
    const s = await importer(opts);
    process.stdout.write(importSummaryText(s, (performance.now() - t0) / 1000));
    return 0;
  } catch (e) {
    if (stop.signal.aborted) {
      const sig = String(stop.signal.reason);
      process.stderr.write(`perpkit import: stopped by ${sig}; ${opts.out} not written (the partial import was removed)\n`);
      return signalExit(sig);
    }
    if (e instanceof ImportInputError) {
      process.stderr.write(`perpkit import: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`perpkit import: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
}
