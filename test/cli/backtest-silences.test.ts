/**
 * A backtest over data with a hole in it (two recordings of separate hours replayed one after the
 * other, a recorder that was down, an import of captures with holes) reported its PnL, drawdown
 * and fills as if the market had been watched throughout. It now counts the silences longer than
 * a minute and the recording's gap lines, and says so: a note line of the summary, report.json's
 * summary (`gaps`, `silences`, `silentMs`, `longestSilence`) and data.silences, and report.html.
 * Between files the note names both files and times; within a file, the file, the times and the
 * length. Data without silences gets no note. Through the command a user runs, on files made by
 * `perpkit synth`, from the replay cache and from the JSON lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import type { BacktestReport } from '../../src/backtest/report/report';
import { ROOT, ensureBuilt } from './exchange-proc';

jest.setTimeout(240_000);

const T0 = Date.parse('2025-06-01T00:00:00Z');
const MIN = 60_000;
const MM = { id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '2', skewBps: '3', refreshMs: 1000 } };
/** Wants marks only and places nothing: recorded trades take the replay's quiet-trade path (from the cache). */
const IDLE = `module.exports.default = { name: 'idle', symbols: () => ['BTCUSDT'], params: () => ({}), marketData: () => ['markPrice'], create: () => ({ onMark: () => [] }) };\n`;

let dir: string;

/** The CLI to its end (a generous timeout: this machine is shared). */
function perpkit(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), ...args], { cwd: dir, encoding: 'utf8', timeout: 200_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function synth(file: string, start: number, minutes: number, seed: number): void {
  const r = perpkit(['synth', '--out', file, '--hours', String(minutes / 60), '--start', new Date(start).toISOString(), '--seed', String(seed)]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

/** Runs a backtest of `files` with `strategies` (and `--no-cache` when asked); its summary, report.json and report.html. */
function backtest(name: string, files: string[], strategies: unknown[], noCache = false): { stdout: string; report: BacktestReport; html: string } {
  const cfg = path.join(dir, `${name}.yaml`);
  writeFileSync(cfg, stringify({ data: { files }, account: { balance: '10000' }, strategies }));
  const out = path.join(dir, `out-${name}${noCache ? '-jsonl' : ''}`);
  const r = perpkit(['backtest', cfg, '--out', out, ...(noCache ? ['--no-cache'] : [])]);
  expect(r.code).toBe(0);
  return { stdout: r.stdout, report: JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as BacktestReport, html: readFileSync(path.join(out, 'report.html'), 'utf8') };
}

const notes = (stdout: string): string[] => stdout.split('\n').filter((l) => l.startsWith('  note: ')).map((l) => l.slice('  note: '.length));
const silenceNotes = (stdout: string): string[] => notes(stdout).filter((n) => n.startsWith('The data holds nothing'));
/** The text as report.html writes it. */
const inHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'perpkit-silences-'));
  synth('a.jsonl.gz', T0, 10, 3);
  // Three hours after a's start: a hole of 2 h 50 min between the two files.
  synth('b.jsonl.gz', T0 + 180 * MIN, 10, 4);
  // Right after a's end: no hole.
  synth('next.jsonl.gz', T0 + 10 * MIN, 10, 4);
  // 20 minutes with two holes cut out: 4 to 7 min, after which the recorder's gap line (it was
  // down), and 12 min to the first trade after 15.5 min, no gap line (an import of captures with
  // holes): the event that ends that silence is a trade.
  synth('whole.jsonl.gz', T0, 20, 5);
  const lines = gunzipSync(readFileSync(path.join(dir, 'whole.jsonl.gz'))).toString('utf8').trimEnd().split('\n');
  const time = (l: string): number => (JSON.parse(l) as { t: number }).t;
  const trade = lines.find((l) => l.includes('"k":"trade"') && time(l) > T0 + 15.5 * MIN);
  const back = trade === undefined ? 0 : time(trade);
  const kept = [lines[0], ...lines.slice(1).filter((l) => !((time(l) > T0 + 4 * MIN && time(l) < T0 + 7 * MIN) || (time(l) > T0 + 12 * MIN && time(l) < back)))];
  const resume = kept.findIndex((l, i) => i > 0 && time(l) >= T0 + 7 * MIN);
  const lastBefore = time(kept[resume - 1]);
  kept.splice(resume, 0, JSON.stringify({ t: T0 + 7 * MIN, k: 'gap', stream: 'public', from: lastBefore, reason: 'reconnect' }));
  // That trade at the best bid of the last depth line before the hole, where the tape quotes
  // stand: it can reach nothing, so from the cache it goes the quiet-trade path.
  const at = kept.findIndex((l, i) => i > 0 && time(l) > T0 + 12 * MIN);
  const depth = kept.slice(0, at).reverse().find((l) => l.includes('"k":"depth"'));
  const ended = JSON.parse(kept[at]) as { k: string; p: string };
  expect(ended.k).toBe('trade');
  kept[at] = JSON.stringify({ ...ended, p: (JSON.parse(depth ?? '{}') as { b: string[][] }).b[0][0] });
  writeFileSync(path.join(dir, 'holes.jsonl.gz'), gzipSync(`${kept.join('\n')}\n`));
});

