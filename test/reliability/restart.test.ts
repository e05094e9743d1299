/**
 * Matrix row "bot killed (SIGKILL) mid-burst and restarted": the daemon (`perpkit run`, the
 * market maker) quotes while the mark moves every 25 ms and another user takes its quotes; it is
 * killed with SIGKILL in the middle of that, restarted on the same account, and must adopt the
 * venue's orders and position: no double open (at most one bid and one ask), no duplicate
 * clientOrderIds, the position unchanged by the restart itself.
 *
 * The row "exchange killed (SIGKILL) under load" is test/exchange/service/kill.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, ROOT } from '../cli/exchange-proc';
import type { TestExchange } from '../helpers/exchange';
import { botConfigYaml } from './support/bot-config';
import { account, recordFigures, sleep, startReliabilityExchange, until, venueOrders, type Account } from './support/world';

jest.setTimeout(120_000);

/** ensureBuilt looks at src/ only; the daemon also loads the compiled strategies. */
function ensureStrategiesBuilt(): void {
  const src = statSync(path.join(ROOT, 'strategies', 'market-maker', 'index.ts')).mtimeMs;
  let out = 0;
  try {
    out = statSync(path.join(ROOT, 'dist', 'strategies', 'market-maker', 'index.js')).mtimeMs;
  } catch {
    out = 0;
  }
  if (out >= src) return;
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
}

interface BotProc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startBotProc(configFile: string, password: string): BotProc {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'run', configFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RELIABILITY_BOT_PASSWORD: password } });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => out, exited };
}

