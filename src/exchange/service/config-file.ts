/**
 * The exchange's YAML config file: read, merged over DEFAULT_CONFIG and validated. Every error
 * names the file, the path inside it (`symbols[1].tickSize`), what was expected and what was
 * found, and unknown keys are refused (a misspelt key silently ignored is a setting silently
 * not applied).
 *
 * Merge rules: objects merge key by key; lists replace, except that an entry of `symbols` naming
 * a default symbol is merged over that symbol (so `{symbol: BTCUSDT, takerFee: "0.0004"}` changes
 * one fee), and a list of symbols that leaves a default out drops it.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseConfigYaml, unreadableText, type ConfigTextProblem } from '../../core/config-text';
import { decimalStringProblem } from '../../core/decimal';
import { PERMISSIONS, POSITION_MODES } from '../../core/enums';
import { VenueError } from '../../core/errors';
import { validateFaultSetting } from '../../protocol/validate/admin';
import { usernameProblem } from '../../protocol/validate/public';
import { USERNAME } from '../../protocol/validate/rules';
import { SymbolSpec, type MarginTier, type SymbolConfig } from '../engine/symbols';
import { ConfigError } from '../../core/config-errors';
import { DEFAULT_CONFIG, type ConfiguredApiKey, type ConfiguredUser, type ExchangeConfig, type MarketMode } from './config';

/** JSON Schema of what a validator accepts: the validators below carry theirs (`.schema`). */
type JsonSchema = Record<string, unknown>;

/** A validator, with the JSON Schema of what it accepts: the file's schema is built from the same calls. */
type V<T> = ((v: unknown, path: string) => T) & { schema?: JsonSchema };

function withSchema<T>(f: (v: unknown, path: string) => T, schema: JsonSchema): V<T> {
  return Object.assign(f, { schema });
}

const DECIMAL_PATTERN = { positive: '^(?=.*[1-9])(?:0|[1-9]\\d*)(?:\\.\\d+)?$', nonNegative: '^(?:0|[1-9]\\d*)(?:\\.\\d+)?$', signed: '^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?$' };

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}

class Checker {
  constructor(readonly file: string) {}

  fail(path: string, expected: string, got: unknown): never {
    throw new ConfigError(this.file, path, expected, describe(got));
  }

  str: V<string> = withSchema((v, p) => (typeof v === 'string' && v.length > 0 ? v : this.fail(p, 'a non-empty string', v)), { type: 'string', minLength: 1 });

  /** A decimal string; YAML numbers are refused so that `0.1` never passes through a float. */
  dec(opts: { positive?: boolean; nonNegative?: boolean; signed?: boolean } = {}): V<string> {
    const pattern = opts.positive ? DECIMAL_PATTERN.positive : opts.signed ? DECIMAL_PATTERN.signed : DECIMAL_PATTERN.nonNegative;
    return withSchema((v, p) => {
      const what = opts.positive ? 'a positive decimal string' : opts.signed ? 'a decimal string' : 'a non-negative decimal string';
      if (typeof v === 'number') this.fail(p, `${what} in quotes (e.g. "${v}"), so that it is never rounded as a binary float`, v);
      if (typeof v !== 'string' || decimalStringProblem(v) !== undefined) this.fail(p, what, v);
      if (!opts.signed && v.startsWith('-')) this.fail(p, what, v);
      const body = v.replace(/^-/, '');
      if (opts.positive && /^[0.]+$/.test(body)) this.fail(p, what, v);
      return v as string;
    }, { type: 'string', pattern, description: 'A decimal in quotes (never a YAML number).' });
  }

