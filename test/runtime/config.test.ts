import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BotConfigError, loadBotConfig, parseBotConfig, resolveCredentials, resolveKillToken } from '../../src/runtime/config';
import { loadStrategySlots, resolveStrategyModule } from '../../src/runtime/strategy-loader';

const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-config-'));
const FILE = path.join(dir, 'bot.yaml');

const valid = (): Record<string, unknown> => ({
  venue: { baseUrl: 'http://127.0.0.1:8080', auth: { username: 'alice', passwordEnv: 'BOT_PW' } },
  strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01' } }],
});

function errorOf(fn: () => unknown): BotConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BotConfigError) return e;
    throw e;
  }
  throw new Error('expected a BotConfigError');
}

describe('bot config validation', () => {
  it('fills defaults and resolves relative paths against the config file', () => {
    const c = parseBotConfig({ ...valid(), stateFile: 'state/x.json', http: { port: 0 } }, FILE);
    expect(c).toMatchObject({ pollPositionsMs: 5000, cancelOnStop: true, killSwitch: false, stopTimeoutMs: 4000, logging: { level: 'info' } });
    expect(c.stateFile).toBe(path.join(dir, 'state', 'x.json'));
    expect(c.http).toEqual({ host: '127.0.0.1', port: 0, killTokenEnv: undefined });
    expect(c.venue.auth).toEqual({ kind: 'password', username: 'alice', passwordEnv: 'BOT_PW' });
    expect(c.venue.stream).toEqual({ pingIntervalMs: 20_000, pongTimeoutMs: 10_000, silenceTimeoutMs: 60_000 });
  });

  it.each([
    ['an unknown top-level key', { ...valid(), cancelOnStpo: true }, 'cancelOnStpo', /known keys .*cancelOnStop/, /unknown key 'cancelOnStpo'/],
    ['a wrong type deep in a list', { ...valid(), strategies: [{ id: 'mm', module: 'market-maker', params: 5 }] }, 'strategies[0].params', /a mapping of strategy parameters/, /number 5/],
    ['a risk limit that is not a decimal', { ...valid(), risk: { maxOrderNotional: 'lots' } }, 'risk.maxOrderNotional', /positive decimal/, /string "lots"/],
    ['an unknown risk limit', { ...valid(), risk: { maxOrderNotionl: '1' } }, 'risk.maxOrderNotionl', /maxOrderNotional/, /unknown key/],
    // A fraction: 1.5 could never be reached, and the limit was off without a word.
    ['a maxDrawdown of 1 or more', { ...valid(), risk: { maxDrawdown: '1.5' } }, 'risk.maxDrawdown', /fraction of the equity peak below 1/, /1\.5/],
    // A fraction of mark: "5" meant as 5 % is 500 %, and the band checked nothing below mark.
    ['a priceBand of 1 or more', { ...valid(), risk: { priceBand: '5' } }, 'risk.priceBand', /fraction of mark below 1, such as "0\.05" for 5 %/, /"5"/],
    // A YAML number is shown as written: it said "got number 1e-7".
    ['a tiny negative YAML number', { ...valid(), risk: { maxOrderNotional: -0.0000001 } }, 'risk.maxOrderNotional', /positive decimal/, /^number -0\.0000001$/],
    ['a port out of range', { ...valid(), http: { port: 70000 } }, 'http.port', /whole number from 0 to 65535/, /70000/],
    ['auth of neither kind', { ...valid(), venue: { baseUrl: 'http://x:1', auth: { token: 'abc' } } }, 'venue.auth', /username, passwordEnv.*apiKeyEnv, secretEnv/, /keys token/],
    ['a secret written into the file', { ...valid(), venue: { baseUrl: 'http://x:1', auth: { username: 'a', password: 'hunter2' } } }, 'venue.auth.password', /passwordEnv/, /unknown key 'password'/],
    ['a strategy id that cannot prefix clientOrderIds', { ...valid(), strategies: [{ id: 'market-maker', module: 'market-maker' }] }, 'strategies[0].id', /letters, digits or _/, /market-maker/],
    ['a pong deadline too short to mean anything', { ...valid(), venue: { ...(valid().venue as object), stream: { pongTimeoutMs: 100 } } }, 'venue.stream.pongTimeoutMs', /whole number from 500/, /100/],
    ['an unknown stream setting', { ...valid(), venue: { ...(valid().venue as object), stream: { pingMs: 1000 } } }, 'venue.stream.pingMs', /pingIntervalMs/, /unknown key/],
    ['a missing strategies list', { venue: valid().venue }, 'strategies', /non-empty list/, /missing/],
  ])('refuses %s, naming file, path, expected and got', (_name, doc, at, expected, got) => {
    const e = errorOf(() => parseBotConfig(doc, FILE));
    expect(e.file).toBe(FILE);
    expect(e.at).toBe(at);
    expect(e.expected).toMatch(expected);
    expect(e.got).toMatch(got);
    expect(e.message).toContain(`${FILE}: ${at}: expected `);
  });

  it('a YAML number is read as written, 0.0000001 not 1e-7', () => {
    expect(parseBotConfig({ ...valid(), risk: { maxOrderNotional: 0.0000001, maxDrawdown: 0.2 } }, FILE).risk).toMatchObject({ maxOrderNotional: '0.0000001', maxDrawdown: '0.2' });
  });

  it('refuses a stateFile that is a folder (perpkit run --check passed it; the bot failed at its first read)', () => {
    expect(errorOf(() => parseBotConfig({ ...valid(), stateFile: '.' }, FILE)).message).toBe(`${FILE}: stateFile: expected a file path (relative to the config file), got ${dir}: a folder`);
  });

  it('reports YAML syntax errors in one line, at file:line:column', () => {
    const f = path.join(dir, 'broken.yaml');
    writeFileSync(f, 'venue:\n  baseUrl: http://x:1\n  baseUrl: http://y:1\n');
    const e = errorOf(() => loadBotConfig(f));
    expect(e.message).toBe(`${f}:3:3: expected valid YAML, got the key 'baseUrl' a second time in the same mapping`);
    writeFileSync(f, 'venue:\n  baseUrl: [unclosed\n');
    expect(errorOf(() => loadBotConfig(f)).message).toMatch(new RegExp(`^${f}:\\d+:\\d+: expected valid YAML, got a syntax error \\([^\\n]+\\)$`));
  });

  it('names the file as given, and a missing one in plain words', () => {
    const rel = path.relative(process.cwd(), path.join(dir, 'nope.yaml'));
    expect(errorOf(() => loadBotConfig(rel)).message).toBe(`${rel}: expected a readable YAML file, got no such file`);
    // Errors found after loading (a strategy's parameter) name it as given too.
    const f = path.join(dir, 'rel.yaml');
    writeFileSync(f, 'venue:\n  baseUrl: http://127.0.0.1:8080\n  auth: { username: alice, passwordEnv: BOT_PW }\nstrategies:\n  - { id: mm, module: market-maker, params: { quantity: "-1" } }\n');
    const relF = path.relative(process.cwd(), f);
    const c = loadBotConfig(relF);
    expect(c.file).toBe(relF);
    expect(errorOf(() => loadStrategySlots(c)).locate().message).toMatch(new RegExp(`^${relF.replace(/[.]/g, '\\.')}:5: strategies\\[0\\]\\.params\\.quantity: `));
  });

  it('refuses strategy parameters at their path, through the strategy own params()', () => {
    const c = parseBotConfig({ ...valid(), strategies: [{ id: 'mm', module: 'market-maker', params: { quantity: '-1' } }] }, FILE);
    const e = errorOf(() => loadStrategySlots(c));
    expect(e.at).toBe('strategies[0].params.quantity');
    expect(e.expected).toMatch(/positive decimal/);
    expect(e.got).toBe('"-1"');
    const typo = parseBotConfig({ ...valid(), strategies: [{ id: 'mm', module: 'market-maker', params: { quantiy: '1' } }] }, FILE);
    expect(errorOf(() => loadStrategySlots(typo)).at).toBe('strategies[0].params.quantiy');
  });

  it('refuses a module that does not load or does not export a strategy', () => {
    const notThere = parseBotConfig({ ...valid(), strategies: [{ id: 'x', module: './nope.js' }] }, FILE);
    expect(errorOf(() => loadStrategySlots(notThere)).at).toBe('strategies[0].module');
    const f = path.join(dir, 'not-a-strategy.js');
    writeFileSync(f, 'module.exports = { hello: 1 };\n');
    const bad = parseBotConfig({ ...valid(), strategies: [{ id: 'x', module: './not-a-strategy.js' }] }, FILE);
    expect(errorOf(() => loadStrategySlots(bad)).expected).toMatch(/strategy definition/);
  });

  it('loads built-in names and .js modules relative to the config file', () => {
    const f = path.join(dir, 'echo.js');
    writeFileSync(f, "exports.strategy = { name: 'echo', symbols: () => [], params: (r) => r, create: () => ({}) };\n");
    const c = parseBotConfig({ ...valid(), strategies: [...(valid().strategies as unknown[]), { id: 'echo', module: './echo.js' }] }, FILE);
    const slots = loadStrategySlots(c);
    expect(slots.map((s) => s.definition.name)).toEqual(['market-maker', 'echo']);
    expect(resolveStrategyModule('market-maker', dir)).toMatch(/strategies[/\\]market-maker[/\\]index\.ts$/);
  });

  it('validates the example config shipped in config/', () => {
    const c = loadBotConfig(path.join(__dirname, '../../config/bot-market-maker.yaml'));
    expect(loadStrategySlots(c).map((s) => s.id)).toEqual(['mm']);
    expect(c.venue.auth.kind).toBe('password');
    expect(c.http?.dashboard).toEqual({ tokenEnv: undefined });
  });
});

