/**
 * The published JSON Schemas (schema/*.json) are the ones the loaders use, up to date, and they
 * agree with the loaders: every config in config/ passes both, and a mistake is refused by both.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Ajv2020 from 'ajv/dist/2020';
import * as path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse } from 'yaml';
import { parseBacktestConfig } from '../../src/backtest/backtest/config';
import { BACKTEST_CONFIG, type BacktestConfigFile } from '../../src/backtest/backtest/config-schema';
import { DEFAULT_STRATEGY_ERRORS } from '../../src/bot/strategy/errors';
import { configSchemas, configSchemaText } from '../../src/cli/config-schemas';
import { initFiles } from '../../src/cli/init-files';
import { parseBotConfig } from '../../src/runtime/config';
import { loadRecordConfig } from '../../src/cli/record';
import { parseConfigText } from '../../src/exchange/service/config-file';
import { BOT_CONFIG, STRATEGY_ERRORS, type BotConfigFile } from '../../src/runtime/config-schema';

const ROOT = path.resolve(__dirname, '..', '..');
const CONFIG = path.join(ROOT, 'config');

it('schema/*.json are up to date (npm run schemas writes them)', () => {
  for (const [name, schema] of Object.entries(configSchemas())) {
    const file = path.join(ROOT, 'schema', name);
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${file} is missing: run npm run schemas`);
    }
    if (text !== configSchemaText(schema)) throw new Error(`${file} is out of date: run npm run schemas`);
  }
});

const yamlOf = (name: string): unknown => parse(readFileSync(path.join(CONFIG, name), 'utf8'));
const botFiles = readdirSync(CONFIG).filter((f) => /^(bot|strategy)-.*\.yaml$/.test(f));
const backtestFiles = readdirSync(CONFIG).filter((f) => /^backtest-.*\.yaml$/.test(f));

it('finds the example configs', () => {
  expect(botFiles.length).toBeGreaterThanOrEqual(4);
  expect(backtestFiles.length).toBeGreaterThanOrEqual(9);
});

it.each(botFiles)('config/%s passes the bot schema and the loader', (f) => {
  const doc = yamlOf(f);
  expect([...Value.Errors(BOT_CONFIG, doc)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  expect(() => parseBotConfig(doc, path.join(CONFIG, f))).not.toThrow();
});

it.each(backtestFiles)('config/%s passes the backtest schema and the loader', (f) => {
  const doc = yamlOf(f);
  expect([...Value.Errors(BACKTEST_CONFIG, doc)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  expect(() => parseBacktestConfig(doc, { file: path.join(CONFIG, f) })).not.toThrow();
});

it("perpkit init's configs name their schema, as installed in the project, and pass it", () => {
  const files = initFiles({ name: 'my-bot', perpkitSpec: '^0.1.0' });
  for (const [file, schema, shape] of [
    ['config/bot.yaml', 'bot.json', BOT_CONFIG],
    ['config/backtest.yaml', 'backtest.json', BACKTEST_CONFIG],
  ] as const) {
    const text = files.get(file) ?? '';
    // The editor resolves $schema against the YAML file: config/ is one below the project, where node_modules is.
    const first = text.split('\n')[0];
    expect(first).toBe(`# yaml-language-server: $schema=../node_modules/perpkit/schema/${schema}`);
    expect(path.posix.join('project', path.posix.dirname(file), first.replace(/^.*\$schema=/, ''))).toBe(`project/node_modules/perpkit/schema/${schema}`);
    expect(readdirSync(path.join(ROOT, 'schema'))).toContain(schema);
    expect([...Value.Errors(shape, parse(text))].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  }
});

describe('a mistake is refused by the schema (the editor) and by the loader (perpkit), at the same key', () => {
  const bot = (): Record<string, unknown> => ({ venue: { baseUrl: 'http://127.0.0.1:8080', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }] });
  const bt = (): Record<string, unknown> => ({ data: { files: ['x.jsonl.gz'] }, strategies: [{ id: 'mm', module: 'market-maker' }] });
  const cases: Array<[string, TSchema, Record<string, unknown>, (d: unknown) => unknown, string]> = [
    ['bot: unknown top-level key', BOT_CONFIG, { ...bot(), cancelOnStpo: true }, (d) => parseBotConfig(d, 'b.yaml'), 'cancelOnStpo'],
    ['bot: unknown risk limit', BOT_CONFIG, { ...bot(), risk: { maxDrawdwn: '0.1' } }, (d) => parseBotConfig(d, 'b.yaml'), 'risk.maxDrawdwn'],
    ['bot: port out of range', BOT_CONFIG, { ...bot(), http: { port: 70000 } }, (d) => parseBotConfig(d, 'b.yaml'), 'http.port'],
    ['bot: poll interval out of range', BOT_CONFIG, { ...bot(), pollPositionsMs: -1 }, (d) => parseBotConfig(d, 'b.yaml'), 'pollPositionsMs'],
    ['bot: an unknown log level', BOT_CONFIG, { ...bot(), logging: { level: 'loud' } }, (d) => parseBotConfig(d, 'b.yaml'), 'logging.level'],
    ['bot: a password in the file', BOT_CONFIG, { ...bot(), venue: { baseUrl: 'http://x:1', auth: { username: 'a', password: 'p' } } }, (d) => parseBotConfig(d, 'b.yaml'), 'venue.auth'],
    ['backtest: latency over a minute', BACKTEST_CONFIG, { ...bt(), latency: { placeMs: 60_001 } }, (d) => parseBacktestConfig(d, { file: '' }), 'latency.placeMs'],
    ['backtest: unknown sweep key', BACKTEST_CONFIG, { ...bt(), sweep: { params: { 'mm.skewBps': [1] }, metrc: 'sharpe' } }, (d) => parseBacktestConfig(d, { file: '' }), 'sweep.metrc'],
    ['backtest: a misspelt metric', BACKTEST_CONFIG, { ...bt(), sweep: { params: { 'mm.skewBps': [1] }, metric: 'sharp' } }, (d) => parseBacktestConfig(d, { file: '' }), 'sweep.metric'],
    ['backtest: a strategy id with a dash', BACKTEST_CONFIG, { ...bt(), strategies: [{ id: 'm-m', module: 'market-maker' }] }, (d) => parseBacktestConfig(d, { file: '' }), 'strategies[0].id'],
  ];
  it.each(cases)('%s', (_name, schema, doc, load, at) => {
    expect(Value.Check(schema, doc)).toBe(false);
    expect(() => load(doc)).toThrow(expect.objectContaining({ at: expect.stringMatching(new RegExp(`^${at.replace(/[.[\]]/g, '\\$&')}`)) }) as unknown as Error);
  });
});

it('the defaults the loaders fill in are the schema defaults', () => {
  const c = parseBotConfig({ venue: { baseUrl: 'http://x:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }], strategyErrors: {} }, 'b.yaml');
  const p = BOT_CONFIG.properties;
  expect([c.pollPositionsMs, c.cancelOnStop, c.flattenOnStop, c.stateSaveMs, c.killSwitch, c.stopTimeoutMs, c.logging.level]).toEqual([p.pollPositionsMs.default, p.cancelOnStop.default, p.flattenOnStop.default, p.stateSaveMs.default, p.killSwitch.default, p.stopTimeoutMs.default, p.logging.properties.level.default]);
  expect(c.strategyErrors).toEqual({ maxErrors: STRATEGY_ERRORS.properties.maxErrors.default, windowMs: STRATEGY_ERRORS.properties.windowMs.default });
  expect(c.strategyErrors).toEqual(DEFAULT_STRATEGY_ERRORS);
  const b = parseBacktestConfig({ data: { files: ['x'] }, strategies: [{ id: 'mm', module: 'market-maker' }], sweep: { params: { 'mm.skewBps': [1] } } }, { file: '' });
  const s = BACKTEST_CONFIG.properties;
  expect([b.account.balance, b.latency.placeMs, b.fill.depthQuotes, b.report.equityIntervalMs, b.report.periodMs, b.data.cache]).toEqual([s.account.properties.balance.default, s.latency.properties.placeMs.default, s.fill.properties.depthQuotes.default, s.report.properties.equityIntervalMs.default, s.report.properties.periodMs.default, s.data.properties.cache.default]);
  expect([b.sweep?.method, b.sweep?.samples, b.sweep?.seed, b.sweep?.metric, b.sweep?.order]).toEqual([s.sweep.properties.method.default, s.sweep.properties.samples.default, s.sweep.properties.seed.default, s.sweep.properties.metric.default, s.sweep.properties.order.default]);
});

describe('the published files, as an editor reads them (ajv, JSON Schema 2020-12)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const published = (name: string) => ajv.compile(JSON.parse(readFileSync(path.join(ROOT, 'schema', name), 'utf8')) as object);
  const bot = published('bot.json');
  const backtest = published('backtest.json');
  const exchange = published('exchange.json');
  const record = published('record.json');

  it.each([
    ...botFiles.map((f) => [f, bot] as const),
    ...backtestFiles.map((f) => [f, backtest] as const),
    ['exchange.yaml', exchange] as const,
    ['record.yaml', record] as const,
  ])('config/%s is valid', (f, validate) => {
    expect(validate(yamlOf(f)) ? [] : validate.errors).toEqual([]);
  });

  it('the exchange schema refuses what the exchange refuses', () => {
    for (const [text, at] of [
      ['port: 70000\n', 'port'],
      ['symbols:\n  - symbol: ETHUSDT\n    tickSize: 0.01\n', 'symbols[0].tickSize'],
      ['prot: 80\n', 'prot'],
      ['market: sideways\n', 'market'],
      ['users:\n  - { username: abc, password: b, balance: "1", positionMode: SOLO }\n', 'users[0].positionMode'],
    ] as const) {
      expect(exchange(parse(text))).toBe(false);
      expect(() => parseConfigText(text, 'x.yaml')).toThrow(expect.objectContaining({ at }) as unknown as Error);
    }
    expect(exchange(parse('port: 0\nsymbols:\n  - { symbol: BTCUSDT, takerFee: "0.0004" }\n'))).toBe(true);
  });

  it('the recorder now refuses a misspelt key, as its schema does', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-rec-cfg-'));
    try {
      const file = path.join(dir, 'rec.yaml');
      const text = 'venue:\n  baseUrl: http://127.0.0.1:8080\nsymbols: [BTCUSDT]\npollPositonsMs: 1000\n';
      writeFileSync(file, text);
      expect(record(parse(text))).toBe(false);
      expect(() => loadRecordConfig(file)).toThrow(`${file}:4: pollPositonsMs: expected one of the known keys venue, symbols, kinds, pollPositionsMs, got unknown key 'pollPositonsMs'`);
      writeFileSync(file, 'venue:\n  baseUrl: http://127.0.0.1:8080\n  auth: { apiKeyEnv: K, secretEnv: S, secret: x }\nsymbols: [BTCUSDT]\n');
      expect(() => loadRecordConfig(file)).toThrow(/rec\.yaml:3: venue\.auth\.secret: expected one of the known keys apiKeyEnv, secretEnv/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('the file types come from the same schemas (checked by the compiler, run by the loaders)', () => {
  const file: BotConfigFile = {
    venue: { baseUrl: 'http://127.0.0.1:8080', auth: { apiKeyEnv: 'K', secretEnv: 'S' } },
    strategies: [{ id: 'mm', module: 'market-maker', params: { quantity: '0.01' } }],
    risk: { maxDrawdown: '0.1', maxOpenOrders: 20 },
    http: { port: 0 },
    // @ts-expect-error a misspelt key does not type-check
    cancelOnStpo: true,
  };
  const bt: BacktestConfigFile = { data: { files: 'x.jsonl.gz' }, strategies: [{ id: 'mm', module: 'market-maker' }], sweep: { params: { 'mm.skewBps': [1, 3] }, metric: 'sharpe' } };
  // @ts-expect-error strategies are required
  const missing: BacktestConfigFile = { data: { files: 'x.jsonl.gz' } };
  expect(Value.Check(BOT_CONFIG, { ...file, cancelOnStpo: undefined })).toBe(false); // unknown key, even undefined
  const { cancelOnStpo: _typo, ...good } = file as BotConfigFile & { cancelOnStpo?: boolean };
  expect(Value.Check(BOT_CONFIG, good)).toBe(true);
  expect(Value.Check(BACKTEST_CONFIG, bt)).toBe(true);
  expect(Value.Check(BACKTEST_CONFIG, missing)).toBe(false);
});
