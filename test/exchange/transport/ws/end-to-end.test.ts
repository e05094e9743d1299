/**
 * The gateway as the exchange server wires it: listenKey over REST, orders over REST, events over
 * the private stream, market data over the public stream, all on one loopback port.
 */
import { startTestExchange, type TestExchange } from '../../../helpers/exchange';
import { Client, refusedUpgrade } from './harness';

describe('ws through the exchange server', () => {
  let ex: TestExchange;
  const clients: Client[] = [];
  const wsUrl = (path: string): string => `${ex.url.replace(/^http/, 'ws')}${path}`;
  const open = async (path: string): Promise<Client> => {
    const c = await Client.open(wsUrl(path));
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    ex = await startTestExchange();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await ex.stop();
  });

  it('listenKey via REST, order events on the private stream, depth on the public one, DELETE ends the stream', async () => {
    const u = await ex.createUser();
    const { accessToken: token } = await ex.login(u.username, u.password);
    const lk = await ex.call<{ listenKey: string; expireAt: number }>('POST', '/v1/private/user/listen-key', { token });
    expect(lk.body.code).toBe(0);
    const listenKey = lk.body.data.listenKey;
    const priv = await open(`/v1/ws/private?listenKey=${encodeURIComponent(listenKey)}`);
    const pub = await open('/v1/ws/public');
    pub.send({ op: 'subscribe', args: ['depth:BTCUSDT'] });
    expect(await pub.next()).toEqual({ op: 'subscribe', success: true, args: ['depth:BTCUSDT'] });
    expect(await pub.next()).toMatchObject({ event: 'depth', data: { bids: [], asks: [] } });

    const placed = await ex.call<{ orderId: string }>('POST', '/v1/private/order/place', {
      token,
      body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.01', timeInForce: 'GTC' },
    });
    expect(placed.body.code).toBe(0);
    expect(await priv.next()).toMatchObject({ event: 'ORDER_TRADE_UPDATE', seq: 1, data: { orderId: placed.body.data.orderId, executionType: 'NEW', status: 'NEW' } });
    expect(await pub.next()).toMatchObject({ event: 'depth', data: { bids: [['49000', '0.01']] } });

    expect((await ex.call('DELETE', '/v1/private/user/listen-key', { token, body: { listenKey } })).body.code).toBe(0);
    expect(await priv.next()).toMatchObject({ event: 'LISTEN_KEY_EXPIRED', seq: 2, data: { listenKey } });
    expect((await priv.closed).code).toBe(4001);
    const refused = await refusedUpgrade(wsUrl(`/v1/ws/private?listenKey=${encodeURIComponent(listenKey)}`));
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 20008 });
  });

  it('stopping the server closes streams with 1001', async () => {
    const pub = await open('/v1/ws/public');
    await ex.stop();
    expect((await pub.closed).code).toBe(1001);
  });
});
