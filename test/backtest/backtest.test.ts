import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { BacktestConfigError, loadBacktestConfig, parseBacktestConfig } from '../../src/backtest/backtest/config';
import { cachePathFor } from '../../src/backtest/backtest/cache-format';
import { reportJson } from '../../src/backtest/report/report';
import { reportNotices } from '../../src/backtest/report/html';
import { durationText } from '../../src/backtest/report/ratios';
import { usd } from '../../src/backtest/report/format';
import { Dec } from '../../src/core/decimal';
import { MM, TARGETS, recording, writeConfig } from './fixtures';

let dir = '';
/** A recording on which the market maker ends holding inventory beside closed round trips. */
let openDir = '';
beforeAll(async () => {
  ({ dir } = await recording(8, 3));
  ({ dir: openDir } = await recording(8, 4));
});

describe('backtest', () => {
  test('the same config and data give byte-identical report.json, from the cache and from the JSON lines', async () => {
    const cfg = loadBacktestConfig(writeConfig(dir, 'a.yaml', { latency: { placeMs: 0 } }));
    const a = await backtest(cfg, { cache: false });
    const b = await backtest(cfg, { cache: false });
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(existsSync(cachePathFor(cfg.data.files[0]))).toBe(true);
    const d = await backtest(cfg, { cache: true }); // reads the cache built by c
    const ja = reportJson(a.report);
    expect(reportJson(b.report)).toBe(ja);
    expect(reportJson(c.report)).toBe(ja);
    expect(reportJson(d.report)).toBe(ja);
    // The cache runs took most trades on the columnar quiet path, the JSON-lines runs none.
    expect(a.result.quietTrades).toBe(0);
    expect(c.result.quietTrades).toBeGreaterThan(a.result.events.tradesSkipped / 2);
    const s = a.report.summary;
    expect(a.report.fills.length).toBeGreaterThan(0);
    expect(s.fills).toBe(a.report.fills.length);
    expect(s.ordersAccepted).toBeGreaterThan(0);
    expect(a.report.equity.length).toBeGreaterThanOrEqual(8); // one per minute of an 8-minute recording
    // Money is conserved across every account of the engine.
    const audit = a.result.audit;
    expect(audit.frozenMismatch).toEqual([]);
    for (const q of Object.values(audit.netQtyBySymbol)) expect(q).toBe(0);
  });

  test('cache and JSON lines agree with order latency and two strategies on one book (the quiet-trade path under load)', async () => {
    const grid = { id: 'grid', module: 'grid', params: { symbol: 'BTCUSDT', levels: 4, spacingBps: '2', quantity: '0.01' } };
    const cfg = loadBacktestConfig(writeConfig(dir, 'q.yaml', { latency: { placeMs: 120, cancelMs: 80 }, strategies: [MM, grid] }));
    const json = await backtest(cfg, { cache: false });
    const cache = await backtest(cfg, { cache: true });
    expect(cache.result.quietTrades).toBeGreaterThan(0);
    expect(json.report.fills.length).toBeGreaterThan(0);
    expect(reportJson(cache.report)).toBe(reportJson(json.report));
  });

  test('every fill also re-enacted through the engine gives the same fills (the tape shortcut changes nothing)', async () => {
    const cfg = loadBacktestConfig(writeConfig(dir, 'b.yaml', { data: { files: ['rec.jsonl.gz'], to: 1_704_067_200_000 + 5 * 60_000 } }));
    const fast = await backtest(cfg, { cache: true });
    const full = await backtest(cfg, { cache: true, fullTape: true });
    expect(full.result.events.tradesSkipped).toBe(0);
    expect(fast.result.events.tradesSkipped).toBeGreaterThan(0);
    const strip = (fs: typeof fast.report.fills) => fs.map((f) => ({ ...f, tradeId: '', orderId: '' }));
    expect(strip(fast.report.fills)).toEqual(strip(full.report.fills));
    expect(fast.report.summary.totalPnl).toBe(full.report.summary.totalPnl);
  });

  test('a position still open at the end beside closed trades gets a notice: its unrealized PnL is in the PnL, not in the trade statistics', async () => {
    const { report } = await backtest(loadBacktestConfig(writeConfig(openDir, 'open.yaml', {})), { cache: false });
    const open = report.trades.filter((t) => t.exitTime === null);
    // The market maker on this recording ends with closed round trips and an open position.
    expect(report.summary.trades).toBeGreaterThan(0);
    expect(open).toHaveLength(1);
    // The position the engine ends with and the account's unrealized PnL (it showed the open trade's
    // largest size, and its pnl, partial closes included, as "unrealized").
    const [p] = report.finalPositions.filter((x) => x.quantity !== '0');
    const side = p.quantity.startsWith('-') ? 'SHORT' : 'LONG';
    expect(reportNotices(report)).toContain(`A position was still open at the end (${p.symbol} ${side} ${p.quantity.replace('-', '')}; unrealized ${usd(report.summary.unrealizedPnl)}): the PnL counts it, the trade statistics only the ${report.summary.trades} closed trade(s).`);
  });

  test("the trades' pnl add up to the account's realized + unrealized PnL exactly, an open trade's on the engine's cost basis", async () => {
    // A closed round trip, then a long of 0.03 in two buys, half of it closed, 0.01 bought again: the
    // engine's cost basis (each close takes its share of the cost) is not the trade's average entry.
    writeFileSync(path.join(dir, 'targets.js'), TARGETS);
    const targets = [[5, '0.01'], [30, '0'], [60, '0.02'], [90, '0.03'], [150, '0.015'], [210, '0.025']];
    const { report } = await backtest(loadBacktestConfig(writeConfig(dir, 'sum.yaml', { strategies: [{ id: 't', module: './targets.js', params: { targets } }] })), { cache: false });
    const s = report.summary;
    expect(report.trades).toHaveLength(2);
    const [open] = report.trades.filter((t) => t.exitTime === null);
    const [p] = report.finalPositions.filter((x) => x.quantity !== '0');
    expect(p.quantity).toBe('0.025');
    const sum = report.trades.reduce((a, t) => a.plus(t.pnl), new Dec(0));
    expect(sum.toFixed()).toBe(new Dec(s.realizedPnl).plus(s.unrealizedPnl).toFixed());
    expect(sum.toFixed()).toBe(new Dec(s.grossPnl).toFixed());
    // With fees and funding (no fill flipped the position here, so no fee was split and rounded).
    expect(report.trades.reduce((a, t) => a.plus(t.netPnl), new Dec(0)).toFixed()).toBe(new Dec(s.totalPnl).toFixed());
    // Not vacuous: the two cost bases give different unrealized PnL, by more than a rounding.
    const mark = new Dec(report.equity[report.equity.length - 1][3]);
    const vwapUnrealized = mark.minus(open.entryPrice).times(p.quantity);
    expect(vwapUnrealized.minus(p.unrealizedPnl).abs().gt('0.001')).toBe(true);
    // The open trade: its realized PnL (its fills') plus the engine's unrealized PnL of the position.
    const realized = report.fills.filter((f) => f.time >= open.entryTime).reduce((a, f) => a.plus(f.realizedPnl), new Dec(0));
    expect(p.unrealizedPnl).toBe(s.unrealizedPnl);
    expect(new Dec(open.pnl).toFixed()).toBe(realized.plus(p.unrealizedPnl).toFixed());
  });

  test('a configured range the data covers only in part gets a notice with both ranges; one it covers gets none', async () => {
    const whole = await backtest(loadBacktestConfig(writeConfig(dir, 'r0.yaml', {})), { cache: false });
    const { start, end } = whole.report.identity.range;
    const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
    // An hour before the data up to its last minute: the run has the data's first 7 minutes.
    const from = start - 3_600_000;
    const to = end - 60_000;
    const part = await backtest(loadBacktestConfig(writeConfig(dir, 'r1.yaml', { data: { files: ['rec.jsonl.gz'], from: iso(from), to: iso(to) } })), { cache: false });
    const range = part.report.identity.range;
    const notice = reportNotices(part.report).find((n) => n.startsWith('The data covers only part'));
    expect(notice).toBe(
      `The data covers only part of the configured time range: ${iso(from)} to ${iso(to)} (${durationText(to - from)}) was configured, and the events run from ${iso(range.start)} to ${iso(range.end)} (${durationText(range.end - range.start)}); ${durationText(range.start - from + to - range.end)} of the range held no data.`,
    );
    // Within the data: nothing to say.
    const inside = await backtest(loadBacktestConfig(writeConfig(dir, 'r2.yaml', { data: { files: ['rec.jsonl.gz'], from: iso(start + 60_000), to: iso(end - 60_000) } })), { cache: false });
    expect(reportNotices(inside.report).filter((n) => n.startsWith('The data covers only part'))).toEqual([]);
  });

  test('latency delays orders on the virtual clock', async () => {
    const zero = await backtest(loadBacktestConfig(writeConfig(dir, 'z.yaml', { data: { files: ['rec.jsonl.gz'], to: 1_704_067_200_000 + 3 * 60_000 } })), { cache: true });
    const slow = await backtest(loadBacktestConfig(writeConfig(dir, 's.yaml', { data: { files: ['rec.jsonl.gz'], to: 1_704_067_200_000 + 3 * 60_000 }, latency: { placeMs: 750 } })), { cache: true });
    const firstFill = (o: typeof zero) => o.report.fills[0]?.time ?? Infinity;
    expect(firstFill(slow)).toBeGreaterThanOrEqual(slow.report.data.startTime + 750);
    expect(reportJson(slow.report)).not.toBe(reportJson(zero.report));
    expect(slow.report.config.latency).toEqual({ placeMs: 750, cancelMs: 750, amendMs: 750 });
  });

  test('the last equity sample and the last period end at the final equity, so the periods add up to totalPnl', async () => {
    // The recording's last mark falls on a sample boundary: the boundary's sample is taken before
    // that millisecond's events, and the market maker still holds inventory at the end.
    const { report } = await backtest(loadBacktestConfig(writeConfig(openDir, 'end.yaml', {})), { cache: false });
    const s = report.summary;
    expect(report.finalPositions.some((p) => new Dec(p.quantity).abs().gt(0))).toBe(true);
    const last = report.equity[report.equity.length - 1];
    expect(last[1]).toBe(s.finalEquity);
    expect(report.periods[report.periods.length - 1].endEquity).toBe(s.finalEquity);
    expect(report.periods.reduce((sum, p) => sum.plus(p.pnl), new Dec(0)).toFixed()).toBe(new Dec(s.totalPnl).toFixed());
  });

  // A timer's fill (an order sent with latency) between a sample's boundary and the next event
  // landed in that sample: the first sample, stamped at the start, held a fill made 20 ms later.
  test("an equity sample is the state before its millisecond's events: a fill a timer makes after the boundary is not in it", async () => {
    writeFileSync(path.join(dir, 'buy-at-start.js'), "module.exports.default = { name: 'buy', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'], create: () => ({ onStart: () => [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.01' }] }) };\n");
    const cfg = loadBacktestConfig(writeConfig(dir, 'buy-at-start.yaml', { data: { files: ['rec.jsonl.gz'], to: 1_704_067_200_000 + 3 * 60_000 }, strategies: [{ id: 'b', module: './buy-at-start.js', params: {} }], latency: { placeMs: 20 } }));
    const { report } = await backtest(cfg, { cache: true });
    // The bot starts at the first mark: the first sample's time; its order fills 20 ms later.
    expect(report.fills[0].time).toBe(report.equity[0][0] + 20);
    expect(report.equity[0][1]).toBe(report.summary.initialBalance);
    // No position in it either (exposure rows: time, leverage, gross notional).
    expect(report.exposure[0]).toEqual([report.equity[0][0], 0, '0']);
  });

  test('account.leverage is read and set before the start; out of range or of a symbol the recording lacks is bad input at its line', async () => {
    const to = 1_704_067_200_000 + 3 * 60_000;
    // 0.01 BTC quotes (about 500 USDT a side) on a 100 USDT account: the margin of 2x refuses far more than 20x.
    const run = (name: string, leverage: Record<string, number>) => backtest(loadBacktestConfig(writeConfig(dir, name, { data: { files: ['rec.jsonl.gz'], to }, account: { balance: '100', leverage }, latency: { placeMs: 0 } })), { cache: true });
    const high = await run('lev20.yaml', { BTCUSDT: 20 });
    const low = await run('lev2.yaml', { BTCUSDT: 2 });
    expect(high.report.summary.ordersAccepted).toBeGreaterThan(low.report.summary.ordersAccepted);
    expect(low.report.summary.rejectionsByCode['30003']).toBeGreaterThan(2 * (high.report.summary.rejectionsByCode['30003'] ?? 0));
    const file = writeConfig(dir, 'lev-bad.yaml', { account: { leverage: { BTCUSDT: 200 } } });
    expect(() => loadBacktestConfig(file)).toThrow(`${file}: account.leverage.BTCUSDT: expected an integer from 1 to 125, got number 200`);
    const eth = loadBacktestConfig(writeConfig(dir, 'lev-eth.yaml', { data: { files: ['rec.jsonl.gz'], to }, account: { leverage: { ETHUSDT: 5 } } }));
    await expect(backtest(eth, { cache: true })).rejects.toThrow(new BacktestConfigError(eth.file, 'account.leverage.ETHUSDT', 'a symbol the recording holds (BTCUSDT)', 'ETHUSDT'));
  });

  test('config errors name the file, the path, what was expected and what was found', () => {
    const f = path.join(dir, 'bad.yaml');
    const bad = (doc: unknown): string => {
      try {
        parseBacktestConfig(doc, { file: f });
      } catch (e) {
        expect(e).toBeInstanceOf(BacktestConfigError);
        return (e as Error).message;
      }
      return 'no error';
    };
    const base = { data: { files: ['x.jsonl.gz'] }, strategies: [{ id: 'mm', module: 'market-maker' }] };
    expect(bad({ ...base, latency: { placeMs: -1 } })).toBe(`${f}: latency.placeMs: expected an integer from 0 to 60000, got number -1`);
    expect(bad({ ...base, risk: { maxDrawdon: '0.1' } })).toMatch(/risk\.maxDrawdon: expected one of the keys .*maxDrawdown.*, got unknown key 'maxDrawdon'/);
    expect(bad({ ...base, fees: { maker: 'cheap', taker: '0.0005' } })).toBe(`${f}: fees.maker: expected a decimal such as "0.0002" (a string, or a YAML number that prints as written), got string "cheap"`);
    // A sign passed as "non-negative": a balance of -5 failed mid-run (exit 1, no line), a risk
    // limit of -1 or 0 denied every order of a run that exited 0.
    // A balance's example is a balance (it was "0.0002", a fee's), a limit's a limit.
    expect(bad({ ...base, account: { balance: -5 } })).toBe(`${f}: account.balance: expected a non-negative decimal such as "10000" (a string, or a YAML number that prints as written), got number -5`);
    // Probe item 12: a YAML number is accepted (the schema's c.decimal), so the rule does not ask for a string.
    expect(bad({ ...base, account: { balance: 10000 } })).toBe('no error');
    expect(bad({ ...base, account: { balance: '10000.123456789' } })).toBe(`${f}: account.balance: expected a USDT amount of at most 8 decimal places, got string "10000.123456789"`);
    expect(bad({ ...base, risk: { maxOrderNotional: '-1' } })).toBe(`${f}: risk.maxOrderNotional: expected a positive decimal such as "20000" or "0.05", got string "-1"`);
    expect(bad({ ...base, risk: { maxOrderNotional: '0' } })).toBe(`${f}: risk.maxOrderNotional: expected a positive decimal such as "20000" or "0.05", got string "0"`);
    // A fraction of the peak: 1 or more could never be reached (the limit off without a word).
    expect(bad({ ...base, risk: { maxDrawdown: '1' } })).toBe(`${f}: risk.maxDrawdown: expected a fraction of the equity peak below 1, such as "0.2", got string "1"`);
    // A YAML number as written: it was refused as "1e-7".
    expect(bad({ ...base, risk: { maxOrderNotional: -0.0000001 } })).toBe(`${f}: risk.maxOrderNotional: expected a positive decimal such as "20000" or "0.05", got number -0.0000001`);
    expect(bad({ ...base, risk: { priceBand: 5 } })).toBe(`${f}: risk.priceBand: expected a fraction of mark below 1, such as "0.05" for 5 %, got number 5`);
    expect(bad({ ...base, risk: { priceBand: '0.999' } })).toBe('no error');
    expect(bad({ ...base, risk: { priceBand: '-0.05' } })).toMatch(/risk\.priceBand: expected a positive decimal such as "20000" or "0\.05", got string "-0\.05"/);
    expect(bad({ ...base, fees: { maker: '-0.0001', taker: '0.0005' } })).toBe('no error');
    expect(bad({ ...base, fill: { book: 'l2', queueShape: 'log', queuePower: 3 } })).toBe(`${f}: fill.queueShape: expected to be set only with fill.queue: probabilistic, got string "log"`);
    expect(bad({ ...base, fill: { book: 'l2', queue: 'probabilistic', queueShape: 'log', queuePower: 3 } })).toBe('no error');
    expect(bad({ ...base, sweep: { params: { 'mm.refreshMs': { min: 1000.5, max: 1000.7, step: 0.1, integer: true } } } })).toBe(`${f}: sweep.params.mm.refreshMs.min: expected a whole number (integer: true), got number 1000.5`);
    expect(bad({ ...base, sweep: { params: { 'mm.refreshMs': { min: 1, max: 3, step: 0.5, integer: true } } } })).toBe(`${f}: sweep.params.mm.refreshMs.step: expected a whole number (integer: true, in a grid), got number 0.5`);
    // min > max: both values and the key path (it said "got a mapping with keys min, max, step").
    expect(bad({ ...base, sweep: { params: { 'mm.minSpreadBps': { min: 8, max: 2, step: 1 } } } })).toBe(`${f}: sweep.params.mm.minSpreadBps: expected a range with min <= max, got min 8 > max 2`);
    expect(bad({ ...base, sweep: { method: 'random', params: { 'mm.skewBps': { min: 0.5, max: -0.25 } } } })).toBe(`${f}: sweep.params.mm.skewBps: expected a range with min <= max, got min 0.5 > max -0.25`);
    // A step wider than the range gave min alone, without a word.
    expect(bad({ ...base, sweep: { params: { 'mm.minSpreadBps': { min: 2, max: 3, step: 5 } } } })).toBe(`${f}: sweep.params.mm.minSpreadBps.step: expected a step no larger than max - min (1), else the range is min alone, got number 5`);
    expect(bad({ ...base, sweep: { params: { 'mm.minSpreadBps': { min: 2, max: 2, step: 5 } } } })).toBe('no error');
    expect(bad({ strategies: base.strategies })).toMatch(/data: expected a mapping, got nothing/);
    expect(bad({ ...base, data: { files: ['x'], from: '2024-01-02', to: '2024-01-01' } })).toMatch(/data\.to: expected a time after data\.from/);
    expect(bad({ ...base, sweep: { params: { 'xx.a': [1] } } })).toMatch(/sweep\.params\.xx\.a: expected a key <strategyId>\.<param> naming one of the strategies mm/);
  });
});
