/**
 * The `http.dashboard` key of the bot config, kept apart from the rest of the schema.
 *
 * ```yaml
 * http:
 *   host: 127.0.0.1
 *   port: 9464
 *   dashboard: true                 # loopback only, no token
 *   # dashboard: { tokenEnv: DASHBOARD_TOKEN }   # a bearer token from this variable
 * ```
 *
 * Off unless the key is there. A dashboard can pause strategies and engage the kill switch, so
 * one reachable from other machines without a token is refused: bound to anything but a loopback
 * address it needs `tokenEnv`, and so it does when `killTokenEnv` protects the kill switch.
 */
import { ConfigError, describeValue, isRecord } from '../../core/config-errors';

export interface DashboardConfig {
  /** Environment variable holding the bearer token; undefined: no token (loopback only). */
  tokenEnv: string | undefined;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Validates `http.dashboard`; `fail` throws the config's own error type. */
export function parseDashboardConfig(v: unknown, host: string, killTokenEnv: string | undefined, file: string, fail: (file: string, at: string, expected: string, got: string) => ConfigError): DashboardConfig | undefined {
  const at = 'http.dashboard';
  if (v === undefined || v === false) return undefined;
  let tokenEnv: string | undefined;
  if (v === true) tokenEnv = undefined;
  else if (isRecord(v)) {
    for (const k of Object.keys(v)) if (k !== 'tokenEnv') throw fail(file, `${at}.${k}`, 'one of the known keys tokenEnv', `unknown key '${k}'`);
    if (v.tokenEnv !== undefined && (typeof v.tokenEnv !== 'string' || !ENV_NAME.test(v.tokenEnv))) throw fail(file, `${at}.tokenEnv`, 'the name of an environment variable (letters, digits, _)', describeValue(v.tokenEnv));
    tokenEnv = v.tokenEnv as string | undefined;
  } else throw fail(file, at, 'true, false or { tokenEnv: NAME }', describeValue(v));
  if (tokenEnv === undefined && !isLoopbackHost(host)) {
    throw fail(file, `${at}.tokenEnv`, `a token variable, since http.host ${host} is not a loopback address (the dashboard can pause strategies and engage the kill switch)`, 'no tokenEnv');
  }
  // The dashboard can engage the kill switch: it must not be the way around a kill token.
  if (tokenEnv === undefined && killTokenEnv !== undefined) {
    throw fail(file, `${at}.tokenEnv`, `a token variable, since http.killTokenEnv (${killTokenEnv}) protects the kill switch and the dashboard can engage it`, 'no tokenEnv');
  }
  return { tokenEnv };
}
