/**
 * A recorder killed mid-recording leaves a gzip stream with no end. Every reader refused such a file
 * and told a CLI user to "pass allowTornTail", an option of the code: the recording could not be
 * used without writing a program. `perpkit data repair` writes its whole part to a new file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readRecording } from '../../src/market-data/reader';
import { startTestExchange } from '../helpers/exchange';
import { ROOT, ensureBuilt, runCli } from './exchange-proc';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function linesOf(file: string): Promise<string[]> {
  const out: string[] = [];
  for await (const x of readRecording([file], { allowTornTail: true })) out.push(JSON.stringify(x));
  return out;
}

describe('perpkit data repair', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-repair-'));
  beforeAll(() => ensureBuilt());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a recording whose recorder was SIGKILLed: refused with the way out; repaired, it reads whole with every event before the tear', async () => {
    const ex = await startTestExchange({ market: 'synthetic' });
    const torn = join(dir, 'killed.jsonl.gz');
    try {
      const cfg = join(dir, 'rec.yaml');
      writeFileSync(cfg, `venue:\n  baseUrl: ${ex.url}\nsymbols: [BTCUSDT]\nkinds: [trade, markPrice]\n`);
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'perpkit.js'), 'record', '--config', cfg, '--out', torn], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: 'silent' } });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, signal) => resolve(signal)));
      // The recorder flushes about once a second: wait until events are on disk.
      const until = Date.now() + 30_000;
      while (!(existsSync(torn) && statSync(torn).size > 0 && (await linesOf(torn)).length > 5) && Date.now() < until) await sleep(250);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      await ex.stop();
    }
    const before = readFileSync(torn);
    const hint = `\`perpkit data repair ${torn} --out <new file>\` keeps everything before it`;

    const inspect = runCli(['data', 'inspect', torn]);
    expect(inspect.code).toBe(2);
    expect(inspect.stderr).toMatch(/^perpkit data: \S+:\d+: the gzip stream ends early \(the writer did not close the file\); /);
    expect(inspect.stderr).toContain(hint);
    // The backtester's own reader says the same.
    const cfg = join(dir, 'bt.yaml');
    writeFileSync(cfg, `data:\n  files: [${torn}]\nstrategies:\n  - id: mm\n    module: market-maker\n    params: { symbol: BTCUSDT, quantity: "0.001" }\n`);
    const bt = runCli(['backtest', cfg, '--out', join(dir, 'bt-out'), '--quiet']);
    expect(bt.code).toBe(2);
    expect(bt.stderr).toContain(hint);

    // Into a folder that is not there yet: made, as import, synth and backtest make theirs.
    const fixed = join(dir, 'repaired', 'fixed.jsonl.gz');
    const r = runCli(['data', 'repair', torn, '--out', fixed]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const kept = await linesOf(torn);
    const events = kept.length - 1;
    expect(events).toBeGreaterThan(0);
    expect(r.stdout).toBe(`repair: kept ${events} events of ${torn}, up to line ${events + 1}; dropped from line ${events + 2}: the gzip stream ends early (the writer did not close the file)\n  wrote ${fixed}\n`);
    // Whole now, with the header and every event that was before the tear; the torn file as it was.
    expect(await linesOf(fixed)).toEqual(kept);
    const again = runCli(['data', 'inspect', fixed]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(` ${events} events: `);
    expect(readFileSync(torn).equals(before)).toBe(true);
    // A whole file is not copied.
    const whole = runCli(['data', 'repair', fixed, '--out', join(dir, 'copy.jsonl.gz')]);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toBe(`repair: ${fixed} reads whole (${events} events): nothing to repair, nothing written\n`);
    expect(existsSync(join(dir, 'copy.jsonl.gz'))).toBe(false);
  }, 60_000);

  it('a last line written in part is dropped; a bad line before the end is damage, refused with nothing written', () => {
    const header = JSON.stringify({ type: 'header', format: 'perpkit-recording', version: 2, source: 'test', startTime: 0, symbols: [], part: 0 });
    const trade = (t: number): string => JSON.stringify({ t, k: 'trade', s: 'BTCUSDT', id: String(t), p: '100.5', q: '0.010', side: 'BUY' });
    const cut = join(dir, 'cut.jsonl.gz');
    writeFileSync(cut, gzipSync(`${header}\n${trade(1)}\n${trade(2)}\n${trade(3).slice(0, 30)}`));
    const inspect = runCli(['data', 'inspect', cut]);
    expect(inspect.code).toBe(2);
    expect(inspect.stderr).toBe(`perpkit data: ${cut}:4: not a JSON line: ${trade(3).slice(0, 30)} (the file's last line: if its writer was stopped mid-write, \`perpkit data repair ${cut} --out <new file>\` keeps everything before it)\n`);
    const out = join(dir, 'cut-fixed.jsonl.gz');
    const r = runCli(['data', 'repair', cut, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`repair: kept 2 events of ${cut}, up to line 3; dropped from line 4: not a JSON line: ${trade(3).slice(0, 30)}\n  wrote ${out}\n`);
    expect(readFileSync(out).subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]))).toBe(true);
    expect(runCli(['data', 'inspect', out]).stdout).toContain(' 2 events: trade 2');
    // An --out not named .gz gets plain JSON lines, as its name says.
    const plain = join(dir, 'cut-fixed.jsonl');
    expect(runCli(['data', 'repair', cut, '--out', plain]).code).toBe(0);
    expect(readFileSync(plain, 'utf8')).toBe(`${header}\n${trade(1)}\n${trade(2)}\n`);

    const damaged = join(dir, 'damaged.jsonl.gz');
    writeFileSync(damaged, gzipSync(`${header}\n${trade(1)}\n{oops\n${trade(3)}\n`));
    const bad = runCli(['data', 'repair', damaged, '--out', join(dir, 'damaged-fixed.jsonl.gz')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`perpkit data: ${damaged}:3: not a JSON line: {oops\n`);
    expect(existsSync(join(dir, 'damaged-fixed.jsonl.gz'))).toBe(false);
  });

  it.each([
    [['data', 'repair', 'x.jsonl.gz'], 'x.jsonl.gz: no such file'],
    [['data', 'repair'], 'no recording given; expected the torn recording file'],
    [['data', 'repair', 'package.json', 'README.md', '--out', 'y.jsonl.gz'], 'repair takes one file, got 2 (package.json README.md); repair each torn file on its own'],
    [['data', 'repair', 'package.json'], '--out <file> is required: where to write the repaired recording'],
    [['data', 'repair', 'package.json', '--out', 'package.json'], '--out package.json: the repaired recording must go to another file than the torn one (which is left as it is)'],
    [['data', 'repair', 'package.json', '--out', 'package.json/folder/y.jsonl.gz'], `--out package.json/folder/y.jsonl.gz: the folder ${join(ROOT, 'package.json', 'folder')} cannot be made: a path under the file ${join(ROOT, 'package.json')}`],
    [['data', 'inspect', 'package.json', '--out', 'y.jsonl.gz'], "--out is an option of 'data repair'; inspect writes nothing"],
    [['data', 'fix', 'package.json'], "unknown subcommand 'fix'; expected inspect or repair"],
  ])('%j: one line, exit 2', (args, message) => {
    const r = runCli(args);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`perpkit data: ${message} (perpkit data --help lists the options)\n`);
    expect(r.code).toBe(2);
  });
});