  int(min: number, max = Number.MAX_SAFE_INTEGER): V<number> {
    return withSchema((v, p) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : this.fail(p, `an integer from ${min} to ${max}`, v)), { type: 'integer', minimum: min, maximum: max });
  }

  bool: V<boolean> = withSchema((v, p) => (typeof v === 'boolean' ? v : this.fail(p, 'true or false', v)), { type: 'boolean' });

  oneOf<T extends string>(values: readonly T[]): V<T> {
    return withSchema((v, p) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : this.fail(p, `one of ${values.join(', ')}`, v)), { type: 'string', enum: [...values] });
  }

  list<T>(item: V<T>, minLen = 0): V<T[]> {
    return withSchema(
      (v, p) => {
        if (!Array.isArray(v)) this.fail(p, 'a list', v);
        if (v.length < minLen) this.fail(p, `a list of at least ${minLen} entries`, v);
        return v.map((x, i) => item(x, `${p}[${i}]`));
      },
      { type: 'array', items: item.schema ?? {}, ...(minLen > 0 ? { minItems: minLen } : {}) },
    );
  }

  /** A mapping: every key known, the required ones present; missing optional keys keep `base`. */
  obj<T extends object>(fields: { [K in keyof T]-?: V<T[K]> }, required: ReadonlyArray<keyof T>, base?: Partial<T>): V<T> {
    const properties: Record<string, JsonSchema> = {};
    for (const [k, f] of Object.entries(fields as Record<string, V<unknown>>)) {
      const dflt = (base as Record<string, unknown> | undefined)?.[k];
      properties[k] = { ...(f.schema ?? {}), ...(dflt !== undefined && (typeof dflt !== 'object' || dflt === null) ? { default: dflt } : {}) };
    }
    // Keys a base (the defaults) fills in are not required of the file.
    const req = required.filter((k) => (base as Record<string, unknown> | undefined)?.[k as string] === undefined).map(String);
    const schema: JsonSchema = { type: 'object', additionalProperties: false, properties, ...(req.length > 0 ? { required: req } : {}) };
    return withSchema((v, p) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(p, 'a mapping', v);
      const src = v as Record<string, unknown>;
      const keys = Object.keys(fields);
      for (const k of Object.keys(src)) {
        if (!keys.includes(k)) throw ConfigError.because(this.file, join(p, k), `unknown key; expected one of ${keys.join(', ')}`);
      }
      const out: Record<string, unknown> = { ...(base ?? {}) };
      for (const k of keys) {
        const val = src[k];
        if (val === undefined || val === null) {
          if (required.includes(k as keyof T) && out[k] === undefined) throw ConfigError.because(this.file, join(p, k), 'is required');
          continue;
        }
        out[k] = (fields as Record<string, V<unknown>>)[k](val, join(p, k));
      }
      return out as T;
    }, schema);
  }
}

/** The config error text of a username login would refuse. */
function usernameText(problem: string): string {
  return `${problem} (login's rule for usernames: this user could never log in)`;
}

/**
 * The users of a config handed to `new ExchangeCore` already merged (startExchange checks its
 * whole config with configFromValue), checked as a config file's are: a username login would
 * refuse is a ConfigError at `users[i].username`.
 */
