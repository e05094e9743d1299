/**
 * Error messages over real HTTP: each names the field, the rule and what was found (DESIGN.md
 * "Errors say what was wrong and what was expected"), for the cases where a generic reader message
 * used to hide the rule.
 */
import { startTestExchange, type TestExchange } from '../../helpers/exchange';

let ex: TestExchange;
let token: string;

beforeAll(async () => {
  ex = await startTestExchange();
  const u = await ex.createUser();
  token = (await ex.login(u.username, u.password)).accessToken;
});
afterAll(() => ex.stop());

describe('integer-code fields given something that is not an integer', () => {
  it('a history filter sent as a name lists the allowed codes (10001)', async () => {
    const r = await ex.call('GET', '/v1/private/order/history', { token, query: { type: 'LIMIT' } });
    expect([r.status, r.body.code]).toEqual([400, 10001]);
    expect(r.body.message).toBe('type must be one of 1, 2 (an integer code); got "LIMIT"');
  });

  it('a body code sent as a string lists the allowed codes (10001)', async () => {
    const r = await ex.call('POST', '/v1/private/position/margin-mode', { token, body: { symbol: 'BTCUSDT', marginMode: 'ISOLATED' } });
    expect([r.status, r.body.code]).toEqual([400, 10001]);
    expect(r.body.message).toBe('marginMode must be a JSON integer, one of 1, 2; got string "ISOLATED"');
  });

  it('a well-formed integer outside the set is still 10004', async () => {
    const r = await ex.call('POST', '/v1/private/order/batch-cancel-all', { token, body: { cancelType: 3 } });
    expect([r.status, r.body.code]).toEqual([400, 10004]);
    expect(r.body.message).toBe('cancelType must be one of 0, 1, 2; got 3');
  });
});

describe('a body endpoint called without a body', () => {
  it('says the body is missing and what it should hold (10005), not "got undefined"', async () => {
    const r = await ex.call('PUT', '/v1/private/user/listen-key', { token });
    expect([r.status, r.body.code]).toEqual([400, 10005]);
    expect(r.body.message).toBe('request body is missing; expected a JSON object with fields listenKey');
  });

  it('a body that is present but not an object keeps naming its type', async () => {
    const r = await ex.call('PUT', '/v1/private/user/listen-key', { token, body: '[]' });
    expect(r.body.message).toBe('request body must be a JSON object, got array');
  });
});
