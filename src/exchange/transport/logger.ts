/**
 * The server's logger: pino, with every place a secret could sit redacted, whether or not the
 * injected logger was configured for it. Request logs are built field by field (never a raw
 * headers or body object); redaction is the second line of defence.
 */
import pino, { type Logger } from 'pino';
import { componentLogger } from '../../core/log';

export const REDACT_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers["x-signature"]',
  'headers["x-admin-token"]',
  '*.password',
  '*.passwordHash',
  '*.secret',
  '*.accessToken',
  '*.refreshToken',
  '*.token',
  '*.ticket',
  '*.embedToken',
  '*.listenKey',
  'password',
  'secret',
  'accessToken',
  'refreshToken',
  'ticket',
  'embedToken',
  'listenKey',
];

/** The logger of one part of the server (`exchange-http`, `ws-gateway`), with the secrets redacted. */
export function serverLogger(parent: Logger | undefined, component = 'exchange-http'): Logger {
  const base = parent ?? pino({ level: 'silent' });
  return componentLogger(base, component, { redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}

/** A request target safe to log: query values that are credentials are replaced. */
export function loggableUrl(path: string, rawQuery: string): string {
  if (rawQuery.length === 0) return path;
  const q = new URLSearchParams(rawQuery);
  for (const k of [...q.keys()]) if (/listenkey|token|signature|secret|password/i.test(k)) q.set(k, '[redacted]');
  return `${path}?${q.toString()}`;
}
