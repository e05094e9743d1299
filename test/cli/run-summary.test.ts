/**
 * The line `perpkit run` prints on stderr after a stop that finished (exit 0): what went wrong
 * while the bot ran. A bot that stopped trading (REDUCING after a loss limit, HALTED by the kill
 * switch) says so there, with the reason, besides the counts.
 */
import { spawn } from 'node:child_process';
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

it('a bot that ends HALTED says so, with the reason, in the during-the-run line (exit 0)', async () => {
  const u = await ex.createUser({ balance: '100000' });
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-summary-'));
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01' } }],
      killSwitch: true,
      http: { port },
      logging: { level: 'silent' },
    }),
  );
  const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const end = Date.now() + 20_000;
  for (;;) {
    const h = await request(`http://127.0.0.1:${port}/healthz`).then(
      async (r) => (await r.body.json()) as { phase?: string; state?: string },
      () => undefined,
    );
    if (h?.phase === 'running' && h.state === 'HALTED') break;
    if (Date.now() > end) throw new Error(`the bot did not run HALTED within 20 s; stderr: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(stderr).toMatch(/^perpkit run: during the run: (.*, )?trading ended HALTED \(kill switch set in the config\) \(the log has each\)$/m);
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
