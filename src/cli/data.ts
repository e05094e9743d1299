/**
 * `perpkit data inspect <recording...> [--json]`: what a recording holds (src/market-data/inspect.ts).
 * A file that is not a recording is one line on stderr and exit 2.
 */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { inspectRecording, type Inspection } from '../market-data/inspect';
import { RecordingFormatError } from '../market-data/reader';
import { argsMessage, usageFailure } from './usage';

export const DATA_USAGE = `perpkit data inspect <recording...> [--json]

Reads a recording (format v1 or v2; several files are read in order, e.g. the parts of one) and
prints its time range, symbols, events per kind, gaps, feed latency percentiles (receive time
minus exchange time), crossed or locked books, and how the L2 book rebuilt from snapshot + book
events agrees with the quote events: exactly where their update ids coincide (should be 100 %),
and in receive order (the staleness of the sparser depth stream).

Options:
  --json       print the figures as one JSON document
  -h, --help   show this text

Exit codes: 0 done; 1 reading failed; 2 bad input (a missing file, a folder, not a recording).

Example:
  perpkit data inspect data/btcusdt-20240808.jsonl.gz
`;

const iso = (t: number): string => new Date(t).toISOString();
const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)} %`);
const counts = (r: Record<string, number>): string =>
  Object.entries(r)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

export function inspectionText(r: Inspection): string {
  let out = `recording: ${r.files.join(', ')} (format v${r.version}, source ${r.source})\n`;
  out += `  time: ${iso(r.firstTime)} to ${iso(r.lastTime)} (${((r.lastTime - r.firstTime) / 1000).toFixed(1)} s), ${r.events} events: ${counts(r.counts)}\n`;
  if (Object.keys(r.skippedByImport).length > 0) out += `  skipped by the import: ${counts(r.skippedByImport)}\n`;
  out += `  gaps: ${r.counts.gap ?? 0}${r.gaps.slice(0, 5).map((g) => `\n    ${iso(g.t)}${g.s !== undefined ? ` ${g.s}` : ''}: ${g.reason}`).join('')}\n`;
  const q = r.longestSilence;
  if (q !== null) out += `  longest silence: ${(q.ms / 1000).toFixed(1)} s, ${iso(q.from)} to ${iso(q.to)}\n`;
  if (r.backInTime > 0) out += `  events earlier than the event before them: ${r.backInTime} (a backtest applies them at the later time, and refuses a step back of more than 1 s)\n`;
  const l = r.latencyMs;
  out += l === null ? '  feed latency: no event carries an exchange time (et)\n' : `  feed latency (receive - exchange time, ms) of ${l.count} events: min ${l.min}, p1 ${l.p1}, p50 ${l.p50}, p99 ${l.p99}, max ${l.max}\n`;
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
  if (sub === undefined) return usageFailure('data', 'expected a subcommand: inspect');
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(DATA_USAGE);
    return 0;
  }
  let files: string[];
  let json = false;
  try {
    if (sub !== 'inspect') throw new Error(`unknown subcommand '${sub}'; expected inspect`);
    const { values: o, positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
    if (o.help === true) {
      process.stdout.write(DATA_USAGE);
      return 0;
    }
    if (positionals.length === 0) throw new Error('no recording given; expected one or more recording files');
    for (const f of positionals) if (!existsSync(f)) throw new Error(`${f}: no such file`);
    for (const f of positionals) if (statSync(f).isDirectory()) throw new Error(`${f}: expected a recording file, got a folder`);
    files = positionals;
    json = o.json === true;
  } catch (e) {
    return usageFailure('data', argsMessage(e));
  }
  try {
    const r = await inspectRecording(files);
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
