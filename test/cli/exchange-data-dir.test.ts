/**
 * One exchange per data directory, and a start that fails leaves the directory as it found it.
 * Two `perpkit exchange --data-dir D` both appended to D's journal with their own seqs, and the
 * next start refused it as corrupt (with a stack trace); a start that could not listen still
 * replayed the journal and wrote a snapshot on its way out.
 */
import { createServer, type Server } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, runCli, startCli, type Proc } from './exchange-proc';

/** Every file of the directory with its size, mtime and content. */
function dirState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of readdirSync(dir).sort()) {
    const f = path.join(dir, n);
    out[n] = `${statSync(f).size} ${statSync(f).mtimeMs} ${readFileSync(f, 'utf8')}`;
  }
  return out;
}

/** A journal is written: the synthetic market's own users are commands. Left with SIGKILL (no final snapshot). */
async function killedWithJournal(dir: string, procs: Proc[]): Promise<void> {
  const p = await startCli(['--port', '0', '--market', 'synthetic', '--data-dir', dir]);
  procs.push(p);
  p.child.kill('SIGKILL');
  await p.exited;
}

describe('perpkit exchange --data-dir', () => {
  beforeAll(() => ensureBuilt(), 120000);
  let dir: string;
  const procs: Proc[] = [];
  const servers: Server[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-datadir-'));
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second exchange on a data directory in use refuses to start: one line naming the directory and the other process, exit 2; the first goes on', async () => {
    const dd = path.join(dir, 'dd');
    const first = await startCli(['--port', '0', '--market', 'synthetic', '--data-dir', dd]);
    procs.push(first);
    const before = readFileSync(readdirSync(dd).map((n) => path.join(dd, n)).find((f) => /journal-\d+\.jsonl$/.test(f)) ?? '', 'utf8');
    const second = runCli(['exchange', '--port', '0', '--data-dir', dd]);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    const pid = first.child.pid ?? 0;
    expect(second.stderr).toMatch(
      new RegExp(`^perpkit exchange: data directory ${dd}: in use by another exchange \\(pid ${pid} on [^ ]+, since [^)]+\\): .*stop that exchange or give this one a --data-dir of its own \\(if no such exchange runs, remove ${dd}/exchange\\.lock\\)\\n$`),
    );
    // The second one wrote nothing into the journal of the first.
    const journal = readdirSync(dd).find((n) => /^journal-\d+\.jsonl$/.test(n)) ?? '';
    expect(readFileSync(path.join(dd, journal), 'utf8').startsWith(before)).toBe(true);
    expect((await fetch(`${first.url}/v1/public/market/symbols`)).status).toBe(200);

    // A graceful stop gives the lock up: the next start needs nothing removed.
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(existsSync(path.join(dd, 'exchange.lock'))).toBe(false);
    const again = await startCli(['--port', '0', '--data-dir', dd]);
    procs.push(again);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 60000);

  it('the lock of an exchange killed with SIGKILL is taken over: the restart starts', async () => {
    await killedWithJournal(dir, procs);
    expect(existsSync(path.join(dir, 'exchange.lock'))).toBe(true);
    const p = await startCli(['--port', '0', '--data-dir', dir]);
    procs.push(p);
    expect(JSON.parse(readFileSync(path.join(dir, 'exchange.lock'), 'utf8'))).toMatchObject({ pid: p.child.pid });
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  }, 60000);

  it('a start that cannot listen (port in use) writes nothing into the data directory', async () => {
    // A journal tail after the last snapshot: the failed start used to replay it and snapshot it.
    await killedWithJournal(dir, procs);
    rmSync(path.join(dir, 'exchange.lock'), { force: true });
    const before = dirState(dir);
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    // A configured user the journal does not hold yet: creating it is a command, after the port.
    const cfg = `${dir}.yaml`;
    writeFileSync(cfg, 'users:\n  - { username: alice, password: "pw-alice-1", balance: "1000" }\n');
    try {
      const r = runCli(['exchange', '--config', cfg, '--port', String(port), '--data-dir', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/perpkit exchange: cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE/);
      // One line (the hint was a second one), after the log's JSON lines.
      expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('{'))).toEqual([expect.stringMatching(new RegExp(`^perpkit exchange: cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE.*; another process uses port ${port}: pick another with --port <n>, or --port 0 for a free one \\(the listening line prints it\\)$`))]);
      expect(dirState(dir)).toEqual(before);
      // A new data directory: the marker was written before the port was tried.
      const fresh = `${dir}-fresh`;
      const again = runCli(['exchange', '--config', cfg, '--port', String(port), '--data-dir', fresh]);
      expect(again.code).toBe(1);
      expect(existsSync(fresh) ? readdirSync(fresh) : []).toEqual([]);
      rmSync(fresh, { recursive: true, force: true });
    } finally {
      rmSync(cfg, { force: true });
    }
  }, 60000);

  it('a damaged journal: one line naming the file and line, no stack, exit 1 (as a damaged marker), nothing written', async () => {
    await killedWithJournal(dir, procs);
    const name = readdirSync(dir).find((n) => /^journal-\d+\.jsonl$/.test(n)) ?? '';
    const file = path.join(dir, name);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.length).toBeGreaterThan(3);
    // Line 2 repeats line 1: what two exchanges appending to one journal leave behind.
    writeFileSync(file, [lines[0], lines[0], ...lines.slice(1)].join('\n'));
    const before = dirState(dir);
    // Logs at error only: the lock taken over is a warning, not the message.
    const r = runCli(['exchange', '--port', '0', '--data-dir', dir], { PERPKIT_LOG_LEVEL: 'error' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `perpkit exchange: data directory ${dir}: journal ${file} is corrupt at line 2: expected seq 2, found seq 1. The exchange will not start from a damaged journal; move the data directory aside (or restore it) and start again\n`,
    );
    const after = dirState(dir);
    // The lock of the SIGKILLed one was taken over and given up again; nothing else changed.
    delete before['exchange.lock'];
    expect(after).toEqual(before);
  }, 60000);
});
