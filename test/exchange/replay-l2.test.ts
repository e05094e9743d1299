/**
 * The local exchange's replay mode with the L2 fill model (`--fill-book l2`), over loopback HTTP:
 * the same TapeReplayer code as a backtest's `fill.book: l2`. A user's resting bid waits behind
 * the recorded queue; a user's crossing order walks the recorded levels; the journal holds the
 * tape's commands around the user's, so replaying it gives the same state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PerpClient } from '../../src/client';
import { ReplayService } from '../../src/exchange/market/replay-service';
import { ExchangeCore } from '../../src/exchange/service/exchange-core';
import type { CommandLog } from '../../src/exchange/service/journal';
import type { JournalEntry } from '../../src/exchange/service/commands';
import { DEFAULT_CONFIG } from '../../src/exchange/service/config';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { startTestExchange, TestClock, type TestExchange } from '../helpers/exchange';

const T0 = 1_723_161_600_000;
const S = 'BTCUSDT';

function recording(dir: string): string {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === S)!.spec;
  const header: RecordingHeader = { type: 'header', format: 'perpkit-recording', version: 2, source: 'import:test', startTime: T0, symbols: [spec], part: 0 };
  const ev: RecordedEvent[] = [
    { t: T0, k: 'mark', s: S, p: '60000.2', i: '60000.2', r: '0', n: T0 + 8 * 3_600_000 },
    { t: T0 + 1, k: 'snapshot', s: S, u: 10, b: [['60000.0', '1.000'], ['59999.9', '2.000']], a: [['60000.5', '0.300'], ['60000.6', '0.500'], ['60000.7', '2.000']] },
    { t: T0 + 2, k: 'quote', s: S, bp: '60000.0', bq: '1.000', ap: '60000.5', aq: '0.300', u: 10 },
    // Step 3: the user's orders go in here (see the barrier).
    { t: T0 + 3, k: 'mark', s: S, p: '60000.2', i: '60000.2', r: '0', n: T0 + 8 * 3_600_000 },
    // 0.6 sold at 60000.0: the user's bid is behind 1.000 (risk-averse): not reached.
    { t: T0 + 4, k: 'trade', s: S, id: '1', p: '60000.0', q: '0.600', side: 'SELL' },
    // 0.5 more: 0.1 past the queue.
    { t: T0 + 5, k: 'trade', s: S, id: '2', p: '60000.0', q: '0.500', side: 'SELL' },
  ];
  const file = path.join(dir, 'rec.jsonl.gz');
  writeFileSync(file, gzipSync([header, ...ev].map((l) => JSON.stringify(l)).join('\n') + '\n'));
  return file;
}

/** Replays the whole recording (lock-step), then stops the replay. */
async function replayToEnd(replay: ReplayService): Promise<void> {
  await replay.init();
  replay.start();
  const deadline = Date.now() + 20_000;
  while (!replay.finished && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await replay.stop();
}

describe('local exchange replay with the L2 fill model', () => {
  let dir: string;
  const running: TestExchange[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-replay-l2-'));
  });
  afterEach(async () => {
    for (const ex of running.splice(0)) await ex.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Replays the recording in lock step on a frozen clock through the L2 model, running `atStep3`
   * (the user's orders) at the third barrier; the replay has run to its end when it resolves.
   */
  async function replayWithOrders(atStep3: (client: PerpClient) => Promise<unknown>): Promise<{ ex: TestExchange; client: PerpClient; userId: string; replay: ReplayService }> {
    const file = recording(dir);
    const clock = new TestClock();
    clock.freeze(T0);
    const ex = await startTestExchange({ auth: { accessTokenTtlMs: 24 * 3600_000 } }, { clock });
    running.push(ex);
    const user = await ex.createUser({ balance: '100000' });
    const client = new PerpClient({ baseUrl: ex.url, clock });
    await client.login(user.username, user.password);
    let step = 0;
    let failure: unknown;
    const replay = new ReplayService({
      core: ex.server.core,
      files: [file],
      speed: 'max',
      fill: { book: 'l2', queue: { model: 'risk-averse' } },
      lockStep: {
        before: (x) => clock.freeze(x.t),
        barrier: async () => {
          if (++step !== 3) return;
          try {
            await atStep3(client);
          } catch (e) {
            failure = e;
          }
        },
      },
    });
    await replayToEnd(replay);
    expect(failure).toBeUndefined();
    return { ex, client, userId: user.userId, replay };
  }

  it('queues a resting bid behind the recorded level, walks a crossing buy through the recorded asks, ', async () => {
    const { ex, userId, replay } = await replayWithOrders(async (client) => {
      await client.orders.placeOrder({ symbol: S, type: 'LIMIT', side: 'BUY', price: '60000.0', quantity: '0.200', timeInForce: 'GTC', clientOrderId: 'rest' });
      await client.orders.placeOrder({ symbol: S, type: 'LIMIT', side: 'BUY', price: '60000.6', quantity: '0.600', timeInForce: 'IOC', clientOrderId: 'take' });
    });
    expect(replay.finished).toBe(true);

    const engine = ex.server.core.engine;
    const order = (cid: string): { executedQty: string; status: string } => engine.queryOrder(userId, { symbol: S, clientOrderId: cid });
    expect(order('take')).toMatchObject({ executedQty: '0.6', status: 'FILLED' });
    const fills = engine.tradeHistory(userId, { symbol: S }).list.map((t) => [t.price, t.quantity]).reverse();
    expect(fills).toEqual([['60000.5', '0.3'], ['60000.6', '0.3'], ['60000', '0.1']]);
    expect(order('rest')).toMatchObject({ executedQty: '0.1', status: 'PARTIALLY_FILLED' });
    expect(replay.stats?.l2).toMatchObject({ queue: 'risk-averse', snapshots: 1, queueHeld: 1, atPriceFills: 1, takers: 1, levelsPlaced: 1 });
    // The deeper level the crossing order walked is out of the book again.
    expect(engine.depth(S, 5).asks.map((l) => l[0])).not.toContain('60000.6');

  });

  it("journals the tape's levels around the user's order, so the journal replays to the same state", async () => {
    const file = recording(dir);
    const entries: JournalEntry[] = [];
    const log: CommandLog = { replay: () => entries, append: (e) => void entries.push(e), close: () => Promise.resolve() };
    const config = DEFAULT_CONFIG;
    const clock = new TestClock();
    clock.freeze(T0);
    const core = new ExchangeCore({ config, wallClock: clock, log });
    await core.execute({ k: 'createUser', userId: 'u1', username: 'u1', passwordHash: 'x', balance: '100000', positionMode: 'ONE_WAY' });
    let step = 0;
    const replay = new ReplayService({
      core,
      files: [file],
      speed: 'max',
      fill: { book: 'l2', queue: { model: 'risk-averse' } },
      lockStep: {
        before: (x) => clock.freeze(x.t),
        barrier: async () => {
          if (++step !== 3) return;
          await core.execute({ k: 'placeOrder', userId: 'u1', input: { symbol: S, type: 'LIMIT', side: 'BUY', price: '60000.6', quantity: '0.600', timeInForce: 'IOC', clientOrderId: 'take' } });
        },
      },
    });
    await replayToEnd(replay);
    const kinds = entries.map((e) => (e.cmd.k === 'placeOrder' ? `place:${e.cmd.input.clientOrderId ?? ''}` : e.cmd.k));
    const take = kinds.indexOf('place:take');
    // The deeper level went on the log before the user's order and came off after it.
    expect(kinds.slice(take - 1, take + 2)).toEqual(['place:tape-l-1', 'place:take', 'cancelOrder']);
    // As a restart does: the engine clock starts before the first journaled command.
    const again = new ExchangeCore({ config, wallClock: clock, log, startTime: T0 });
    await again.recover();
    const q = (c: ExchangeCore): unknown => c.engine.queryOrder('u1', { symbol: S, clientOrderId: 'take' });
    expect(q(again)).toEqual(q(core));
    expect(again.engine.tradeHistory('u1', { symbol: S }).list).toEqual(core.engine.tradeHistory('u1', { symbol: S }).list);
  });

  it('moves the last price on every recorded trade: a stop on last price (CONTRACT_PRICE) triggers, and public trades show the market', async () => {
    // Sells 0.1 once the last price is 60000.0 or lower: the recorded sales reach no order of the user's.
    const { ex, client, userId } = await replayWithOrders((c) => c.orders.placeConditionOrder({ symbol: S, type: 'STOP_MARKET', side: 'SELL', quantity: '0.100', stopPrice: '60000.0', workingType: 'CONTRACT_PRICE', clientOrderId: 'stop' }));
    const engine = ex.server.core.engine;
    expect(engine.marketState(S).lastPrice).toBe('60000');
    const stop = engine.conditionHistory(userId, { symbol: S }).list.find((c) => c.clientOrderId === 'stop');
    expect(stop?.conditionStatus).toBe('TRIGGERED');
    // The recorded trades are the market's public trades, as the top model's re-enactment shows them.
    const trades = (await client.market.getMarketTrades({ symbol: S, limit: 10 })).list;
    expect(trades.filter((t) => t.price === '60000').map((t) => t.quantity)).toEqual(expect.arrayContaining(['0.6', '0.5']));
  });

  it('refuses --queue without --fill-book l2, and an unknown queue model, naming the known ones', async () => {
    const { exchangeConfigFromArgs } = await import('../../src/cli/exchange');
    const rec = recording(dir);
    expect(() => exchangeConfigFromArgs(['--market', `replay:${rec}`, '--queue', 'none'])).toThrow(/--queue needs --fill-book l2/);
    expect(() => exchangeConfigFromArgs(['--market', `replay:${rec}`, '--fill-book', 'l2', '--queue', 'fifo'])).toThrow(/none, risk-averse, probabilistic, got 'fifo'/);
    expect(() => exchangeConfigFromArgs(['--fill-book', 'l2'])).toThrow(/applies to --market replay/);
  });

  it('refuses a flag for a market it will not run (nothing ignored without a word), judged on the config file\'s market too', async () => {
    const { exchangeConfigFromArgs } = await import('../../src/cli/exchange');
    const rec = recording(dir);
    expect(() => exchangeConfigFromArgs(['--replay-speed', '10'])).toThrow('--replay-speed applies to --market replay:<file> only (the market is off)');
    expect(() => exchangeConfigFromArgs(['--market', 'synthetic', '--replay-speed', '5'])).toThrow('--replay-speed applies to --market replay:<file> only (the market is synthetic)');
    expect(() => exchangeConfigFromArgs(['--market', `replay:${rec}`, '--seed', '3'])).toThrow(`--seed applies to --market synthetic only (the market is replay:${rec})`);
    expect(exchangeConfigFromArgs(['--market', 'synthetic', '--seed', '3'])).toMatchObject({ market: 'synthetic', seed: 3 });
    // The market of a config file counts as the flag's would.
    const file = path.join(dir, 'replay.yaml');
    writeFileSync(file, `market: replay:${rec}\n`);
    expect(exchangeConfigFromArgs(['--config', file, '--fill-book', 'l2', '--replay-speed', 'max'])).toMatchObject({ market: `replay:${rec}` });
  });
});