export function checkConfiguredUsers(users: readonly ConfiguredUser[], file = ''): void {
  users.forEach((u, i) => {
    const problem = usernameProblem(u.username);
    if (problem !== undefined) throw ConfigError.because(file, `users[${i}].username`, usernameText(problem));
  });
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function buildValidator(c: Checker): V<ExchangeConfig> {
  const tier = c.obj<MarginTier>(
    { maxNotional: c.dec({ nonNegative: true }), maintenanceMarginRate: c.dec({ nonNegative: true }), maintenanceAmount: c.dec({ nonNegative: true }), maxLeverage: c.int(1, 1000) },
    ['maxNotional', 'maintenanceMarginRate', 'maintenanceAmount', 'maxLeverage'],
  );
  const symbolFields: { [K in keyof SymbolConfig]-?: V<SymbolConfig[K]> } = {
    symbol: withSchema((v, p) => (typeof v === 'string' && /^[A-Z0-9]{2,30}$/.test(v) ? v : c.fail(p, 'a symbol name of 2 to 30 capital letters and digits', v)), { type: 'string', pattern: '^[A-Z0-9]{2,30}$' }),
    baseAsset: c.str,
    quoteAsset: c.str,
    tickSize: c.dec({ positive: true }),
    stepSize: c.dec({ positive: true }),
    minQty: c.dec({ positive: true }),
    maxQty: c.dec({ positive: true }),
    minNotional: c.dec({ nonNegative: true }),
    maxLeverage: c.int(1, 1000),
    makerFee: c.dec({ signed: true }),
    takerFee: c.dec({ signed: true }),
    markPrice: c.dec({ positive: true }),
    fundingRate: c.dec({ signed: true }),
    fundingIntervalMs: c.int(60_000, 7 * 24 * 3600 * 1000),
    tiers: c.list(tier, 1),
  };
  const allSymbolKeys = Object.keys(symbolFields) as Array<keyof SymbolConfig>;
  // A symbol naming a default one needs only the fields it changes; a new one needs them all.
  const symbolSchema = { ...(c.obj<SymbolConfig>(symbolFields, []).schema ?? {}), required: ['symbol'], description: 'A symbol: a default one (BTCUSDT, ETHUSDT) changes only the fields given; a new one gives them all.' };
  const symbol: V<SymbolConfig> = withSchema((v, p) => {
    const name = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).symbol : undefined;
    const base = DEFAULT_CONFIG.symbols.find((s) => s.symbol === name);
    const s = c.obj<SymbolConfig>(symbolFields, allSymbolKeys, base ? { ...base, tiers: base.tiers.map((t) => ({ ...t })) } : undefined)(v, p);
    try {
      const spec = new SymbolSpec(s);
      if (spec.tick.toUnits(s.markPrice) === undefined) throw new RangeError(`markPrice ${s.markPrice} is not a multiple of tickSize ${s.tickSize}`);
    } catch (e) {
      throw ConfigError.because(c.file, p, e instanceof Error ? e.message.replace(`${s.symbol}: `, '') : String(e));
    }
    return s;
  }, symbolSchema);
  const apiKey = c.obj<ConfiguredApiKey>({ apiKey: c.str, secret: c.str, permissions: c.list(c.oneOf(PERMISSIONS), 1) }, ['apiKey', 'secret', 'permissions']);
  // The rule login applies: a configured user it would refuse could never log in.
  const username: V<string> = withSchema(
    (v, p) => {
      const problem = usernameProblem(v);
      if (problem !== undefined) throw ConfigError.because(c.file, p, usernameText(problem));
      return v as string;
    },
    { type: 'string', minLength: USERNAME.min, maxLength: USERNAME.max },
  );
  const user = c.obj<ConfiguredUser>(
    { username, password: c.str, balance: c.dec({ nonNegative: true }), positionMode: c.oneOf(POSITION_MODES), apiKeys: c.list(apiKey) },
    ['username', 'password', 'balance'],
  );
  const market: V<MarketMode> = withSchema(
    (v, p) => {
      if (v === 'off' || v === 'synthetic') return v;
      if (typeof v === 'string' && v.startsWith('replay:') && v.length > 'replay:'.length) return v as MarketMode;
      return c.fail(p, 'off, synthetic or replay:<file>', v);
    },
    { type: 'string', pattern: '^(off|synthetic|replay:.+)$', description: 'off, synthetic, or replay:<recording file>.' },
  );
  const optStr: V<string | undefined> = withSchema((v, p) => c.str(v, p), { type: 'string', minLength: 1 });
  const d = DEFAULT_CONFIG;
  return c.obj<Omit<ExchangeConfig, 'file'>>(
    {
      host: c.str,
      port: c.int(0, 65535),
      adminToken: optStr,
      market,
      seed: c.int(0, 2 ** 32 - 1),
      dataDir: optStr,
      fsync: c.bool,
      snapshotEvery: c.int(0),
      symbols: withSchema((v, p) => {
        const list = c.list(symbol, 1)(v, p);
        const seen = new Set<string>();
        list.forEach((s, i) => {
          if (seen.has(s.symbol)) throw ConfigError.because(c.file, `${p}[${i}].symbol`, `symbol ${s.symbol} is listed twice`);
          seen.add(s.symbol);
        });
        return list;
      }, c.list(symbol, 1).schema ?? {}),
      users: withSchema((v, p) => {
        const list = c.list(user)(v, p);
        const seen = new Set<string>();
        list.forEach((u, i) => {
          if (seen.has(u.username)) throw ConfigError.because(c.file, `${p}[${i}].username`, `username ${u.username} is listed twice`);
          seen.add(u.username);
        });
        return list;
      }, c.list(user).schema ?? {}),
      insuranceFund: c.dec({ nonNegative: true }),
      auth: c.obj<ExchangeConfig['auth']>({ accessTokenTtlMs: c.int(1000), refreshTokenTtlMs: c.int(1000), jwtSecret: optStr }, [], d.auth),
      rateLimits: c.obj<ExchangeConfig['rateLimits']>({ ordersPer10s: c.int(1), requestsPerMinute: c.int(1) }, [], d.rateLimits),
      limits: c.obj<ExchangeConfig['limits']>({ bodyBytes: c.int(1024, 64 * 1024 * 1024) }, [], d.limits),
      listenKey: c.obj<ExchangeConfig['listenKey']>({ ttlMs: c.int(1000), maxPerUser: c.int(1) }, [], d.listenKey),
      ws: c.obj<ExchangeConfig['ws']>({ pingIntervalMs: c.int(100), deadAfterMs: c.int(100) }, [], d.ws),
      version: c.str,
      // Fault injection: each entry as the body of POST /v1/admin/faults (without `on`).
      faults: c.list(
        withSchema(
          (v, p) => {
            try {
              return validateFaultSetting(v);
            } catch (e) {
              const field = e instanceof VenueError && e.field !== undefined ? `.${e.field}` : '';
              throw ConfigError.because(c.file, `${p}${field}`, e instanceof Error ? e.message : String(e));
            }
          },
          { type: 'object', description: 'A fault switched on from the start, as the body of POST /v1/admin/faults (docs/reliability.md).' },
        ),
      ),
    },
    [],
    { ...d, symbols: d.symbols.map((s) => ({ ...s, tiers: s.tiers.map((t) => ({ ...t })) })), users: [] },
  );
}

