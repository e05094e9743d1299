/**
 * Issue 12 items 4 and 5 through the command a user runs: a strategy that throws, and one whose
 * intents the risk engine denies, no longer end in `pnl 0 ... fills 0` and exit 0. The summary
 * says how many errors and which was first (strategy, where, message, stack top), the report
 * (json and html) says it too, the exit code is 3 unless --allow-strategy-errors; denials and
 * rejections are shown by code.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import { MM, recording, writeConfig } from '../backtest/fixtures';
import { ROOT, ensureBuilt, runCli } from './exchange-proc';

jest.setTimeout(120_000);

const THROWER = `module.exports.default = {
  name: 'thrower',
  symbols: () => ['BTCUSDT'],
  params: (raw) => raw,
  marketData: () => ['markPrice'],
  create: () => ({
    onEvent(e) {
      if (e.type === 'markPrice') throw new Error('boom on mark');
      return [];
    },
  }),
};
`;

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(10, 5));
  writeFileSync(path.join(dir, 'thrower.js'), THROWER);
});

// An async hook (easy to write in TypeScript) returned a Promise that rejected: the run died on the
// unhandled rejection with a stack trace, exit 1 and, without the cache, no report.
test('an async hook that throws: its Promise is refused and its rejection counted; no crash, the report written, exit 3', () => {
  writeFileSync(path.join(dir, 'async.js'), "module.exports.default = { name: 'async', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'], create: () => ({ async onMark() { throw new Error('async boom'); } }) };\n");
  const cfg = writeConfig(dir, 'async.yaml', { data: { files: ['rec.jsonl.gz'], cache: false }, strategies: [{ id: 'a', module: './async.js', params: {} }] });
  const out = path.join(dir, 'out-async');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.code).toBe(3);
  expect(r.stdout).toMatch(/strategy errors: \d+; first: \[a\] onMark: onMark returned a Promise \(an async hook\? hooks run synchronously: their intents are not awaited\)/);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { strategyErrors: number; strategiesStopped: string[] } };
  expect(report.summary.strategyErrors).toBeGreaterThanOrEqual(10);
  expect(report.summary.strategiesStopped).toEqual(['a']);
});

test('a strategy that throws: the summary names the first error, the reports show it, exit 3', () => {
  const cfg = writeConfig(dir, 'throw.yaml', { strategies: [{ id: 't', module: './thrower.js', params: {} }] });
  const out = path.join(dir, 'out-throw');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(3);
  const line = r.stdout.split('\n').find((l) => l.includes('strategy errors:')) ?? '';
  // Stopped after the default 10 errors within 60 s: the count, the first error and its frame.
  expect(line).toMatch(/strategy errors: 10; first: \[t\] onEvent\(markPrice\): boom on mark \(at .*\(thrower\.js:\d+:\d+\)\); stopped for their errors: t/);
  expect(r.stderr).toMatch(/^perpkit backtest: strategies erred 10 times \(threw, or returned what the bot refuses\); first: \[t\] onEvent\(markPrice\): boom on mark \(at [^\n]*\); stopped for their errors: t; the results are those of failing strategies\. Exit 3; --allow-strategy-errors to accept them\n$/);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { strategyErrors: number; firstStrategyError: { strategyId: string; message: string; at: string }; strategiesStopped: string[] } };
  expect(report.summary.strategyErrors).toBe(10);
  expect(report.summary.firstStrategyError).toMatchObject({ strategyId: 't', where: 'onEvent(markPrice)', message: 'boom on mark' });
  // Paths in the report are relative to the config's folder: the same run gives the same bytes anywhere.
  expect(report.summary.firstStrategyError.at).toMatch(/^at .*\(thrower\.js:\d+:\d+\)$/);
  expect(report.summary.strategiesStopped).toEqual(['t']);
  const html = readFileSync(path.join(out, 'report.html'), 'utf8');
  expect(html).toContain('id="strategy-errors"');
  expect(html).toContain('boom on mark');

  const allowed = runCli(['backtest', cfg, '--out', out, '--quiet', '--allow-strategy-errors']);
  expect(allowed.code).toBe(0);
  expect(allowed.stdout).toContain('strategy errors: 10;');
});

// An error perpkit throws at a call the strategy made was placed inside perpkit (its compiled
// context.js, create.js): the frame shown is the strategy's own line now.
test("an error perpkit throws at a strategy's call is shown at the strategy's line, not inside perpkit", () => {
  writeFileSync(path.join(dir, 'other-symbol.js'), "module.exports.default = {\n  name: 'other', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],\n  create: (ctx) => ({\n    onMark() {\n      return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: ctx.market('ETHUSDT').tickSize }];\n    },\n  }),\n};\n");
  const cfg = writeConfig(dir, 'other-symbol.yaml', { strategies: [{ id: 'o', module: './other-symbol.js', params: {} }] });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-other'), '--quiet', '--allow-strategy-errors']);
  expect(r.code).toBe(0);
  const line = r.stdout.split('\n').find((l) => l.includes('strategy errors:')) ?? '';
  expect(line).toMatch(/first: \[o\] onMark: .*ETHUSDT.* \(at .*other-symbol\.js:5:\d+\)/);
  expect(line).not.toMatch(/dist[/\\]src|context\.js/);
});

test('a strategy returning a malformed intent: refused and counted as its error on the summary and in the report, exit 3', () => {
  writeFileSync(path.join(dir, 'badintent.js'), THROWER.replace("throw new Error('boom on mark');", "return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '1000' }];"));
  const cfg = writeConfig(dir, 'badintent.yaml', { strategies: [{ id: 'bi', module: './badintent.js', params: {} }] });
  const out = path.join(dir, 'out-badintent');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(3);
  expect(r.stdout).toMatch(/strategy errors: 10; first: \[bi\] onEvent\(markPrice\): malformed intent refused: place intent: 'quantity' must be a decimal string, got nothing \(the field is missing\); stopped for their errors: bi\n/);
  expect(r.stdout).not.toContain('bot errors:');
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { strategyErrors: number; botErrors: number; firstStrategyError: { at: string } } };
  expect(report.summary).toMatchObject({ strategyErrors: 10, botErrors: 0, firstStrategyError: { at: '' } });
});

test('a strategy whose create() throws: exit 3, naming the strategy id, create(), the error, its top frame and the module', () => {
  writeFileSync(path.join(dir, 'throwcreate.js'), THROWER.replace(/create: \(\) => \(\{[\s\S]*\}\),\n/, "create: () => { throw new Error('create exploded'); },\n"));
  const cfg = writeConfig(dir, 'throwcreate.yaml', { strategies: [{ id: 'tc', module: './throwcreate.js', params: {} }] });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-throwcreate'), '--quiet']);
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/^perpkit backtest: strategy tc could not be created: \[tc\] create\(\): create exploded \(at .*\(throwcreate\.js:\d+:\d+\)\); module throwcreate\.js\. Exit 3: the backtest cannot run without it\n$/);
  // Not something --allow-strategy-errors accepts: there is nothing to report on.
  expect(runCli(['backtest', cfg, '--out', path.join(dir, 'out-throwcreate'), '--quiet', '--allow-strategy-errors']).code).toBe(3);
});

test('denials are counted by code on the summary line and in the report', () => {
  const cfg = writeConfig(dir, 'deny.yaml', { risk: { maxOrderNotional: '1' } });
  const out = path.join(dir, 'out-deny');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/denials [1-9]\d* \(MAX_ORDER_NOTIONAL [1-9]\d*\); rejections 0/);
  expect(r.stdout).toContain('strategy errors: none');
  type First = { time: number; intent: string; message: string; strategyId?: string };
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { denials: number; denialsByCode: Record<string, number>; firstDenialByCode: Record<string, First> }; strategies: Record<string, { firstDenialByCode: Record<string, First> }> };
  expect(report.summary.denialsByCode).toEqual({ MAX_ORDER_NOTIONAL: report.summary.denials });
  // The reason of a code, not only its count (it was said only with --strategy-logs): the first
  // denial of each code, under the counts, in report.json (summary and per strategy) and report.html.
  const first = report.summary.firstDenialByCode;
  expect(Object.keys(first)).toEqual(['MAX_ORDER_NOTIONAL']);
  expect(first.MAX_ORDER_NOTIONAL).toEqual({ strategyId: 'mm', time: expect.any(Number) as number, intent: 'place', message: expect.stringMatching(/notional/) as string });
  const { strategyId: _id, ...own } = first.MAX_ORDER_NOTIONAL;
  expect(report.strategies.mm.firstDenialByCode).toEqual({ MAX_ORDER_NOTIONAL: own });
  expect(r.stdout).toContain(`; rejections 0\n  first denial of MAX_ORDER_NOTIONAL: [mm] place: ${own.message}\n  strategy errors: none\n`);
  expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain(`First denial of each code</td><td>MAX_ORDER_NOTIONAL: [mm] place: ${own.message}</td>`);
});

test('venue rejections are counted by code, and the first of each code is said: strategy, intent and the venue\'s message', () => {
  // 0.01 BTC quotes (about 500 USDT a side) on a 100 USDT account at 2x: the venue refuses most placements for margin.
  const cfg = writeConfig(dir, 'reject.yaml', { account: { balance: '100', leverage: { BTCUSDT: 2 } }, latency: { placeMs: 0 } });
  const out = path.join(dir, 'out-reject');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(0);
  // It used to say only "rejections 12 (30003 12)": a number a user had to look up, and no reason.
  expect(r.stdout).toMatch(/; rejections [1-9]\d* \(30003 [1-9]\d*\)\n {2}first rejection of 30003: \[mm\] place: insufficient margin: the order needs [\d.]+ USDT at 2x, available is [\d.]+ USDT\n {2}strategy errors: none\n/);
  type First = { time: number; intent: string; message: string; strategyId?: string };
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { data: { startTime: number; endTime: number }; summary: { firstRejectionByCode: Record<string, First> }; strategies: Record<string, { firstRejectionByCode: Record<string, First> }> };
  const first = report.summary.firstRejectionByCode;
  expect(Object.keys(first)).toEqual(['30003']);
  expect(first['30003']).toEqual({ strategyId: 'mm', time: expect.any(Number) as number, intent: 'place', message: expect.stringMatching(/^insufficient margin: the order needs/) as string });
  expect(first['30003'].time).toBeGreaterThanOrEqual(report.data.startTime);
  expect(first['30003'].time).toBeLessThanOrEqual(report.data.endTime);
  const { strategyId: _id, ...own } = first['30003'];
  expect(report.strategies.mm.firstRejectionByCode).toEqual({ '30003': own });
  expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain(`First rejection of each code</td><td>30003: [mm] place: ${own.message}</td>`);
});

test('--strategy-logs prints the bot log lines, one per code per interval', () => {
  const cfg = writeConfig(dir, 'deny.yaml', { risk: { maxOrderNotional: '1' } });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-logs'), '--quiet', '--strategy-logs']);
  expect(r.code).toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; code?: string; repeats?: number; strategy?: string });
  const denials = lines.filter((l) => l.code === 'MAX_ORDER_NOTIONAL');
  expect(denials.length).toBeGreaterThan(0);
  expect(denials[0]).toMatchObject({ strategy: 'mm', msg: 'risk denied an intent: MAX_ORDER_NOTIONAL' });
  // Far fewer lines than denials: the rest are counted into the window lines.
  const report = JSON.parse(readFileSync(path.join(dir, 'out-logs', 'report.json'), 'utf8')) as { summary: { denials: number } };
  // Each window's first denial has a line of its own; its repeats are counted on the window's line.
  const counted = denials.reduce((s, l) => s + (l.repeats ?? 1), 0);
  expect(denials.length).toBeLessThan(report.summary.denials);
  expect(counted).toBe(report.summary.denials);
});

// The lines carried the wall clock's time (a run today of a recording of 2024 logged today's date).
test('--strategy-logs lines carry the replay time: the event being processed, inside the recording, not the wall clock', () => {
  writeFileSync(path.join(dir, 'logger.js'), "module.exports.default = { name: 'logger', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'], create: (ctx) => ({ onMark(e) { ctx.log.info({ at: e.time }, 'mark seen'); return []; } }) };\n");
  const cfg = writeConfig(dir, 'logs-time.yaml', { risk: { maxOrderNotional: '1' }, strategies: [MM, { id: 'log', module: './logger.js', params: {} }] });
  const out = path.join(dir, 'out-logs-time');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet', '--strategy-logs']);
  expect(r.code).toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: number; msg: string; at?: number; code?: string });
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { data: { startTime: number; endTime: number } };
  const { startTime, endTime } = report.data;
  // The strategy's lines: at the time of the mark price it was handling.
  const marks = lines.filter((l) => l.msg === 'mark seen');
  expect(marks.length).toBeGreaterThan(100);
  for (const l of marks) expect(l.time).toBe(l.at);
  // The bot's own (the market maker's denials) and every other line: inside the replayed range.
  expect(lines.filter((l) => l.code === 'MAX_ORDER_NOTIONAL').length).toBeGreaterThan(0);
  for (const l of lines) {
    expect(l.time).toBeGreaterThanOrEqual(startTime);
    expect(l.time).toBeLessThanOrEqual(endTime);
  }
});

test('a recording without any mark price: exit 2, one line naming the config, data.files and the symbol', () => {
  // A v2 recording (as an import writes it) holding one book snapshot and nothing a mark comes from.
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')?.spec;
  const header = { type: 'header', format: 'perpkit-recording', version: 2, source: 'import:test', startTime: 1_700_000_000_000, symbols: [spec], part: 0, marks: { BTCUSDT: { source: 'derived', method: 'mid price sampled each second' } } };
  const snap = { t: 1_700_000_000_000, k: 'snapshot', s: 'BTCUSDT', u: 1, b: [], a: [['60000.5', '1.000']] };
  writeFileSync(path.join(dir, 'nomark.jsonl.gz'), gzipSync(`${JSON.stringify(header)}\n${JSON.stringify(snap)}\n`));
  const cfg = writeConfig(dir, 'nomark.yaml', { data: { files: ['nomark.jsonl.gz'] } });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-nomark', 'run-1'), '--quiet']);
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toMatch(/^perpkit backtest: .*nomark\.yaml(:\d+)?: data\.files: expected a mark price for BTCUSDT in the configured time range .*, got none, so the strategies never started$/);
  // The output folders the run made before it was refused are gone again (they were left empty).
  expect(existsSync(path.join(dir, 'out-nomark'))).toBe(false);
  // One that was there before stays.
  mkdirSync(path.join(dir, 'out-kept'));
  expect(runCli(['backtest', cfg, '--out', path.join(dir, 'out-kept', 'run-1'), '--quiet']).code).toBe(2);
  expect(readdirSync(path.join(dir, 'out-kept'))).toEqual([]);
});

test('two recordings of the same hours listed one after the other: exit 2 naming the backward step, not a still market', () => {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')?.spec;
  const T0 = 1_700_000_000_000;
  const rec = (name: string, from: number): void => {
    const header = { type: 'header', format: 'perpkit-recording', version: 2, source: 'import:test', startTime: from, symbols: [spec], part: 0 };
    const marks = Array.from({ length: 120 }, (_, i) => ({ t: from + i * 1000, k: 'mark', s: 'BTCUSDT', p: '60000.0', i: '60000.0', r: '0', n: T0 + 8 * 3_600_000 }));
    writeFileSync(path.join(dir, name), gzipSync([header, ...marks].map((l) => JSON.stringify(l)).join('\n') + '\n'));
  };
  rec('hours-a.jsonl.gz', T0);
  rec('hours-b.jsonl.gz', T0 + 30_000);
  const cfg = writeConfig(dir, 'overlap.yaml', { data: { files: ['hours-a.jsonl.gz', 'hours-b.jsonl.gz'] } });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-overlap'), '--quiet']);
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toMatch(/^perpkit backtest: .*overlap\.yaml(:\d+)?: data\.files: expected events in time order, each file after the one before it .*, got an event at 2023-11-14T22:13:50\.000Z \(.*hours-b\.jsonl\.gz:2, event 121 of the replay\) after one at 2023-11-14T22:15:19\.000Z$/);
});

test('a configured range: the summary counts the events replayed in it, not the events read to find it', () => {
  const all = runCli(['backtest', writeConfig(dir, 'whole.yaml', {}), '--out', path.join(dir, 'out-whole'), '--quiet']);
  expect(all.code).toBe(0);
  const whole = /^backtest: (\d+) events in [\d.]+ s/.exec(all.stdout);
  expect(whole).not.toBeNull();
  const cfg = writeConfig(dir, 'part.yaml', { data: { files: ['rec.jsonl.gz'], from: 1_704_067_200_000 + 5 * 60_000 } });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-part'), '--quiet']);
  expect(r.code).toBe(0);
  const m = /^backtest: (\d+) events in the configured range \((\d+) read\) in [\d.]+ s/.exec(r.stdout);
  expect(m).not.toBeNull();
  const report = JSON.parse(readFileSync(path.join(dir, 'out-part', 'report.json'), 'utf8')) as { data: { events: { read: number; applied: number } } };
  expect(Number(m?.[1])).toBe(report.data.events.applied);
  expect(Number(m?.[2])).toBe(report.data.events.read);
  expect(report.data.events.applied).toBeLessThan(report.data.events.read);
  expect(report.data.events.read).toBe(Number(whole?.[1]));
});

test('a run that builds the replay cache says how long that took of its time; the next run, reading it, does not', async () => {
  // A recording of its own: the cache of the suite's one may have been built by an earlier test.
  const { dir: own } = await recording(3, 6);
  const cfg = writeConfig(own, 'cache.yaml', {});
  const first = runCli(['backtest', cfg, '--out', path.join(own, 'out-1'), '--quiet']);
  expect(first.code).toBe(0);
  // It used to print "(N ev/s, from cache)" with the build in the time, as if the replay were that slow.
  const m = /^backtest: \d+ events in ([\d.]+) s \(\d+ ev\/s, from cache; building it took ([\d.]+) s of this run\)\n/.exec(first.stdout);
  expect(m).not.toBeNull();
  expect(Number(m?.[2])).toBeLessThanOrEqual(Number(m?.[1]));
  const run1 = JSON.parse(readFileSync(path.join(own, 'out-1', 'run.json'), 'utf8')) as { source: string; cacheBuildMs: number; wallMs: number };
  expect(run1.source).toBe('cache');
  expect(run1.cacheBuildMs).toBeGreaterThan(0);
  expect(run1.cacheBuildMs).toBeLessThanOrEqual(run1.wallMs);
  const second = runCli(['backtest', cfg, '--out', path.join(own, 'out-2'), '--quiet']);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(/^backtest: \d+ events in [\d.]+ s \(\d+ ev\/s, from cache\)\n/);
  expect((JSON.parse(readFileSync(path.join(own, 'out-2', 'run.json'), 'utf8')) as { cacheBuildMs: number }).cacheBuildMs).toBe(0);
});

// A damaged cache (a byte changed in a chunk, or the file cut short, its key still matching) was
// replayed as it was: a run from cache that differed from the recording's, exit 0 and no word.
test('a damaged replay cache is found by its checksums, said, removed and built again; the run is the recording\'s', async () => {
  const { dir: own, file } = await recording(3, 7);
  const cfg = writeConfig(own, 'damaged.yaml', {});
  const clean = runCli(['backtest', cfg, '--out', path.join(own, 'clean'), '--quiet']);
  expect(clean.code).toBe(0);
  const cache = `${file}.perpkit-cache`;
  const size = statSync(cache).size;
  const damage = (f: (bytes: Buffer) => Buffer): void => {
    const before = statSync(cache);
    writeFileSync(cache, f(readFileSync(cache)));
    utimesSync(cache, before.atime, before.mtime);
  };
  for (const [name, f, problem] of [
    ['flipped', (b: Buffer) => { b[Math.floor(size / 2)] ^= 0x10; return b; }, /the chunk at byte \d+ does not match its checksum/],
    ['cut', (b: Buffer) => b.subarray(0, Math.floor(size / 2)), /it ends (within the chunk at|at) byte \d+/],
  ] as const) {
    damage(f);
    const r = runCli(['backtest', cfg, '--out', path.join(own, name), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^perpkit backtest: ${cache.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the replay cache is damaged \\(${problem.source}\\); removed it, building it again from \\S+rec\\.jsonl\\.gz and running again\n$`));
    expect(readFileSync(path.join(own, name, 'report.json'), 'utf8')).toBe(readFileSync(path.join(own, 'clean', 'report.json'), 'utf8'));
    expect(statSync(cache).size).toBe(size);
  }
});

test('orders that end REJECTED on arrival (makerOnly that would take) follow the accepted count on the summary and are in the report', () => {
  // At the first mark: an ask 0.5 % over it, then a makerOnly bid 1 % over it, which would take that ask.
  writeFileSync(
    path.join(dir, 'crosser.js'),
    `module.exports.default = {
  name: 'crosser', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: (ctx) => {
    let sent = false;
    return {
      onMark(e) {
        if (sent) return [];
        sent = true;
        const at = (f) => ctx.price.round((Number(e.mark.markPrice) * f).toFixed(1), 'down');
        return [
          { kind: 'place', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: at(1.005), quantity: '0.01' },
          { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: at(1.01), quantity: '0.01', makerOnly: true },
        ];
      },
    };
  },
};
`,
  );
  const cfg = writeConfig(dir, 'crosser.yaml', { strategies: [{ id: 'x', module: './crosser.js', params: {} }] });
  const out = path.join(dir, 'out-crosser');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(0);
  // It used to say "orders 1 accepted; denials 0; rejections 0": the bid the venue ended REJECTED was in no count.
  expect(r.stdout).toContain('\n  orders 1 accepted, 1 rejected on arrival (makerOnly orders that would have taken liquidity); denials 0; rejections 0\n');
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { ordersRejected: number; ordersAccepted: number }; strategies: Record<string, { ordersRejected: number }> };
  expect(report.summary).toMatchObject({ ordersAccepted: 1, ordersRejected: 1 });
  expect(report.strategies.x.ordersRejected).toBe(1);
  expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('Orders accepted / rejected on arrival / expired unfilled / expired partly filled / cancels / rejections / denials</td><td>1 / 1 / 0 / 0 / 0 / 0 / 0</td>');
});

test('market orders that expire with nothing filled (no tape quote to take) are counted on the summary and in the report', async () => {
  // A MARKET buy on every mark, on a recording whose depth line (a tape quote) comes every 10 s
  // (synth --depth-every 10000; 1 s by default): most of them find the ask already taken by a
  // recorded trade and end EXPIRED with nothing filled.
  const { dir: sparse } = await recording(10, 5, 10_000);
  writeFileSync(
    path.join(sparse, 'taker.js'),
    `module.exports.default = {
  name: 'taker', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: (ctx) => ({
    onMark: () => [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.001' }],
  }),
};
`,
  );
  const cfg = writeConfig(sparse, 'taker.yaml', { strategies: [{ id: 't', module: './taker.js', params: {} }] });
  const out = path.join(sparse, 'out-taker');
  const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(r.code).toBe(0);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { ordersAccepted: number; ordersExpiredUnfilled: number; fills: number }; strategies: Record<string, { ordersExpiredUnfilled: number }> };
  const s = report.summary;
  expect(s.ordersExpiredUnfilled).toBeGreaterThan(0);
  expect(s.ordersExpiredUnfilled).toBeLessThan(s.ordersAccepted);
  expect(s.fills).toBeGreaterThan(0);
  expect(report.strategies.t.ordersExpiredUnfilled).toBe(s.ordersExpiredUnfilled);
  // It used to say "orders N accepted; denials 0; rejections 0" with most of them never filled.
  expect(r.stdout).toContain(`\n  orders ${s.ordersAccepted} accepted, ${s.ordersExpiredUnfilled} expired with nothing filled (a MARKET, IOC or FOK order that found no liquidity, or a reduce-only order with nothing left to reduce); denials 0; rejections 0\n`);
  expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain(`<td>${s.ordersAccepted} / 0 / ${s.ordersExpiredUnfilled} / 0 / 0 / 0 / 0</td>`);
});

// Ctrl+C ended the process at once without a word (exit 130, nothing said, an empty output folder left).
test('Ctrl+C during a backtest: it stops at once, says so, writes nothing and leaves no folder, exit 130', async () => {
  const { dir: long } = await recording(240, 9);
  const cfg = writeConfig(long, 'long.yaml', { data: { files: ['rec.jsonl.gz'], cache: false } });
  const out = path.join(long, 'out-long', 'run');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'backtest', cfg, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    // The output folder is made once the run has its signal handler, just before the replay.
    for (const t0 = Date.now(); !existsSync(out) && Date.now() - t0 < 30_000; ) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(out)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const t = Date.now();
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 130, signal: null });
    // Stops within ~4,096 events (136-267 ms on an idle machine; 6.3 s was seen on a 2-core machine
    // running four other jobs): the whole 4 h replay takes far longer, and would write its report.
    expect(Date.now() - t).toBeLessThan(10_000);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  expect(stderr).toBe('perpkit backtest: SIGINT: stopping (again to quit at once)\nperpkit backtest: stopped by SIGINT; nothing written\n');
  expect(stdout).toBe('');
  expect(existsSync(path.join(long, 'out-long'))).toBe(false);
}, 120_000);
