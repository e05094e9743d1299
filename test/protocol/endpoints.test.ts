import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ENDPOINTS, ENDPOINT_NAMES, findEndpoint, type ParamsOf, type RequestOf, type ResponseOf } from '../../src/protocol';

/**
 * The shared spec sits beside the repository in the workspace. Where it is absent (a user's
 * clone), the routes extracted from it are checked in as test/fixtures/spec-routes.txt; where it
 * is present, that file must still match it, so the fixture cannot go stale.
 */
const specPath = path.resolve(__dirname, '../../../shared/SERVICE_SPEC.md');
const fixturePath = path.resolve(__dirname, '../fixtures/spec-routes.txt');
const ROUTE_RE = /\b(GET|POST|PUT|DELETE) (\/v1\/[A-Za-z0-9/_-]+)/g;
const fixtureRoutes = readFileSync(fixturePath, 'utf8').split('\n').filter((l) => l !== '');
const specText = existsSync(specPath) ? readFileSync(specPath, 'utf8') : fixtureRoutes.join('\n');

describe('endpoint registry', () => {
  const spec = ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].spec);

  it('holds exactly the 42 endpoints of SERVICE_SPEC.md, each with a validator', () => {
    expect(spec).toHaveLength(42);
    for (const n of ENDPOINT_NAMES) expect(typeof ENDPOINTS[n].validate).toBe('function');
  });

  it('groups them as the spec does: orders 17, positions 5, user and account 13, public 7', () => {
    const count = (g: string): number => spec.filter((n) => ENDPOINTS[n].group === g).length;
    expect([count('orders'), count('positions'), count('user'), count('public')]).toEqual([17, 5, 13, 7]);
  });

  it('the checked-in route list matches SERVICE_SPEC.md', () => {
    const fromSpec = [...new Set([...specText.matchAll(ROUTE_RE)].map((m) => `${m[1]} ${m[2]}`))].sort();
    expect(fromSpec).toEqual([...fixtureRoutes].sort());
  });

  it('every spec endpoint appears in SERVICE_SPEC.md as METHOD path', () => {
    for (const n of spec) {
      const { method, path: p } = ENDPOINTS[n];
      expect(specText.includes(`${method} ${p}`) || specText.includes(`${method} {base_url}${p}`)).toBe(true);
    }
  });

  it('every METHOD /v1/... of SERVICE_SPEC.md is registered', () => {
    const found = new Set<string>();
    for (const m of specText.matchAll(ROUTE_RE)) found.add(`${m[1]} ${m[2]}`);
    const registered = new Set(spec.map((n) => `${ENDPOINTS[n].method} ${ENDPOINTS[n].path}`));
    expect([...found].filter((r) => !registered.has(r))).toEqual([]);
    expect(found.size).toBe(42);
  });

  it('routes are unique and found by method and path', () => {
    const routes = ENDPOINT_NAMES.map((n) => `${ENDPOINTS[n].method} ${ENDPOINTS[n].path}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect(findEndpoint('DELETE', '/v1/private/user/listen-key')).toBe('closeListenKey');
    expect(findEndpoint('GET', '/v1/private/order')).toBe('getOrder');
    expect(findEndpoint('GET', '/v1/private/order/place')).toBeUndefined();
  });

  it.each(ENDPOINT_NAMES.map((n) => [n]))('%s: auth and permission follow PROTOCOL.md section 2', (n) => {
    const e = ENDPOINTS[n];
    if (e.group === 'orders' || e.group === 'positions') expect([e.auth, e.permission]).toEqual(['private', 'TRADE']);
    else if (e.group === 'user') expect([e.auth, e.permission]).toEqual(['private', 'READ']);
    // Admin endpoints change things (POST), except the read-out of the fault switches.
    else if (e.group === 'admin') expect([e.auth, e.permission, e.method]).toEqual(['admin', undefined, n === 'adminGetFaults' ? 'GET' : 'POST']);
    else expect(e.permission).toBeUndefined();
    if (e.method === 'GET') expect(e.input).not.toBe('body');
    expect(e.path.startsWith('/v1/')).toBe(true);
  });

  it('only the leaderboard takes optional authentication', () => {
    expect(ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].auth === 'optional')).toEqual(['getLeaderboard']);
  });

  it('carries request and response types a client can use', () => {
    const params: ParamsOf<'placeOrder'> = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.01' };
    const req: RequestOf<'placeOrder'> = ENDPOINTS.placeOrder.validate(params);
    const res: ResponseOf<'getTime'> = { serverTime: 1 };
    expect(req.timeInForce).toBe('GTC');
    expect(res.serverTime).toBe(1);
  });
});