/** JSON Schema of the exchange config file, from the same validators (schema/exchange.json). */
export function exchangeConfigSchema(): JsonSchema {
  return buildValidator(new Checker('')).schema ?? {};
}

/**
 * Validates a config value (the YAML document as plain data, or the object given to
 * startExchange) and merges it over the defaults. `file` names where it came from in messages:
 * the file, or for a config given in code what it is (`startExchange config`).
 */
export function configFromValue(value: unknown, file: string): ExchangeConfig {
  const c = new Checker(file);
  if (value === null || value === undefined) value = {};
  return buildValidator(c)(value, '');
}

/** Parses YAML text and validates it. */
export function parseConfigText(text: string, file: string): ExchangeConfig {
  const parsed = parseConfigYaml(text);
  if ('problem' in parsed) throw textError(file, parsed.problem);
  try {
    return configFromValue(parsed.value, file);
  } catch (e) {
    // The same error, with the line of its key in the file.
    if (e instanceof ConfigError) throw e.locate(text);
    throw e;
  }
}

function textError(file: string, p: ConfigTextProblem): ConfigError {
  const e = new ConfigError(file, '', p.expected, p.got);
  return p.line === undefined ? e : e.placeAt(p.line, p.column);
}

/** Reads and validates a config file; a missing or unreadable file is a ConfigError too. */
export function loadConfigFile(file: string): ExchangeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw textError(file, { expected: 'a readable YAML file', got: unreadableText(e) });
  }
  return relativeTo(parseConfigText(text, file), path.dirname(path.resolve(file)));
}

/**
 * A config file's paths (`dataDir`, the file of `market: replay:<file>`) are relative to the file's
 * folder, as in backtest and bot configs: the same file works from any working directory.
 */
function relativeTo(cfg: ExchangeConfig, dir: string): ExchangeConfig {
  const out = { ...cfg };
  if (out.dataDir !== undefined) out.dataDir = path.resolve(dir, out.dataDir);
  if (out.market.startsWith('replay:')) out.market = `replay:${path.resolve(dir, out.market.slice('replay:'.length))}`;
  return out;
}
