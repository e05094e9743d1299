/**
 * Who may use the dashboard, and who did what: the bearer token check (constant time), the Host
 * check that keeps DNS-rebinding pages off a loopback dashboard, the header that makes actions
 * impossible to trigger from a cross-site form, and the "who" recorded with every action.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Compares tokens without leaking their length or content through timing. */
export function sameToken(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** The header every action request carries: a cross-site form cannot set it, and fetch from another origin needs a preflight this server never grants. */
export const ACTION_HEADER = 'x-perpkit-dashboard';

/** The operator's name as the page sends it (free text, shortened, printable ASCII only). */
export const OPERATOR_HEADER = 'x-perpkit-operator';

export interface Actor {
  remote: string;
  operator: string | undefined;
  auth: 'token' | 'none';
}

export function actorOf(req: IncomingMessage, auth: Actor['auth']): Actor {
  const raw = req.headers[OPERATOR_HEADER];
  const name = typeof raw === 'string' ? raw.replace(/[^\x20-\x7e]/g, '').trim().slice(0, 40) : '';
  return { remote: req.socket.remoteAddress ?? 'unknown', operator: name === '' ? undefined : name, auth };
}

export function actorText(a: Actor): string {
  return `${a.operator ?? 'someone'} from ${a.remote}${a.auth === 'token' ? ' (token)' : ''}`;
}

export type AuthOutcome = { ok: true; auth: Actor['auth'] } | { ok: false; status: number; error: string };

/**
 * Checks a request to the API: the Host header (when no token protects the dashboard, only
 * loopback names are accepted) and the bearer token (when one is configured).
 */
export function authorize(req: IncomingMessage, token: string | undefined): AuthOutcome {
  if (token === undefined) {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!(host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))) {
      return { ok: false, status: 403, error: `Host '${host.slice(0, 60)}' refused: a dashboard without a token answers only to loopback names (127.0.0.1, localhost, [::1])` };
    }
    return { ok: true, auth: 'none' };
  }
  const h = req.headers.authorization ?? '';
  const given = h.startsWith('Bearer ') ? h.slice(7) : '';
  if (given === '' || !sameToken(given, token)) {
    return { ok: false, status: 401, error: given === '' ? 'this dashboard needs a token: Authorization: Bearer <the value of the variable http.dashboard.tokenEnv names>' : 'wrong token' };
  }
  return { ok: true, auth: 'token' };
}
