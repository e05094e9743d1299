import { copyFileSync, mkdirSync, mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import type { EngineEvent } from '../../../src/exchange/engine/events';
import { Prng } from '../../../src/market-data/prng';
import type { Command, JournalEntry } from '../../../src/exchange/service/commands';
import { DEFAULT_CONFIG, type ExchangeConfig } from '../../../src/exchange/service/config';
import { openDurableCore } from '../../../src/exchange/service/durable-core';
import { ExchangeCore } from '../../../src/exchange/service/exchange-core';
import type { CommandLog } from '../../../src/exchange/service/journal';

const USERS = ['10000001', '10000002', '10000003', '10000004'];
const GENESIS = 1_700_000_000_000;

/** A seeded mix of every kind of command, many of which the engine accepts. */
function commands(seed: number, n: number, withUsers: boolean): Command[] {
  const r = new Prng(seed);
  const out: Command[] = [];
  if (withUsers) {
    USERS.forEach((userId, i) => out.push({ k: 'createUser', userId, username: `u${i}`, passwordHash: 'x', balance: '1000000', positionMode: i === 3 ? 'HEDGE' : 'ONE_WAY' }));
    out.push({ k: 'createApiKey', userId: USERS[0], apiKey: 'k1', secret: 's1', permissions: ['READ', 'TRADE'] });
    out.push({ k: 'setFavorites', userId: USERS[1], symbols: ['ETHUSDT'] });
    out.push({ k: 'setMarginMode', userId: USERS[2], input: { symbol: 'ETHUSDT', marginMode: 2 } });
  }
  let mark = { BTCUSDT: 50000, ETHUSDT: 3000 } as Record<string, number>;
  for (let i = 0; i < n; i++) {
    const userId = USERS[r.int(3)];
    const symbol = r.next() < 0.6 ? 'BTCUSDT' : 'ETHUSDT';
    const tick = symbol === 'BTCUSDT' ? 1 : 0.01;
    const px = (d: number): string => (Math.round((mark[symbol] + d) / tick) * tick).toFixed(symbol === 'BTCUSDT' ? 1 : 2);
    const side = r.next() < 0.5 ? 'BUY' : 'SELL';
    const qty = (0.001 * (1 + r.int(200))).toFixed(3);
    const x = r.next();
    if (x < 0.45) out.push({ k: 'placeOrder', userId, input: { symbol, type: 'LIMIT', side, price: px((side === 'BUY' ? -1 : 1) * r.int(40) * tick * 10 + (r.next() - 0.5) * 40 * tick), quantity: qty, clientOrderId: `c${i}` } });
    else if (x < 0.55) out.push({ k: 'placeOrder', userId, input: { symbol, type: 'MARKET', side, quantity: qty } });
    else if (x < 0.62) out.push({ k: 'cancelOrder', userId, ref: { symbol, clientOrderId: `c${i - 1 - r.int(20)}` } });
    else if (x < 0.67) out.push({ k: 'moveOrder', userId, input: { symbol, orderId: String(1 + r.int(i + 1)), price: px((r.next() - 0.5) * 100 * tick), quantity: qty } });
    else if (x < 0.74) {
      mark = { ...mark, [symbol]: mark[symbol] * (1 + (r.next() - 0.5) * 0.01) };
      out.push({ k: 'setMarkPrice', symbol, markPrice: px(0) });
    } else if (x < 0.8) out.push({ k: 'placeCondition', userId, input: { symbol, type: 'STOP_MARKET', side, stopPrice: px((side === 'BUY' ? 1 : -1) * 50 * tick * 10), quantity: qty, workingType: 'MARK_PRICE' } });
    else if (x < 0.83) out.push({ k: 'placeCondition', userId, input: { symbol, type: 'TRAILING_STOP', side, callbackRate: '1', quantity: qty } });
    else if (x < 0.86) {
      out.push({
        k: 'placeStrategy',
        userId,
        input: {
          strategyType: 'OTOCO',
          subOrderList: [
            { strategySubId: 1, symbol, type: 'LIMIT', side: 'BUY', price: px(-20 * tick), quantity: qty },
            { strategySubId: 2, symbol, type: 'LIMIT', side: 'SELL', price: px(300 * tick), quantity: qty, reduceOnly: true },
            { strategySubId: 3, symbol, type: 'STOP_MARKET', side: 'SELL', stopPrice: px(-300 * tick), quantity: qty, reduceOnly: true },
          ],
        },
      });
    } else if (x < 0.89) out.push({ k: 'setLeverage', userId, input: { symbol, leverage: 1 + r.int(50) } });
    else if (x < 0.91) out.push({ k: 'settleFunding', symbol, rate: ((r.next() - 0.5) * 0.002).toFixed(6) });
    else if (x < 0.93) out.push({ k: 'cancelAll', userId, input: { symbol } });
    else if (x < 0.95) out.push({ k: 'deposit', userId, amount: '100' });
    else if (x < 0.97) out.push({ k: 'placeOrder', userId: USERS[3], input: { symbol, type: 'LIMIT', side, positionSide: side === 'BUY' ? 'LONG' : 'SHORT', price: px(0), quantity: qty } });
    else out.push({ k: 'batchPlace', userId, inputs: [0, 1, 2].map((j) => ({ symbol, type: 'LIMIT' as const, side, price: px((side === 'BUY' ? -1 : 1) * (j + 1) * 10 * tick * 10), quantity: qty })) });
  }
  return out;
}

class RecordingLog implements CommandLog {
  readonly entries: JournalEntry[] = [];
  constructor(private readonly source: JournalEntry[] = []) {}
  replay(): Iterable<JournalEntry> {
    return this.source;
  }
  append(e: JournalEntry): Promise<void> {
    this.entries.push(structuredClone(e));
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function run(core: ExchangeCore, clock: ManualClock, cmds: Command[]): Promise<{ accepted: number; events: EngineEvent[][] }> {
  const events: EngineEvent[][] = [];
  const on = (e: EngineEvent[]): void => {
    events.push(e);
  };
  core.emitter.on('events', on);
  let accepted = 0;
  for (const c of cmds) {
    clock.advance(1 + (accepted % 7));
    try {
      await core.execute(c);
      accepted++;
    } catch {
      // refusals are part of the mix
    }
  }
  core.emitter.off('events', on);
  return { accepted, events };
}

/** Everything a client can see, plus the raw exported state. */
function observable(core: ExchangeCore): unknown {
  const e = core.engine;
  const big = { page: 1, pageSize: 100000 };
  const users = e.userIds().map((u) => ({
    u,
    asset: e.asset(u),
    open: e.currentOrders(u, { limit: 1000 }),
    orders: e.orderHistory(u, big),
    trades: e.tradeHistory(u, big),
    positions: e.positions(u),
    positionHistory: e.positionHistory(u, big),
    conditions: e.currentConditions(u, undefined),
    conditionHistory: e.conditionHistory(u, big),
    strategies: e.orderHistory(u, big).list.filter((o) => o.strategyId !== undefined).map((o) => e.strategy(u, o.strategyId as string)),
    changes: e.accountChanges(u, big),
  }));
  // depth's lastUpdateTime is the clock now, which a refused (unjournaled) command also moves.
  const symbols = ['BTCUSDT', 'ETHUSDT'].map((s) => ({ depth: { ...e.depth(s, 1000), lastUpdateTime: 0 }, market: e.marketState(s) }));
  return { audit: e.audit(), users, symbols, accounts: [...core.accounts.users.values()], keys: [...core.accounts.apiKeys.values()], fav: [...core.accounts.favorites], state: e.exportState() };
}

describe('snapshots', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-snap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('snapshot + journal tail restores exactly the state of replaying the whole journal', async () => {
    const config: ExchangeConfig = { ...DEFAULT_CONFIG, dataDir: dir, snapshotEvery: 97, fsync: false };
    const cmds = commands(42, 1500, true);

    // The live run, journaled to disk with snapshots, and recorded for a full replay.
    const clock = new ManualClock(GENESIS);
    const live = await openDurableCore(config, clock);
    await live.core.recover();
    const main = await run(live.core, clock, cmds);
    expect(main.accepted).toBeGreaterThan(700);
    // A journal tail after the last snapshot, whatever the timing: a snapshot still being written
    // defers the next, so under load the last one can land on the very last command. Deposits are
    // always accepted, and fewer than snapshotEvery of them start no new snapshot.
    await live.snapshotSettled();
    const lastSnapshot = Math.max(0, ...readdirSync(dir).map((f) => /^snapshot-(\d+)\.json$/.exec(f)).map((m) => (m ? Number(m[1]) : 0)));
    const gap = main.accepted - lastSnapshot;
    const extra: Command[] = Array.from({ length: gap > 0 ? 0 : 3 }, () => ({ k: 'deposit', userId: USERS[0], amount: '1' }));
    const accepted = main.accepted + (await run(live.core, clock, extra)).accepted;
    const statuses = new Set(USERS.flatMap((u) => live.core.engine.orderHistory(u, { pageSize: 100000 }).list.map((o) => o.status)));
    expect([...statuses]).toEqual(expect.arrayContaining(['FILLED', 'CANCELED', 'NEW']));
    const liveView = JSON.stringify(observable(live.core));

    // Full replay: the same commands into a fresh in-memory core give the journal to replay.
    const wall = new ManualClock(GENESIS);
    const recorded = new RecordingLog();
    const full = new ExchangeCore({ config: { ...config, dataDir: undefined }, wallClock: wall, startTime: GENESIS, log: recorded });
    expect((await run(full, wall, cmds)).accepted + (await run(full, wall, extra)).accepted).toBe(accepted);
    const replayClock = new ManualClock(GENESIS);
    const replayer = new ExchangeCore({ config: { ...config, dataDir: undefined }, wallClock: replayClock, startTime: GENESIS, log: new RecordingLog(recorded.entries) });
    expect(await replayer.recover()).toBe(accepted);

    // Snapshot + tail from the data directory (close() would add a final snapshot: a crash
    // does not, so restore from what the periodic snapshots left while the core still runs).
    // From a copy, as a crash leaves it: the live core holds the directory's lock.
    await live.snapshotSettled();
    const snaps = readdirSync(dir).filter((f) => f.startsWith('snapshot-'));
    expect(snaps).toHaveLength(1);
    const crashed = path.join(dir, 'crashed');
    mkdirSync(crashed);
    for (const f of readdirSync(dir)) if (f !== 'crashed') copyFileSync(path.join(dir, f), path.join(crashed, f));
    const restoredClock = new ManualClock(GENESIS);
    const restored = await openDurableCore({ ...config, dataDir: crashed, snapshotEvery: 0 }, restoredClock);
    expect(restored.stats.snapshotSeq).toBeGreaterThan(0);
    const tail = await restored.core.recover();
    expect(tail).toBeGreaterThan(0);
    expect(tail).toBeLessThan(accepted);
    expect(restored.core.appliedCount).toBe(accepted);

    const replayView = JSON.stringify(observable(replayer));
    expect(JSON.stringify(observable(restored.core))).toBe(replayView);
    expect(liveView).toBe(replayView);

    // The same further commands at the same times give the same events on both.
    const more = commands(7, 400, false);
    restoredClock.set(GENESIS + 50_000_000);
    replayClock.set(GENESIS + 50_000_000);
    const a = await run(restored.core, restoredClock, more);
    const b = await run(replayer, replayClock, more);
    expect(a.accepted).toBeGreaterThan(100);
    expect(a.accepted).toBe(b.accepted);
    expect(JSON.stringify(a.events)).toBe(JSON.stringify(b.events));
    expect(JSON.stringify(observable(restored.core))).toBe(JSON.stringify(observable(replayer)));
    await restored.core.close();
    await live.core.close();
  });

  it('a restart after a clean stop continues from the final snapshot without replay', async () => {
    const config: ExchangeConfig = { ...DEFAULT_CONFIG, dataDir: dir, snapshotEvery: 0 };
    const clock = new ManualClock(GENESIS);
    const a = await openDurableCore(config, clock);
    await a.core.recover();
    const { accepted } = await run(a.core, clock, commands(3, 200, true));
    const view = JSON.stringify(observable(a.core));
    await a.core.close();
    const b = await openDurableCore(config, new ManualClock(GENESIS));
    expect(await b.core.recover()).toBe(0);
    expect(b.stats.snapshotSeq).toBe(accepted);
    expect(JSON.stringify(observable(b.core))).toBe(view);
    await b.core.close();
  });

  it('the snapshot carries every field of the engine model (a new field needs snapshot.ts)', async () => {
    const clock = new ManualClock(GENESIS);
    const core = new ExchangeCore({ config: DEFAULT_CONFIG, wallClock: clock, startTime: GENESIS });
    await run(core, clock, commands(5, 400, true));
    const s = core.engine.exportState();
    const known = {
      account: ['userId', 'seq', 'positionMode', 'wallet', 'frozen', 'transferIn', 'settings', 'positions', 'openOrders', 'reducingOpen', 'liveClientIds', 'lastClientIds', 'orders', 'conditions', 'strategies', 'trades', 'changes', 'positionHistory'],
    };
    // Accounts are written field by field: compare with the live model's keys.
    const internals = core.engine as unknown as { s: { accounts: Map<string, object> } };
    const liveKeys = Object.keys([...internals.s.accounts.values()][1]).filter((k) => k !== 'openCountBySymbol').sort();
    expect(liveKeys).toEqual([...known.account].sort());
    expect(s.orders.length).toBeGreaterThan(0);
    // Orders, conditions, strategies and positions are spread: any Dec field must be listed in snapshot.ts.
    const isDecLike = (v: unknown): boolean => typeof v === 'object' && v !== null && 'toFixed' in v;
    for (const o of s.orders) for (const [k, v] of Object.entries(o)) expect([k, isDecLike(v)]).toEqual([k, false]);
    for (const c of s.conditions) for (const [k, v] of Object.entries(c)) expect([k, isDecLike(v)]).toEqual([k, false]);
    for (const a of s.accounts) for (const [, p] of a.positions) for (const [k, v] of Object.entries(p)) expect([k, isDecLike(v)]).toEqual([k, false]);
  });

  it('a liquidation after a trade is part of the order\'s command: the journal replays it to the same state, with no command of its own', async () => {
    const config: ExchangeConfig = { ...DEFAULT_CONFIG, dataDir: undefined };
    const [maker, thin] = USERS;
    const cmds: Command[] = [
      { k: 'createUser', userId: maker, username: 'maker', passwordHash: 'x', balance: '1000000', positionMode: 'ONE_WAY' },
      { k: 'createUser', userId: thin, username: 'thin', passwordHash: 'x', balance: '2600', positionMode: 'ONE_WAY' },
      { k: 'placeOrder', userId: maker, input: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49900', quantity: '0.1' } },
      { k: 'placeOrder', userId: maker, input: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.9' } },
      // Short 1 at 45 490 against mark 50 000 on 2 600: liquidated in this command.
      { k: 'placeOrder', userId: thin, input: { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' } },
    ];
    const wall = new ManualClock(GENESIS);
    const recorded = new RecordingLog();
    const live = new ExchangeCore({ config, wallClock: wall, startTime: GENESIS, log: recorded });
    const { accepted, events } = await run(live, wall, cmds);
    expect(accepted).toBe(cmds.length);
    expect(recorded.entries.map((e) => e.cmd.k)).toEqual(cmds.map((c) => c.k));
    expect(events.flat().some((e) => e.kind === 'liquidation' && e.userId === thin)).toBe(true);
    expect(live.engine.positions(thin)).toEqual([]);
    const replayer = new ExchangeCore({ config, wallClock: new ManualClock(GENESIS), startTime: GENESIS, log: new RecordingLog(recorded.entries) });
    expect(await replayer.recover()).toBe(cmds.length);
    expect(replayer.engine.positions(thin)).toEqual([]);
    expect(JSON.stringify(observable(replayer))).toBe(JSON.stringify(observable(live)));
  });
});