test('two recordings of separate hours: the silence between them is counted, named by both files and times, from the cache and from the JSON lines', () => {
  const lastOfA = T0 + 10 * MIN;
  for (const noCache of [false, true]) {
    const { stdout, report, html } = backtest('two', ['a.jsonl.gz', 'b.jsonl.gz'], [MM], noCache);
    const s = report.summary;
    expect(s.silences).toBe(1);
    expect(s.gaps).toBe(0);
    const longest = s.longestSilence;
    expect(longest).toMatchObject({ from: lastOfA, file: 'a.jsonl.gz', nextFile: 'b.jsonl.gz' });
    // b's first event comes within its first second.
    expect(longest !== null && longest.to - (T0 + 180 * MIN)).toBeLessThan(1000);
    expect(longest?.ms).toBe((longest?.to ?? 0) - lastOfA);
    expect(s.silentMs).toBe(longest?.ms);
    expect(report.data.silences).toEqual({ count: 1, ms: s.silentMs, longest, first: [longest] });
    const note = silenceNotes(stdout);
    expect(note).toHaveLength(1);
    expect(note[0]).toMatch(/^The data holds nothing for 2\.8 h \(\d+\.\d\d% of the run\): 1 silence\(s\) longer than 1 min \(report summary\.silences, data\.silences\): 2\.8 h between a\.jsonl\.gz \(its last event at 2025-06-01T00:10:00Z\) and b\.jsonl\.gz \(its first at 2025-06-01T03:00:00\.\d+Z\)\. There the strategies saw no mark or trade, their stops could not trigger and any funding settlement is missing/);
    expect(html).toContain(inHtml(note[0]));
  }
});

test('silences within a recording, one after a gap line and one without: each counted with its file, times and length; the gap line too', () => {
  const reports: BacktestReport[] = [];
  writeFileSync(path.join(dir, 'idle.js'), IDLE);
  for (const noCache of [false, true]) {
    const { stdout, report, html } = backtest('holes', ['holes.jsonl.gz'], [{ id: 'idle', module: './idle.js' }], noCache);
    const s = report.summary;
    expect(s.gaps).toBe(1);
    expect(s.silences).toBe(2);
    const [first, second] = report.data.silences.first;
    expect(first).toMatchObject({ file: 'holes.jsonl.gz', nextFile: null });
    expect(first.from).toBeLessThanOrEqual(T0 + 4 * MIN);
    // Ended by the gap line, written when the recorder came back.
    expect(first.to).toBe(T0 + 7 * MIN);
    expect(second).toMatchObject({ file: 'holes.jsonl.gz', nextFile: null });
    expect(second.from).toBeLessThanOrEqual(T0 + 12 * MIN);
    expect(second.to).toBeGreaterThanOrEqual(T0 + 15.5 * MIN);
    expect(s.silentMs).toBe(first.ms + second.ms);
    expect(s.longestSilence).toEqual(second);
    const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
    const note = silenceNotes(stdout);
    expect(note).toHaveLength(1);
    expect(note[0]).toContain(`: 2 silence(s) longer than 1 min (report summary.silences, data.silences): 3 min in holes.jsonl.gz from ${iso(first.from)} to ${iso(first.to)}; 4 min in holes.jsonl.gz from ${iso(second.from)} to ${iso(second.to)}. There the strategies`);
    expect(html).toContain(inHtml(note[0]));
    expect(notes(stdout).filter((n) => n.startsWith('The recording has 1 gap(s) in the replayed range'))).toHaveLength(1);
    reports.push(report);
  }
  expect(reports[1].data.silences).toEqual(reports[0].data.silences);
});

test('data without silences, one file or two that follow each other: no silence, no note', () => {
  for (const files of [['a.jsonl.gz'], ['a.jsonl.gz', 'next.jsonl.gz']]) {
    const { stdout, report, html } = backtest(`quiet-${files.length}`, files, [MM]);
    expect(report.summary).toMatchObject({ gaps: 0, silences: 0, silentMs: 0, longestSilence: null });
    expect(report.data.silences).toEqual({ count: 0, ms: 0, longest: null, first: [] });
    expect(silenceNotes(stdout)).toEqual([]);
    expect(html).not.toContain('The data holds nothing');
    expect(report.summary.fills).toBeGreaterThan(0);
  }
});
