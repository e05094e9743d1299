/**
 * The SDK's logger: pino, structured, with every secret redacted wherever it sits in a log
 * object (API secret, signatures, tokens, cookies, listenKeys). Users pass their own pino logger;
 * it is wrapped in a child that carries the same redaction.
 */
import pino, { type Logger } from 'pino';
import { componentLogger } from '../core/log';

/** Field names that are never logged in clear, at any of the depths we log them. */
export const SECRET_FIELDS = [
  'secret',
  'apiSecret',
  'signature',
  'accessToken',
  'refreshToken',
  'token',
  'cookie',
  'listenKey',
  'password',
  'ticket',
  'embedToken',
  'authorization',
  'x-signature',
  'x-api-key',
  'set-cookie',
];

export const REDACT_PATHS: string[] = SECRET_FIELDS.flatMap((f) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(f) ? f : `["${f}"]`;
  const dot = key.startsWith('[') ? key : `.${key}`;
  return [key, `*${dot}`, `*.*${dot}`];
});

export function createClientLogger(base?: Logger): Logger {
  const redact = { paths: REDACT_PATHS, censor: '[redacted]' };
  if (base !== undefined) return componentLogger(base, 'perpkit-client', { redact });
  return pino({ name: 'perpkit-client', level: 'silent', redact });
}
