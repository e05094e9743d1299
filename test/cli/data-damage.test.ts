/**
 * Recordings that are damaged rather than torn, torn where nothing can be kept, and torn at their
 * last line, through the commands a user runs (`perpkit data inspect`, `data repair`, `backtest`):
 * each reader says the same one line, exit 2, and repair writes nothing it should not.
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { recording, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, runCli } from './exchange-proc';

jest.setTimeout(120_000);

let dir: string;
let whole: Buffer;
let text: string;
beforeAll(async () => {
  ensureBuilt();
  const r = await recording(10, 5);
  dir = r.dir;
  whole = readFileSync(r.file);
  text = gunzipSync(whole).toString();
});

const oneLine = (s: string): void => expect(s.trimEnd().split('\n')).toHaveLength(1);
const backtestOf = (name: string, file: string, cache: boolean): ReturnType<typeof runCli> =>
  runCli(['backtest', writeConfig(dir, `${name}.yaml`, { data: { files: [file], cache } }), '--out', path.join(dir, `out-${name}`), '--quiet']);
const leftovers = (): string[] => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('a damaged (not torn) gzip: one line naming the file and the last good line, exit 2', () => {
  it('data inspect, data repair (nothing written) and the backtest (with and without the cache) say it alike', () => {
    const flip = path.join(dir, 'flip.jsonl.gz');
    const bytes = Buffer.from(whole);
    bytes[bytes.length - 6] ^= 0xff; // the CRC-32 of the trailer: every byte inflates, the check fails
    writeFileSync(flip, bytes);
    const total = text.split('\n').length - 1;

    const inspect = runCli(['data', 'inspect', flip]);
    expect(inspect.code).toBe(2);
    oneLine(inspect.stderr);
    const m = /^perpkit data: (\S+):(\d+): the gzip data is damaged \(not torn\) after line (\d+) \(incorrect data check\): its bytes were changed after they were written \(a bad copy or disk\), so nothing after that line can be read and `perpkit data repair` cannot mend it; get the file again\n$/.exec(inspect.stderr);
    expect(m).not.toBeNull();
    const [, file, at, after] = m as RegExpExecArray;
    expect(file).toBe(flip);
    expect(Number(at)).toBe(Number(after) + 1);
    expect(Number(after)).toBeGreaterThan(0);
    expect(Number(after)).toBeLessThanOrEqual(total);
    const said = inspect.stderr.slice('perpkit data: '.length).trimEnd();

    const out = path.join(dir, 'flip-repaired.jsonl.gz');
    const repair = runCli(['data', 'repair', flip, '--out', out]);
    expect(repair.code).toBe(2);
    expect(repair.stderr).toBe(inspect.stderr);
    expect(existsSync(out)).toBe(false);
    expect(leftovers()).toEqual([]);

    for (const cache of [false, true]) {
      const bt = backtestOf(`flip-${String(cache)}`, 'flip.jsonl.gz', cache);
      expect(bt.code).toBe(2);
      oneLine(bt.stderr);
      expect(bt.stderr).toContain(said);
    }
  });
});

describe('data repair: what it must not write', () => {
  it('a file torn inside its header: "nothing to keep", exit 2, nothing written (a torn first line, or gzip data cut inside it)', () => {
    const header = text.slice(0, text.indexOf('\n'));
    const cases: Array<[string, Buffer]> = [
      ['header-line.jsonl.gz', gzipSync(header.slice(0, 40))],
      ['header-gzip.jsonl.gz', whole.subarray(0, 30)],
    ];
    for (const [name, bytes] of cases) {
      const torn = path.join(dir, name);
      writeFileSync(torn, bytes);
      const out = path.join(dir, `${name}-repaired.jsonl.gz`);
      const r = runCli(['data', 'repair', torn, '--out', out]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^perpkit data: ${torn.replace(/[.]/g, '\\.')}:1: nothing to keep: the header itself is torn \\(.+\\); nothing written\\n$`));
      expect(r.code).toBe(2);
      expect(existsSync(out)).toBe(false);
    }
    expect(leftovers()).toEqual([]);
  });

  it('--out already there is refused unless --overwrite; --out linked to the torn file is refused even with it', () => {
    const torn = path.join(dir, 'torn-tail.jsonl.gz');
    writeFileSync(torn, whole.subarray(0, Math.floor(whole.length / 2)));
    const tornBytes = readFileSync(torn);
    const out = path.join(dir, 'kept.jsonl.gz');
    writeFileSync(out, 'an earlier repair');
    const r = runCli(['data', 'repair', torn, '--out', out]);
    expect(r.stderr.startsWith(`perpkit data: --out ${out}: a file is already there; choose another --out, remove it, or pass --overwrite`)).toBe(true);
    oneLine(r.stderr);
    expect(r.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('an earlier repair');
    const o = runCli(['data', 'repair', torn, '--out', out, '--overwrite']);
    expect(o.code).toBe(0);
    expect(o.stdout).toMatch(/^repair: kept \d+ events of /);
    expect(runCli(['data', 'inspect', out]).code).toBe(0);

    const link = path.join(dir, 'link.jsonl.gz');
    symlinkSync(torn, link);
    const l = runCli(['data', 'repair', torn, '--out', link, '--overwrite']);
    expect(l.stderr.startsWith(`perpkit data: --out ${link}: the repaired recording must go to another file than the torn one (which is left as it is)`)).toBe(true);
    oneLine(l.stderr);
    expect(l.code).toBe(2);
    expect(readFileSync(torn).equals(tornBytes)).toBe(true);
  });
});

describe('a torn last line: the backtest says what data inspect says, naming data repair', () => {
  const lines = (): string[] => text.trimEnd().split('\n');
  it.each([
    ['plain JSON lines', 'torn-line.jsonl', (t: string): Buffer => Buffer.from(t)],
    ['one whole gzip stream', 'torn-line.jsonl.gz', (t: string): Buffer => gzipSync(t)],
  ])('%s', (_what, name, encode) => {
    const all = lines();
    const last = all[all.length - 1];
    const torn = path.join(dir, name);
    writeFileSync(torn, encode(`${all.slice(0, -1).join('\n')}\n${last.slice(0, 25)}`));
    const inspect = runCli(['data', 'inspect', torn]);
    expect(inspect.code).toBe(2);
    const said = `${torn}:${all.length}: not a JSON line: ${last.slice(0, 25)} (the file's last line: if its writer was stopped mid-write, \`perpkit data repair ${torn} --out <new file>\` keeps everything before it)`;
    expect(inspect.stderr).toBe(`perpkit data: ${said}\n`);
    for (const cache of [false, true]) {
      const bt = backtestOf(`${name}-${String(cache)}`, name, cache);
      expect(bt.code).toBe(2);
      oneLine(bt.stderr);
      expect(bt.stderr).toContain(said);
    }
  });
});
