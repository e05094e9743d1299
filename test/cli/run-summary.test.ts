/**
 * What `perpkit run` says and exits with after a stop that finished: the line of what went wrong
 * while the bot ran. A bot that stopped trading (REDUCING after a loss limit, HALTED by the kill
 * switch) says so there, with the reason, besides the counts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { request } from 'undici';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import type { BotDaemon } from '../../src/runtime/daemon';
import { runOutcome, runTroubles } from '../../src/cli/run';
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

/** `perpkit run` of a config (JSON is YAML) for a new user of the suite's exchange, as a process. */
async function spawnRun(config: (username: string) => Record<string, unknown>): Promise<{ child: ChildProcess; stderr: () => string; exited: Promise<number | null>; file: string }> {
  const u = await ex.createUser({ balance: '100000' });
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-summary-'));
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(file, JSON.stringify({ venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } }, logging: { level: 'silent' }, ...config(u.username) }));
  const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { child, stderr: () => stderr, exited, file };
}

it('a bot that ends HALTED says so, with the reason, in the during-the-run line (exit 0)', async () => {
  const port = await freePort();
  const { child, stderr, exited } = await spawnRun(() => ({ strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01' } }], killSwitch: true, http: { port } }));
  const end = Date.now() + 20_000;
  for (;;) {
    const h = await request(`http://127.0.0.1:${port}/healthz`).then(
      async (r) => (await r.body.json()) as { phase?: string; state?: string },
      () => undefined,
    );
    if (h?.phase === 'running' && h.state === 'HALTED') break;
    if (Date.now() > end) throw new Error(`the bot did not run HALTED within 20 s; stderr: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(stderr()).toMatch(/^perpkit run: during the run: (.*, )?trading ended HALTED \(kill switch set in the config\) \(the log has each\)$/m);
}, 40_000);

it('amends that came after their order had ended are counted apart from the venue rejections', () => {
  const stats = { events: 0, intents: 0, denials: 0, rejections: 7, lateAmends: 5, fills: 0, reconnects: 0, reconciles: 0, errors: 0, pipelineErrors: 0 };
  const daemon = { bot: { stats, strategyHealth: () => [], risk: { state: 'ACTIVE', reason: '' } } } as unknown as BotDaemon;
  expect(runTroubles(daemon)).toBe('2 venue rejection(s), 5 amend(s) that came after their order had ended');
  stats.rejections = 5;
  expect(runTroubles(daemon)).toBe('5 amend(s) that came after their order had ended');
});

it('orders rejected on arrival and orders expired with nothing filled are said, each with what it means', () => {
  const stats = { events: 0, intents: 0, denials: 0, rejections: 0, lateAmends: 0, ordersRejected: 2, ordersExpiredUnfilled: 3, fills: 0, reconnects: 0, reconciles: 0, errors: 0, pipelineErrors: 0 };
  const daemon = { bot: { stats, strategyHealth: () => [], risk: { state: 'ACTIVE', reason: '' } } } as unknown as BotDaemon;
  expect(runTroubles(daemon)).toBe('2 order(s) rejected on arrival (makerOnly that would have taken liquidity), 3 order(s) expired with nothing filled (a MARKET, IOC or FOK order that found no liquidity, or a reduce-only order with nothing left to reduce)');
});

// The bot's own pipeline threw (a bug of perpkit's): the run ended 0 (or 3 when a strategy threw
// too) though /healthz said degraded for it; perpkit backtest exits 1 for the same.
it("a run in which the bot's own pipeline threw exits 1 after a stop that finished, saying so", () => {
  const stats = { events: 0, intents: 0, denials: 0, rejections: 0, lateAmends: 0, fills: 0, reconnects: 0, reconciles: 0, errors: 2, pipelineErrors: 2 };
  const health = [{ id: 'mm', errors: 1, stopped: undefined, lastError: 'onMark: x' }];
  const daemon = { bot: { stats, strategyHealth: () => health, lastPipelineError: 'handler of markPrice: handler bug', risk: { state: 'ACTIVE', reason: '' } } } as unknown as BotDaemon;
  expect(runOutcome(daemon, 0)).toEqual({ code: 1, why: "exit 1: the bot's own pipeline threw 2 time(s) during the run (last: handler of markPrice: handler bug); a bug to report, with the log" });
  stats.pipelineErrors = 0;
  expect(runOutcome(daemon, 0).code).toBe(3);
  health[0].errors = 0;
  expect(runOutcome(daemon, 0)).toEqual({ code: 0, why: undefined });
});

// `perpkit run`'s exit code after a stop that finished: 3 when a strategy threw while the bot ran
// (the rule of `perpkit backtest`), 0 for a clean run. It used to be 0 either way.
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
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-errors-'));
  const strategyFile = path.join(dir, 'strategy.js');
  writeFileSync(
    strategyFile,
    `module.exports.default = {
  name: 't', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: () => ({ onEvent: ${onEvent} }),
};\n`,
  );
  const run = await spawnRun(() => ({ strategies: [{ id: 'bad', module: strategyFile, params: {} }], strategyErrors: { maxErrors: 1, windowMs: 60000 }, http: { port } }));
  const { child, exited } = run;
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
      if (Date.now() > end) throw new Error(`the bot did not get there within 20 s; last health ${JSON.stringify(h)}; stderr: ${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGINT');
    return { code: await exited, stderr: run.stderr() };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

it('exits 3 after SIGINT when a strategy threw during the run (stopped for it), saying so on stderr', async () => {
  const r = await runUntil(`(e) => { if (e.type === 'markPrice') throw new Error('fails on mark ' + e.mark.markPrice); return []; }`, (h) => (h.reasons ?? []).some((x) => x.startsWith('strategy bad stopped')));
  expect(r.stderr).toMatch(/^perpkit run: during the run: 1 strategy error\(s\) \(bad stopped for them\)/m);
  expect(r.stderr).toMatch(/^perpkit run: exit 3: strategies erred 1 time \(threw, or returned what the bot refuses\) during the run \(bad 1 time\(s\), stopped for them; last: onEvent\(markPrice\): fails on mark [\d.]+\)$/m);
  expect(r.code).toBe(3);
}, 40_000);

it('exits 0 after SIGINT when no strategy threw, with no exit line', async () => {
  const r = await runUntil(`() => []`, (h, marks) => h.status === 'ok' && marks >= 3);
  expect(r.stderr).not.toMatch(/exit 3/);
  expect(r.code).toBe(0);
}, 40_000);

// A symbol the venue does not list passed --check (only the venue can tell) and failed the start
// with exit 1, so systemd's RestartPreventExitStatus=2 did not apply and it restarted in vain.
// It named no line or key, as every other config error does (a user probe): now at the parameter.
it('a strategy symbol the venue does not list is a config error at start: exit 2, one line naming the config, its line and the key', async () => {
  const { stderr, exited, file } = await spawnRun(() => ({ strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSD', quantity: '0.01' } }] }));
  const code = await exited;
  expect(stderr()).toMatch(new RegExp(`^perpkit run: config error: ${file.replace(/[.]/g, '\\.')}:\\d+: strategies\\[0\\]\\.params\\.symbol: expected a symbol the venue lists \\(it lists BTCUSDT, ETHUSDT; strategy mm\\), got BTCUSD\n$`));
  expect(code).toBe(2);
}, 40_000);

// A quantity below the symbol's step passed --check and the start: every order was denied
// (counted, /healthz degraded after a minute) by a bot that otherwise ran as if all was well.
it("a strategy quantity below the symbol's minimum on the venue is a config error at start: exit 2, at the parameter, nothing placed", async () => {
  const { stderr, exited, file } = await spawnRun(() => ({ strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.0005' } }] }));
  const code = await exited;
  expect(stderr()).toMatch(new RegExp(`^perpkit run: config error: ${file.replace(/[.]/g, '\\.')}:\\d+: strategies\\[0\\]\\.params\\.quantity: expected a quantity of BTCUSDT from 0\\.001 to \\d+ in steps of 0\\.001 \\(0\\.0005 rounds down to 0: every order would be refused\\) \\(the venue's spec; strategy mm\\), got 0\\.0005\n$`));
  expect(code).toBe(2);
}, 40_000);
