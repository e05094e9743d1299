/**
 * Configuration of the local exchange. `config/exchange.yaml` holds the defaults; a user's YAML
 * file and the command line override them (docs/local-exchange.md is the reference).
 */
import type { Permission, PositionMode } from '../../core/enums';
import type { FaultSetting } from '../../protocol/rest/admin';
import { DEFAULT_SYMBOLS, type SymbolConfig } from '../engine/symbols';

export type MarketMode = 'off' | 'synthetic' | `replay:${string}`;

export interface ConfiguredApiKey {
  apiKey: string;
  secret: string;
  permissions: Permission[];
}

export interface ConfiguredUser {
  username: string;
  password: string;
  balance: string;
  positionMode?: PositionMode;
  apiKeys?: ConfiguredApiKey[];
}

export interface ExchangeConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Without a token the admin API does not exist (10006). */
  adminToken: string | undefined;
  market: MarketMode;
  /** Seed of the synthetic market. */
  seed: number;
  /** Where the journal and snapshots live; undefined keeps state in memory only. */
  dataDir: string | undefined;
  /** fdatasync the journal before answering (power-loss safe) rather than only write it (process-crash safe). */
  fsync: boolean;
  /** Snapshot after this many journaled commands (0: only at shutdown). */
  snapshotEvery: number;
  symbols: SymbolConfig[];
  users: ConfiguredUser[];
  insuranceFund: string;
  auth: {
    accessTokenTtlMs: number;
    refreshTokenTtlMs: number;
    /** HMAC key for access tokens; random per start when absent (tokens then die with the process). */
    jwtSecret: string | undefined;
  };
  rateLimits: {
    /** Order requests (place, cancel, amend, batches) per user per 10 s. */
    ordersPer10s: number;
    /** All requests per user per minute. */
    requestsPerMinute: number;
  };
  limits: {
    /** Largest request body accepted, bytes. */
    bodyBytes: number;
  };
  listenKey: {
    ttlMs: number;
    maxPerUser: number;
  };
  ws: {
    pingIntervalMs: number;
    /** A connection that has not answered a ping for this long is closed. */
    deadAfterMs: number;
  };
  /** Prefix of the version string returned by GET /v1/version. */
  version: string;
  /** Fault-injection switches on from the start (faults.ts, docs/reliability.md); normally empty. */
  faults: FaultSetting[];
  /** The config file it came from (messages name it): set by `perpkit exchange --config`; absent otherwise. */
  file?: string;
}

/**
 * A symbol as a config gives it: one naming a default symbol (BTCUSDT, ETHUSDT) needs only the
 * fields it changes, merged over that symbol; a new one needs them all (refused at start if not).
 */
export type SymbolConfigOverride = Partial<SymbolConfig> & Pick<SymbolConfig, 'symbol'>;

/**
 * The config a user gives, in a YAML file (`perpkit exchange --config`) or to `startExchange`:
 * every key optional, merged over DEFAULT_CONFIG by the config file's rules (config-file.ts):
 * nested groups (auth, rateLimits, ...) field by field, `symbols` entry by entry over the default
 * of the same name. `ExchangeConfig` is the merged result.
 */
export type ExchangeConfigOverrides = {
  [K in Exclude<keyof ExchangeConfig, 'file'>]?: K extends 'symbols'
    ? SymbolConfigOverride[]
    : ExchangeConfig[K] extends readonly unknown[]
      ? ExchangeConfig[K]
      : ExchangeConfig[K] extends object
        ? Partial<ExchangeConfig[K]>
        : ExchangeConfig[K];
};

export const DEFAULT_CONFIG: ExchangeConfig = {
  host: '127.0.0.1',
  port: 8080,
  adminToken: undefined,
  market: 'off',
  seed: 1,
  dataDir: undefined,
  fsync: false,
  snapshotEvery: 100000,
  symbols: DEFAULT_SYMBOLS.map((s) => ({ ...s, tiers: s.tiers.map((t) => ({ ...t })) })),
  users: [],
  insuranceFund: '1000000',
  auth: { accessTokenTtlMs: 15 * 60 * 1000, refreshTokenTtlMs: 7 * 24 * 60 * 60 * 1000, jwtSecret: undefined },
  rateLimits: { ordersPer10s: 300, requestsPerMinute: 2400 },
  limits: { bodyBytes: 256 * 1024 },
  listenKey: { ttlMs: 60 * 60 * 1000, maxPerUser: 10 },
  ws: { pingIntervalMs: 20000, deadAfterMs: 60000 },
  version: '0.1.0',
  faults: [],
};