describe('reliability: bot process killed with SIGKILL mid-burst', () => {
  let ex: TestExchange;
  let dir: string;
  const procs: BotProc[] = [];

  beforeAll(async () => {
    ensureBuilt();
    ensureStrategiesBuilt();
    ex = await startReliabilityExchange();
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-rel-'));
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await ex.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (): Record<string, string> => ({ 'x-admin-token': ex.adminToken });

  async function mmOpen(a: Account): Promise<{ bids: number; asks: number; cids: string[] }> {
    const list = (await a.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).list.filter((o) => o.clientOrderId.startsWith('mm-'));
    return { bids: list.filter((o) => o.side === 'BUY').length, asks: list.filter((o) => o.side === 'SELL').length, cids: list.map((o) => o.clientOrderId).sort() };
  }

  it('restarted, the bot adopts the venue orders and position: no double open', async () => {
    const a = await account(ex);
    const taker = await account(ex, { balance: '100000000' });
    const configFile = path.join(dir, 'bot.yaml');
    writeFileSync(configFile, botConfigYaml({ baseUrl: ex.url, username: a.username, stateFile: path.join(dir, 'state.json') }));

    const first = startBotProc(configFile, a.password);
    procs.push(first);
    await until(async () => (await mmOpen(a)).bids === 1 && (await mmOpen(a)).asks === 1, () => `the daemon quotes both sides; output: ${first.output().slice(-2000)}`, 60000);

    // The burst: the mark moves every 25 ms (amends), and the taker hits the bid now and then (fills, new quotes).
    let stop = false;
    let mark = 50000;
    const burst = (async () => {
      for (let i = 0; !stop; i++) {
        mark += i % 2 === 0 ? 3 : -2;
        await ex.call('POST', '/v1/admin/market/mark-price', { headers: admin(), body: { symbol: 'BTCUSDT', markPrice: mark.toFixed(1) } });
        if (i % 10 === 5) {
          const bidOrder = (await a.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).list.find((o) => o.side === 'BUY');
          if (bidOrder) await taker.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: bidOrder.price, quantity: '0.01', timeInForce: 'IOC' });
        }
        await sleep(25);
      }
    })();
    await sleep(1500);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect((await first.exited).signal).toBe('SIGKILL');
    stop = true;
    await burst;
    const atKill = await mmOpen(a);
    const positionAtKill = (await a.client.positions.getPositions({ symbol: 'BTCUSDT' })).positions.map((p) => p.quantity);

    const second = startBotProc(configFile, a.password);
    procs.push(second);
    const restartedAt = Date.now();
    // Up (the killed bot's quotes alone would pass the check below), then time to adopt, re-quote and settle.
    await until(async () => /"msg":"bot started"/.test(second.output()), () => `the restarted bot starts; output: ${second.output().slice(-2000)}`, 60000);
    await until(async () => {
      const o = await mmOpen(a);
      return o.bids <= 1 && o.asks <= 1 && o.bids + o.asks >= 1;
    }, 'the restarted bot quotes', 60000);
    let maxBids = 0;
    let maxAsks = 0;
    for (let i = 0; i < 15; i++) {
      const o = await mmOpen(a);
      maxBids = Math.max(maxBids, o.bids);
      maxAsks = Math.max(maxAsks, o.asks);
      await sleep(200);
    }
    const after = await mmOpen(a);
    const orders = await venueOrders(a.client);
    const counts = new Map<string, number>();
    for (const o of orders) counts.set(o.clientOrderId, (counts.get(o.clientOrderId) ?? 0) + 1);
    const duplicates = [...counts].filter(([, n]) => n > 1).map(([c]) => c);
    const positionAfter = (await a.client.positions.getPositions({ symbol: 'BTCUSDT' })).positions.map((p) => p.quantity);
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    // The killed bot's state-file lock was taken over, and said (warn: the last run did not stop cleanly).
    expect(second.output()).toContain(`the state file's lock was left by a bot that is no longer running (pid ${first.child.pid})`);
    expect(existsSync(path.join(dir, 'state.json.lock'))).toBe(false);
    expect(duplicates).toEqual([]);
    expect(maxBids).toBeLessThanOrEqual(1);
    expect(maxAsks).toBeLessThanOrEqual(1);
    // Nobody traded against the bot after the kill: the restart alone must not change the position.
    expect(positionAfter).toEqual(positionAtKill);
    recordFigures('restart', 'botSigkill', {
      openAtKill: atKill.cids.length,
      adopted: atKill.cids.filter((c) => after.cids.includes(c) || orders.some((o) => o.clientOrderId === c && o.status !== 'NEW')).length,
      maxBidsAfterRestart: maxBids,
      maxAsksAfterRestart: maxAsks,
      duplicates: duplicates.length,
      positionAtKill,
      positionAfter,
      restartToQuotesMs: Date.now() - restartedAt,
      downMs: restartedAt - killedAt,
    });
  });
  it('a second bot on the same state file is refused while the first runs (exit 2), and leaves its orders alone', async () => {
    const a = await account(ex);
    const configFile = path.join(dir, 'bot-twice.yaml');
    const stateFile = path.join(dir, 'state-twice.json');
    writeFileSync(configFile, botConfigYaml({ baseUrl: ex.url, username: a.username, stateFile }));
    const first = startBotProc(configFile, a.password);
    procs.push(first);
    await until(async () => (await mmOpen(a)).bids === 1 && (await mmOpen(a)).asks === 1, () => `the daemon quotes both sides; output: ${first.output().slice(-2000)}`, 60000);
    const quotes = (await mmOpen(a)).cids;

    const second = startBotProc(configFile, a.password);
    procs.push(second);
    expect(await second.exited).toEqual({ code: 2, signal: null });
    expect(second.output()).toContain(`${stateFile}: in use by another bot (pid ${first.child.pid} on `);
    // It stopped before the venue's orders were touched: the first bot's quotes are its own still.
    expect(first.child.exitCode).toBeNull();
    expect((await mmOpen(a)).cids.filter((c) => quotes.includes(c)).length).toBeGreaterThan(0);
    expect(existsSync(`${stateFile}.lock`)).toBe(true);

    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    // A clean stop gives the lock up: the next start takes it without a word about it.
    expect(existsSync(`${stateFile}.lock`)).toBe(false);
  });
});
