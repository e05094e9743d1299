/**
 * The bot config file (`perpkit run`), described once: the loader (config.ts) takes its keys,
 * ranges and defaults from here, and schema/bot.json is generated from it. A new section is a
 * new entry of BOT_SECTIONS (and its reading in config.ts).
 */
import { Type } from '../core/typebox';
import type { Static } from '@sinclair/typebox';
import { c } from '../core/config-schema';
import { LOG_LEVELS } from '../core/log';
import { RISK, STRATEGY } from '../bot/config-schema';

export { RISK, STRATEGY };

export const AUTH_PASSWORD = c.object({ username: c.string(), passwordEnv: c.envName({ description: 'Environment variable holding the password.' }) }, { description: 'JWT login.', required: ['username', 'passwordEnv'] });
export const AUTH_API_KEY = c.object(
  { apiKeyEnv: c.envName({ description: 'Environment variable holding the API key.' }), secretEnv: c.envName({ description: 'Environment variable holding the API secret.' }) },
  { description: 'API-key signing.', required: ['apiKeyEnv', 'secretEnv'] },
);
const auth = Type.Union([AUTH_PASSWORD, AUTH_API_KEY], { description: 'How the bot logs in; secrets are read from the environment variables named here.' });

export const STRATEGY_ERRORS = c.object({ maxErrors: c.int(1, 1_000_000, { default: 10 }), windowMs: c.int(1, 86_400_000, { default: 60_000 }) });

export const NOTIFY_TARGET = c.object({ kind: c.oneOf(['webhook', 'slack', 'telegram'] as const), urlEnv: c.envName(), chatIdEnv: c.envName({ description: 'Telegram only.' }) }, { required: ['kind', 'urlEnv'] });

export const NOTIFY = c.object(
  {
    targets: c.list(NOTIFY_TARGET, { minItems: 1 }),
    minIntervalMs: c.int(0, 86_400_000, { default: 60_000, description: 'Least time between two alerts of one kind, ms.' }),
    venueUnreachableMs: c.int(100, 86_400_000, { default: 30_000 }),
    streamDownMs: c.int(100, 86_400_000, { default: 30_000 }),
    dailyLossWarnFraction: c.number({ exclusiveMinimum: 0, maximum: 1, default: 0.8 }),
  },
  { description: 'Alerts to webhooks, Slack or Telegram.', required: ['targets'] },
);

export const HTTP = c.object(
  {
    host: c.string({ default: '127.0.0.1' }),
    port: c.int(0, 65535, { default: 9464 }),
    killTokenEnv: c.envName(),
    // Validated by src/runtime/dashboard/config.ts; described here for editors.
    dashboard: Type.Union([Type.Boolean(), c.object({ tokenEnv: c.envName({ description: 'Environment variable holding the bearer token (required when host is not loopback).' }) })], {
      description: 'Serve the web dashboard on this port (off by default); true, or { tokenEnv } for a bearer token.',
    }),
  },
  { description: 'Health, metrics, kill endpoints and the dashboard.' },
);

/** Heartbeat of the venue's streams; the SDK's defaults. ping + pong bounds how long a half-open connection goes unnoticed. */
export const VENUE_STREAM = c.object(
  {
    pingIntervalMs: c.int(1000, 600_000, { default: 20_000, description: 'Ping the venue this long after the last frame from it, on both streams, ms.' }),
    pongTimeoutMs: c.int(500, 600_000, { default: 10_000, description: 'No pong or other frame this long after a ping: the connection is dead and is replaced, ms.' }),
    silenceTimeoutMs: c.int(1000, 86_400_000, { default: 60_000, description: 'No private event this long while orders work: reconcile over REST, ms.' }),
  },
  { description: "Heartbeat of the venue's streams: a half-open connection is noticed within pingIntervalMs + pongTimeoutMs." },
);

/** The sections of the file, in the order the docs list them. */
export const BOT_SECTIONS = {
  venue: c.object(
    {
      baseUrl: c.string({ pattern: '^https?://[^/\\s]+/?$', description: 'Origin of the venue, such as http://127.0.0.1:8080.' }),
      auth,
      stream: VENUE_STREAM,
    },
    { required: ['baseUrl', 'auth'] },
  ),
  strategies: c.list(STRATEGY, { minItems: 1 }),
  risk: RISK,
  pollPositionsMs: c.int(0, 3_600_000, { default: 5000, description: 'Poll positions this often to catch a missed stream update (0: never), ms.' }),
  marketDataStaleMs: c.int(0, 86_400_000, { default: 60_000, description: "No market data for a strategy's symbol for longer than this makes /healthz degraded and logs a warning, ms (0: never)." }),
  cancelOnStop: c.bool({ default: true, description: "Cancel the bot's orders on a graceful stop." }),
  flattenOnStop: c.bool({ default: false, description: 'Close every position with reduce-only market orders on a graceful stop.' }),
  strategyErrors: Type.Union([Type.Literal(false), STRATEGY_ERRORS], { description: 'A strategy throwing maxErrors times within windowMs is stopped; false: never.' }),
  notify: NOTIFY,
  stateFile: c.string({ description: 'Where state survives a restart, relative to this file.' }),
  stateSaveMs: c.int(100, 3_600_000, { default: 10_000 }),
  http: HTTP,
  killSwitch: c.bool({ default: false, description: 'Start HALTED: reconcile and watch, send nothing but cancels.' }),
  stopTimeoutMs: c.int(100, 600_000, { default: 4000 }),
  logging: c.object({ level: c.oneOf(LOG_LEVELS, { default: 'info' }) }),
};

export const BOT_CONFIG = c.object(BOT_SECTIONS, { required: ['venue', 'strategies'] });

/** A bot config file as written (before defaults), typed from the schema. */
export type BotConfigFile = Static<typeof BOT_CONFIG>;
