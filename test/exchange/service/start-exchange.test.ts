/**
 * `startExchange` runs the exchange its config describes, as `perpkit exchange` does: the market
 * `market` names, and the journal in `dataDir`. Both were ignored, without a word: a synthetic or
 * replayed market stood still, and nothing was kept. Its config is checked and merged over the
 * defaults as a config file is: unknown keys, out-of-range numbers and numbers for decimal strings
 * started without a word, and a default symbol changed by one field failed with a RangeError that
 * named neither the symbol nor the field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigError, DEFAULT_CONFIG, mergeConfig, startExchange, type ExchangeConfigOverrides, type ExchangeServer, type MarketMode } from '../../../src/exchange';
import { parseConfigText } from '../../../src/exchange/service/config-file';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function marksMove(server: ExchangeServer, within: number): Promise<{ first: string; moved: boolean }> {
  const mark = (): string => server.core.engine.marketState('BTCUSDT').markPrice;
  const first = mark();
  const until = Date.now() + within;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    if (mark() !== first) return { first, moved: true };
  }
  return { first, moved: false };
}

test.each<[string, MarketMode]>([
  ['synthetic', 'synthetic'],
  ['replay', `replay:${path.join(ROOT, 'data', 'sample', 'btcusdt-2h.jsonl.gz')}`],
])('a %s market moves the mark price', async (_name, market) => {
  const server = await startExchange({ port: 0, market });
  try {
    expect((await marksMove(server, 10_000)).moved).toBe(true);
  } finally {
    await server.stop();
  }
}, 30_000);

test('without a market the mark stays where it was configured', async () => {
  const server = await startExchange({ port: 0 });
  try {
    expect(await marksMove(server, 1500)).toEqual({ first: '50000', moved: false });
  } finally {
    await server.stop();
  }
});

test('a replay of a file that is not there is refused at start, naming it', async () => {
  await expect(startExchange({ port: 0, market: 'replay:/nonexistent/rec.jsonl.gz' })).rejects.toThrow('market replay:/nonexistent/rec.jsonl.gz: no such recording file');
});

test('with a dataDir, what happened is journaled there and restored by the next start', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'perpkit-start-exchange-'));
  try {
    const first = await startExchange({ port: 0, dataDir });
    try {
      await first.core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '51234.5' });
    } finally {
      await first.stop();
    }
    const second = await startExchange({ port: 0, dataDir });
    try {
      expect(second.core.engine.marketState('BTCUSDT').markPrice).toBe('51234.5');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** What startExchange throws for a config (as JavaScript or parsed JSON may pass it, unchecked by the types). */
async function startError(config: unknown): Promise<unknown> {
  try {
    const s = await startExchange(config as ExchangeConfigOverrides);
    await s.stop();
  } catch (e) {
    return e;
  }
  return undefined;
}

test.each<[string, unknown, string | RegExp]>([
  ['an unknown key', { port: 0, bogus: 1 }, /^startExchange config: bogus: unknown key; expected one of host, port, adminToken, /],
  ['a negative seed', { port: 0, seed: -1 }, 'startExchange config: seed: expected an integer from 0 to 4294967295, got number -1'],
  ['a fractional seed', { port: 0, seed: 1.5 }, 'startExchange config: seed: expected an integer from 0 to 4294967295, got number 1.5'],
  ['a negative rate limit', { port: 0, rateLimits: { ordersPer10s: -5 } }, 'startExchange config: rateLimits.ordersPer10s: expected an integer from 1 to 9007199254740991, got number -5'],
  ['a number for a decimal string', { port: 0, insuranceFund: 5 }, 'startExchange config: insuranceFund: expected a non-negative decimal string in quotes (e.g. "5"), so that it is never rounded as a binary float, got number 5'],
  ['a new symbol with fields missing', { port: 0, symbols: [{ symbol: 'SOLUSDT', takerFee: '0.0004' }] }, 'startExchange config: symbols[0].baseAsset: is required'],
])('%s is refused with a ConfigError naming the key, the rule and what was found', async (_name, config, message) => {
  const e = await startError(config);
  expect(e).toBeInstanceOf(ConfigError);
  if (typeof message === 'string') expect((e as Error).message).toBe(message);
  else expect((e as Error).message).toMatch(message);
});

test('a default symbol changed by one field keeps its other fields, as in a config file', async () => {
  const config: ExchangeConfigOverrides = { port: 0, symbols: [{ symbol: 'BTCUSDT', takerFee: '0.0004' }] };
  // The config the CLI builds from the same YAML (a list of symbols that leaves ETHUSDT out drops it).
  expect(mergeConfig(config)).toEqual(parseConfigText('port: 0\nsymbols:\n  - { symbol: BTCUSDT, takerFee: "0.0004" }\n', 'x.yaml'));
  const server = await startExchange(config);
  try {
    expect(server.core.config.symbols).toEqual([{ ...DEFAULT_CONFIG.symbols[0], takerFee: '0.0004' }]);
    const [btc, ...others] = server.core.engine.symbolSpecs();
    expect(others).toEqual([]);
    expect([btc.name, btc.takerFee.toString(), btc.makerFee.toString(), btc.tick.size]).toEqual(['BTCUSDT', '0.0004', DEFAULT_CONFIG.symbols[0].makerFee, DEFAULT_CONFIG.symbols[0].tickSize]);
  } finally {
    await server.stop();
  }
});
