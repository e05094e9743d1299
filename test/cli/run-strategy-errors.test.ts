/**
 * `perpkit run`'s exit code after a stop that finished: 3 when a strategy threw while the bot ran
 * (the rule of `perpkit backtest`), 0 for a clean run. It used to be 0 either way, the failures
 * said only in the closing line on stderr, so a script or a supervisor could not tell.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import { freePort } from '../helpers/ports';
import { ROOT, ensureBuilt } from './exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');

let ex: TestExchange;

beforeAll(async () => {
  ensureBuilt();
  ex = await startTestExchange();
}, 120_000);

afterAll(async () => {
  await ex.stop();
});

interface Health {
  phase?: string;
  status?: string;
  reasons?: string[];
}

/**
 * Runs `perpkit run` with one strategy whose `onEvent` is `onEvent`, sending it mark prices until
 * `ready` says the daemon's health (and the count of marks sent) is where to stop; then SIGINT.
 */
async function runUntil(onEvent: string, ready: (h: Health, marks: number) => boolean): Promise<{ code: number | null; stderr: string }> {
  const u = await ex.createUser({ balance: '100000' });
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-errors-'));
  writeFileSync(
    path.join(dir, 'strategy.js'),
    `module.exports.default = {
  name: 't', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: () => ({ onEvent: ${onEvent} }),
};\n`,
  );
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'bad', module: './strategy.js', params: {} }],
      strategyErrors: { maxErrors: 1, windowMs: 60000 },
      http: { port },
      logging: { level: 'silent' },
    }),
  );
  const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const health = (): Promise<Health | undefined> =>
    request(`http://127.0.0.1:${port}/healthz`).then(
      async (r) => (await r.body.json()) as Health,
      () => undefined,
    );
  try {
    const end = Date.now() + 20_000;
    let marks = 0;
    for (;;) {
      const h = await health();
      if (h?.phase === 'running' && ready(h, marks)) break;
      // A mark price for the strategy to hear, once it runs.
      if (h?.phase === 'running') {
        const r = await ex.call('POST', '/v1/admin/market/mark-price', { headers: { 'x-admin-token': ex.adminToken }, body: { symbol: 'BTCUSDT', markPrice: (50000 + (marks++ % 10)).toFixed(1) } });
        expect(r.body.code).toBe(0);
      }
      if (Date.now() > end) throw new Error(`the bot did not get there within 20 s; last health ${JSON.stringify(h)}; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGINT');
    return { code: await exited, stderr };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

it('exits 3 after SIGINT when a strategy threw during the run (stopped for it), saying so on stderr', async () => {
  const r = await runUntil(`(e) => { if (e.type === 'markPrice') throw new Error('fails on mark ' + e.mark.markPrice); return []; }`, (h) => (h.reasons ?? []).some((x) => x.startsWith('strategy bad stopped')));
  expect(r.stderr).toMatch(/^perpkit run: during the run: 1 strategy error\(s\) \(bad stopped for them\)/m);
  expect(r.stderr).toMatch(/^perpkit run: exit 3: strategies threw 1 time\(s\) during the run \(bad 1 time\(s\), stopped for them; last: onEvent\(markPrice\): fails on mark [\d.]+\)$/m);
  expect(r.code).toBe(3);
}, 40_000);

it('exits 0 after SIGINT when no strategy threw, with no exit line', async () => {
  const r = await runUntil(`() => []`, (h, marks) => h.status === 'ok' && marks >= 3);
  expect(r.stderr).not.toMatch(/exit 3/);
  expect(r.code).toBe(0);
}, 40_000);

// A symbol the venue does not list passed --check (only the venue can tell) and failed the start
// with exit 1, so systemd's RestartPreventExitStatus=2 did not apply and it restarted in vain.
it('a strategy symbol the venue does not list is a config error at start: exit 2, one line naming the config', async () => {
  const u = await ex.createUser({ balance: '100000' });
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-symbol-'));
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSD', quantity: '0.01' } }],
      logging: { level: 'silent' },
    }),
  );
  const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect(stderr).toBe(`perpkit run: config error: ${file}: strategy mm: the venue has no symbol BTCUSD (it lists BTCUSDT, ETHUSDT)\n`);
  expect(code).toBe(2);
}, 40_000);
