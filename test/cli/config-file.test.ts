import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DEFAULT_CONFIG } from '../../src/exchange/service/config';
import { ConfigError } from '../../src/core/config-errors';
import { loadConfigFile, parseConfigText } from '../../src/exchange/service/config-file';

const F = 'my.yaml';

describe('exchange YAML config', () => {
  it('config/exchange.yaml is exactly the defaults', () => {
    expect(loadConfigFile(path.resolve(__dirname, '..', '..', 'config', 'exchange.yaml'))).toEqual(DEFAULT_CONFIG);
  });

  it("a config file's dataDir and replay file are relative to the file's folder, not the working directory", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-exchange-config-'));
    try {
      const file = path.join(dir, 'exchange.yaml');
      writeFileSync(file, 'market: replay:data/rec.jsonl.gz\ndataDir: ./state\n');
      const c = loadConfigFile(path.relative(process.cwd(), file));
      expect(c.market).toBe(`replay:${path.join(dir, 'data', 'rec.jsonl.gz')}`);
      expect(c.dataDir).toBe(path.join(dir, 'state'));
      writeFileSync(file, 'market: replay:/abs/rec.jsonl.gz\n');
      expect(loadConfigFile(file)).toMatchObject({ market: 'replay:/abs/rec.jsonl.gz', dataDir: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merges over the defaults; a named default symbol keeps its other fields', () => {
    const c = parseConfigText('port: 0\nrateLimits: { ordersPer10s: 5 }\nsymbols:\n  - { symbol: BTCUSDT, takerFee: "0.0004" }\n', F);
    expect(c.port).toBe(0);
    expect(c.rateLimits).toEqual({ ...DEFAULT_CONFIG.rateLimits, ordersPer10s: 5 });
    expect(c.symbols).toEqual([{ ...DEFAULT_CONFIG.symbols[0], takerFee: '0.0004' }]);
    expect(parseConfigText('', F)).toEqual(DEFAULT_CONFIG);
  });

  it.each([
    ['symbols:\n  - symbol: BTCUSDT\n  - symbol: ETHUSDT\n    tickSize: 0.01\n', 'symbols[1].tickSize: expected a positive decimal string in quotes (e.g. "0.01")'],
    ['prot: 80\n', 'prot: unknown key; expected one of host, port'],
    ['port: 70000\n', 'port: expected an integer from 0 to 65535, got number 70000'],
    ['market: sideways\n', 'market: expected off, synthetic or replay:<file>, got the string "sideways"'],
    ['users:\n  - { username: abc, password: b }\n', 'users[0].balance: is required'],
    ['users:\n  - { username: abc, password: b, balance: "1", apiKeys: [{ apiKey: k, secret: s, permissions: [ADMIN] }] }\n', 'users[0].apiKeys[0].permissions[0]: expected one of READ, TRADE, got the string "ADMIN"'],
    ['symbols:\n  - { symbol: XYZUSDT, baseAsset: X }\n', 'symbols[0].quoteAsset: is required'],
    ['symbols:\n  - { symbol: BTCUSDT, markPrice: "50000.05" }\n', 'symbols[0]: markPrice 50000.05 is not a multiple of tickSize 0.1'],
    ['auth: { accessTokenTtlMs: 5, colour: red }\n', 'auth.colour: unknown key'],
    ['fsync: yes\n', 'fsync: expected true or false, got the string "yes"'],
    ['port: [\n', 'expected valid YAML, got a syntax error ('],
    ['port: 1\nport: 2\n', "expected valid YAML, got the key 'port' a second time in the same mapping"],
  ])('%j is refused: %s', (text, msg) => {
    let err: unknown;
    try {
      parseConfigText(text, F);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    // With the line of the key in the file (YAML syntax errors carry their own position).
    expect((err as Error).message).toMatch(msg.startsWith('expected valid YAML') ? /^my\.yaml:\d+:\d+: expected valid YAML, got [^\n]+$/ : /^my\.yaml:\d+: /);
    expect((err as Error).message).toContain(msg);
  });

  it('a syntax error is one line at file:line:column; a missing file is "no such file"', () => {
    expect(() => parseConfigText('port: 0\nws:\n  pingIntervalMs: 100\n  pingIntervalMs: 200\n', F)).toThrow(/^my\.yaml:4:3: expected valid YAML, got the key 'pingIntervalMs' a second time in the same mapping$/);
    expect(() => loadConfigFile('no-such-dir/nope.yaml')).toThrow(/^no-such-dir\/nope\.yaml: expected a readable YAML file, got no such file$/);
  });

  it('points at the line of the key', () => {
    expect(() => parseConfigText('port: 0\nsymbols:\n  - symbol: BTCUSDT\n  - symbol: ETHUSDT\n    tickSize: 0.01\n', F)).toThrow(/^my\.yaml:5: symbols\[1\]\.tickSize: /);
    expect(() => parseConfigText('port: 0\n\nauth:\n  accessTokenTtlMs: 5\n  colour: red\n', F)).toThrow(/^my\.yaml:5: auth\.colour: unknown key/);
  });
});
