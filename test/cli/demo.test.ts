/**
 * `perpkit demo` (what `npm start` runs) as a newcomer sees it: a bot trading within 15 s, a
 * status line with fills=<n>, the dashboard's URL on a line of its own (and the page there), and
 * Ctrl+C (SIGINT) stopping it within 5 s with exit code 0.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ROOT, ensureBuilt } from './exchange-proc';

beforeAll(() => ensureBuilt(), 120_000);

it('shows fills within 15 s of start and stops on SIGINT within 5 s with exit 0', async () => {
  const t0 = Date.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'demo', '--duration', '20'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let sigintAt = 0;
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) => child.on('exit', (code) => resolve({ code, ms: Date.now() - sigintAt })));

  const filled = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = out.split('\n').find((l) => /fills=([1-9]\d*)/.test(l));
      if (line) {
        clearInterval(timer);
        resolve(line);
      } else if (Date.now() - t0 > 15000) {
        clearInterval(timer);
        reject(new Error(`no fills=<n>=1+ line within 15 s\nstdout:\n${out}\nstderr:\n${err}`));
      }
    }, 50);
  });
  expect(Date.now() - t0).toBeLessThan(15000);
  expect(out.split('\n')[0]).toMatch(/Ctrl\+C to stop/);
  // The dashboard's URL on a line of its own, and the page and its data behind it.
  const dash = /^dashboard at (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
  expect(dash).not.toBeNull();
  const url = (dash as RegExpExecArray)[1];
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="app">');
  const snap = (await (await fetch(`${url}api/snapshot`)).json()) as { live: { strategies: Array<{ id: string; fills: number }> } };
  expect(snap.live.strategies[0].id).toBe('mm');
  expect(snap.live.strategies[0].fills).toBeGreaterThan(0);
  expect(filled).toMatch(/^t=\d+s fills=\d+ pos=-?[\d.]+ BTC pnl=[+-][\d.]+ USDT open=\d+ state=ACTIVE$/);

  sigintAt = Date.now();
  child.kill('SIGINT');
  const { code, ms } = await exited;
  expect(code).toBe(0);
  expect(ms).toBeLessThan(5000);
  expect(out).toMatch(/perpkit demo: stopped \(exit 0\)/);
}, 40_000);

// Its logs followed whether stderr was a terminal, its status lines are text anyway: stdout and
// stderr into one pipe or file (`npm start > demo.log 2>&1`, CI, an IDE's pane) put pino JSON lines
// among the status lines. They are text lines now wherever they go, without colour off a terminal.
it('writes its logs as text lines, one a line and without colour, into a pipe', async () => {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'demo', '--duration', '3', '--log-level', 'info'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(code).toBe(0);
  expect(out).toMatch(/perpkit demo: stopped \(exit 0\)\n$/);
  const lines = err.split('\n').filter((l) => l !== '');
  // At info there are lines for certain: the exchange's and the bot's start and stop.
  expect(lines.some((l) => / INFO \(perpkit-demo\): bot started\b/.test(l))).toBe(true);
  for (const l of lines) {
    expect(l).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(perpkit-demo\): /);
    expect(l).not.toContain('\u001b[');
  }
}, 40_000);