describe('secrets from the environment', () => {
  const SECRET = 'sup3r-s3cret-value';

  it('reads credentials from the named variables', () => {
    const c = parseBotConfig(valid(), FILE);
    expect(resolveCredentials(c, { BOT_PW: SECRET })).toEqual({ kind: 'password', username: 'alice', password: SECRET });
    const k = parseBotConfig({ ...valid(), venue: { baseUrl: 'http://x:1', auth: { apiKeyEnv: 'K', secretEnv: 'S' } }, http: { killTokenEnv: 'T' } }, FILE);
    expect(resolveCredentials(k, { K: 'key', S: SECRET })).toEqual({ kind: 'apiKey', apiKey: 'key', secret: SECRET });
    expect(resolveKillToken(k, { T: 'tok' })).toBe('tok');
  });

  it('names a missing variable and never prints a value', () => {
    const k = parseBotConfig({ ...valid(), venue: { baseUrl: 'http://x:1', auth: { apiKeyEnv: 'K', secretEnv: 'S' } } }, FILE);
    const e = errorOf(() => resolveCredentials(k, { K: SECRET }));
    expect(e.at).toBe('venue.auth.secretEnv');
    expect(e.message).toContain('environment variable S');
    expect(e.message).not.toContain(SECRET);
  });
});
