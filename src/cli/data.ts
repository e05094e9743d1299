/**
 * `perpkit data inspect <recording...> [--json]`: what a recording holds (src/market-data/inspect.ts).
 * `perpkit data repair <recording> --out <file>`: the whole part of a file its writer left torn
 * (src/market-data/repair.ts). A file that is not a recording is one line on stderr and exit 2.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { MAGIC as CACHE_MAGIC } from '../backtest/backtest/cache-format';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SKIPPED_BEFORE_FROM } from '../market-data/format';
import { inspectRecording, type Inspection } from '../market-data/inspect';
import { RecordingFormatError, withRotatedParts } from '../market-data/reader';
import { repairRecording } from '../market-data/repair';
import { existingOutProblem, sameFile } from '../market-data/writer';
import { outDirProblem } from './out-dir';
import { argsMessage, usageFailure } from './usage';
import { DATA_USAGE } from './usage-texts';

const iso = (t: number): string => new Date(t).toISOString();
const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)} %`);
const counts = (r: Record<string, number>): string =>
  Object.entries(r)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

export function inspectionText(r: Inspection): string {
  let out = `recording: ${r.files.join(', ')} (format v${r.version}, source ${r.source})\n`;
  out += `  time: ${iso(r.firstTime)} to ${iso(r.lastTime)} (${((r.lastTime - r.firstTime) / 1000).toFixed(1)} s), ${r.events} events: ${counts(r.counts)}\n`;
  // The messages an import read before its --from are the range chosen, not data left out: apart (mergeHeaders keeps them only when no other file holds them).
  const { [SKIPPED_BEFORE_FROM]: beforeFrom, ...skipped } = r.skippedByImport;
  if (Object.keys(skipped).length > 0) out += `  skipped by the import: ${counts(skipped)}\n`;
  if (beforeFrom !== undefined && beforeFrom > 0) out += `  before the import's --from (outside the range it was asked for; no file given holds it): ${beforeFrom} messages\n`;
  out += `  gaps: ${r.counts.gap ?? 0}${r.gaps.slice(0, 5).map((g) => `\n    ${iso(g.t)}${g.s !== undefined ? ` ${g.s}` : ''}: ${g.reason}`).join('')}\n`;
  const q = r.longestSilence;
  if (q !== null) out += `  longest silence: ${(q.ms / 1000).toFixed(1)} s, ${iso(q.from)} to ${iso(q.to)}\n`;
  if (r.backInTime > 0) out += `  events earlier than the event before them: ${r.backInTime} (a backtest applies them at the later time, and refuses a step back of more than 1 s)\n`;
  const l = r.latencyMs;
  if (r.recorded) {
    // perpkit record stamps `t` with the venue's time: `et` marks only pushes written late (at a later line's time).
    out += l === null ? '  pushes written after a later line (t is the venue time; et on those only): none\n' : `  pushes written after a later line, at its time (t is the venue time; et, their own, on those only): ${l.count}, late by ms: min ${l.min}, p50 ${l.p50}, max ${l.max}\n`;
  } else {
    out += l === null ? '  feed latency: no event carries an exchange time (et)\n' : `  feed latency (receive - exchange time, ms) of ${l.count} events: min ${l.min}, p1 ${l.p1}, p50 ${l.p50}, p99 ${l.p99}, max ${l.max}\n`;
  }
  for (const [name, s] of Object.entries(r.symbols)) {
    out += `  ${name}: ${counts(s.counts)}${s.marks !== undefined ? `; marks ${s.marks.source}` : ''}\n`;
    if ((s.counts.quote ?? 0) > 0) out += `    quotes crossed ${s.quotes.crossed}, locked ${s.quotes.locked}\n`;
    if (s.book.deltas > 0 || (s.counts.snapshot ?? 0) > 0) {
      out += `    rebuilt book: ${s.book.deltas} deltas (${s.book.unknownDeltas} while unknown), top crossed ${s.book.crossed}, locked ${s.book.locked}\n`;
      out += `    book vs quote at equal update ids: ${s.sameUpdateId.agree} of ${s.sameUpdateId.compared} agree (${pct(s.sameUpdateId.agree, s.sameUpdateId.compared)})${s.sameUpdateId.firstDisagreement !== undefined ? `; first disagreement at ${s.sameUpdateId.firstDisagreement}` : ''}\n`;
      out += `    book vs quote in receive order: ${s.receiveOrder.agree} of ${s.receiveOrder.compared} agree (${pct(s.receiveOrder.agree, s.receiveOrder.compared)}), same prices ${pct(s.receiveOrder.samePrices, s.receiveOrder.compared)}\n`;
    }
  }
  return out;
}

export async function runData(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) return usageFailure('data', 'expected a subcommand: inspect or repair');
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(DATA_USAGE);
    return 0;
  }
  let files: string[];
  let json = false;
  let out: string | undefined;
  try {
    if (sub !== 'inspect' && sub !== 'repair') throw new Error(`unknown subcommand '${sub}'; expected inspect or repair`);
    const { values: o, positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: { json: { type: 'boolean' }, out: { type: 'string' }, overwrite: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    if (sub === 'inspect' && o.out !== undefined) throw new Error("--out is an option of 'data repair'; inspect writes nothing");
    if (sub === 'inspect' && o.overwrite !== undefined) throw new Error("--overwrite is an option of 'data repair'; inspect writes nothing");
    if (sub === 'repair' && o.json !== undefined) throw new Error("--json is an option of 'data inspect'");
    if (o.help === true) {
      process.stdout.write(DATA_USAGE);
      return 0;
    }
    if (positionals.length === 0) throw new Error(sub === 'inspect' ? 'no recording given; expected one or more recording files' : 'no recording given; expected the torn recording file');
    if (sub === 'repair' && positionals.length > 1) throw new Error(`repair takes one file, got ${positionals.length} (${positionals.join(' ')}); repair each torn file on its own`);
    for (const f of positionals) if (!existsSync(f)) throw new Error(`${f}: no such file`);
    for (const f of positionals) if (statSync(f).isDirectory()) throw new Error(`${f}: expected a recording file, got a folder`);
    // A replay cache (binary) was read as JSON lines, and its bytes quoted as a bad line.
    for (const f of positionals) if (isReplayCache(f)) throw new Error(`${f}: expected a recording file, got a replay cache (the binary copy perpkit backtest builds beside a recording); inspect its recording instead: perpkit data inspect ${f.replace(/\.perpkit-cache$/, '')}`);
    files = positionals;
    json = o.json === true;
    if (sub === 'repair') {
      out = o.out;
      if (out === undefined || out === '') throw new Error('--out <file> is required: where to write the repaired recording');
      if (existsSync(out) && statSync(out).isDirectory()) throw new Error(`--out ${out}: expected the path of the recording to write, got a folder`);
      // Compared by real path: a symlink at --out to the torn file would have it replaced.
      if (sameFile(out, files[0])) throw new Error(`--out ${out}: the repaired recording must go to another file than the torn one (which is left as it is)`);
      const there = existingOutProblem(out, o.overwrite === true);
      if (there !== undefined) throw new Error(there);
      // Made as import, synth and backtest make theirs.
      const problem = outDirProblem(dirname(resolve(out)));
      if (problem !== undefined) throw new Error(`--out ${out}: the folder ${dirname(resolve(out))} cannot be made: ${problem}`);
    }
  } catch (e) {
    return usageFailure('data', argsMessage(e));
  }
  try {
    if (out !== undefined) {
      const r = await repairRecording(files[0], out);
      if (r.tear === undefined) {
        process.stdout.write(`repair: ${files[0]} reads whole (${r.events} events): nothing to repair, nothing written\n`);
      } else {
        process.stdout.write(`repair: kept ${r.events} events of ${files[0]}, up to line ${r.tear.line - 1}; dropped from line ${r.tear.line}: ${r.tear.why}\n  wrote ${out}\n`);
      }
      return 0;
    }
    // A recording is its first file and the rotated parts beside it, as every reader reads it.
    const r = await inspectRecording(withRotatedParts(files));
    process.stdout.write(json ? `${JSON.stringify(r, null, 1)}\n` : inspectionText(r));
    return 0;
  } catch (e) {
    if (e instanceof RecordingFormatError) {
      process.stderr.write(`perpkit data: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`perpkit data: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  }
}

/** Whether the file begins with the replay cache's magic bytes (src/backtest/backtest/cache-format.ts). */
function isReplayCache(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(CACHE_MAGIC.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.toString('latin1') === CACHE_MAGIC;
  } finally {
    closeSync(fd);
  }
}
