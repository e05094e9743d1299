import { parsePublicServerMessage } from '../../../../src/protocol/ws';
import { startWorld, until, type Client, type Json, type World } from './harness';

const data = (m: Json): Record<string, unknown> => m.data as Record<string, unknown>;
const isPush = (event: string) => (m: Json): boolean => m.event === event;

describe('ws public stream', () => {
  let w: World;
  let p: Client;

  beforeEach(async () => {
    w = await startWorld({ gateway: { tickerIntervalMs: 300 } });
    await w.createUser('a');
    await w.createUser('b');
    p = await w.connect(w.publicUrl());
  });
  afterEach(() => w.close());

  const subscribe = async (c: Client, ...args: string[]): Promise<void> => {
    c.send({ op: 'subscribe', args });
    expect(await c.next((m) => 'success' in m)).toEqual({ op: 'subscribe', success: true, args });
  };

  it('trade: one push per engine trade, to every subscriber, the same bytes', async () => {
    const q = await w.connect(w.publicUrl());
    await subscribe(p, 'trade:BTCUSDT');
    await subscribe(q, 'trade:BTCUSDT', 'trade:ETHUSDT');
    await w.place('a', { side: 'SELL', price: '50000', quantity: '0.5' });
    await w.place('a', { side: 'SELL', price: '50001', quantity: '0.5' });
    await w.place('b', { side: 'BUY', price: '50001', quantity: '1' });
    const [t1, t2] = [await p.next(), await p.next()];
    expect(t1).toMatchObject({ event: 'trade', symbol: 'BTCUSDT', data: { price: '50000', quantity: '0.5', side: 'BUY' } });
    expect(t2).toMatchObject({ event: 'trade', symbol: 'BTCUSDT', data: { price: '50001', quantity: '0.5', side: 'BUY' } });
    expect(data(t1).tradeId).not.toBe(data(t2).tradeId);
    expect(t1.eventTime).toBe(data(t1).time);
    expect(parsePublicServerMessage(JSON.stringify(t1)).ok).toBe(true);
    expect(await q.take(2)).toEqual([t1, t2]);
  });

  it('markPrice: pushed per mark price change with index, funding rate and next funding time', async () => {
    await subscribe(p, 'markPrice:BTCUSDT');
    await w.exec({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50500' });
    const m = await p.next();
    expect(m).toMatchObject({ event: 'markPrice', symbol: 'BTCUSDT', data: { markPrice: '50500', indexPrice: '50500' } });
    expect(typeof data(m).fundingRate).toBe('string');
    expect(data(m).nextFundingTime).toBeGreaterThan(Date.now() - 1000);
    await w.exec({ k: 'setMarkPrice', symbol: 'ETHUSDT', markPrice: '3100' });
    await w.exec({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50600' });
    expect(await p.next()).toMatchObject({ symbol: 'BTCUSDT', data: { markPrice: '50600' } });
  });

  it('depth: snapshot on subscribe, then a coalesced top-20 snapshot after book changes', async () => {
    await subscribe(p, 'depth:BTCUSDT');
    expect(await p.next()).toMatchObject({ event: 'depth', symbol: 'BTCUSDT', data: { bids: [], asks: [] } });
    await w.place('a', { side: 'BUY', price: '49000' });
    expect(data(await p.next(isPush('depth')))).toEqual({ bids: [['49000', '1']], asks: [] });

    // A burst of 30 changes becomes a few snapshots (at most one per 100 ms), ending in the final book.
    const started = Date.now();
    for (let i = 0; i < 30; i++) await w.place('a', { side: 'SELL', price: String(51000 + i), quantity: '0.1' });
    const elapsed = Date.now() - started;
    const final = w.core.engine.depth('BTCUSDT', 20);
    const last = await p.next((m) => m.event === 'depth' && (data(m).asks as unknown[]).length === 20);
    expect(data(last)).toEqual({ bids: final.bids, asks: final.asks });
    expect((data(last).asks as string[][])[0]).toEqual(['51000', '0.1']);
    await new Promise((r) => setTimeout(r, 150));
    const pushes = p.messages.filter(isPush('depth')).length - 2;
    expect(pushes).toBeGreaterThanOrEqual(1);
    expect(pushes).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
    const times = p.messages.filter(isPush('depth')).slice(2).map((m) => m.eventTime as number);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(95);

    // a cancel changes the book too
    const o = await w.place('a', { side: 'BUY', price: '48000' });
    await p.next((m) => m.event === 'depth' && (data(m).bids as unknown[]).length === 2);
    await w.exec({ k: 'cancelOrder', userId: 'a', ref: { symbol: 'BTCUSDT', orderId: o.orderId } });
    expect(data(await p.next((m) => m.event === 'depth' && (data(m).bids as unknown[]).length === 1)).bids).toEqual([['49000', '1']]);
  });

  it('ticker: on subscribe, then at most once per interval after a change', async () => {
    await subscribe(p, 'ticker:BTCUSDT');
    const first = await p.next();
    expect(first).toMatchObject({ event: 'ticker', symbol: 'BTCUSDT', data: { lastPrice: '0', markPrice: '50000', bestBid: '0', bestAsk: '0', volume: '0' } });
    expect(Object.keys(data(first)).sort()).toEqual(['bestAsk', 'bestBid', 'high', 'low', 'lastPrice', 'markPrice', 'openPrice', 'priceChangePercent', 'quoteVolume', 'volume'].sort());
    await w.place('a', { side: 'SELL', price: '50000', quantity: '2' });
    await w.place('b', { side: 'BUY', price: '50000', quantity: '1' });
    await w.place('b', { side: 'BUY', price: '49000', quantity: '1' });
    const t = await p.next((m) => m.event === 'ticker' && data(m).bestBid === '49000');
    expect(data(t)).toMatchObject({ lastPrice: '50000', bestAsk: '50000', volume: '1', quoteVolume: '50000', high: '50000', low: '50000' });
    await new Promise((r) => setTimeout(r, 400));
    const tickers = p.messages.filter(isPush('ticker')).map((m) => m.eventTime as number);
    for (let i = 2; i < tickers.length; i++) expect(tickers[i] - tickers[i - 1]).toBeGreaterThanOrEqual(295);
  });

  it('unsubscribe stops pushes of that topic only', async () => {
    await subscribe(p, 'trade:BTCUSDT', 'markPrice:BTCUSDT');
    p.send({ op: 'unsubscribe', args: ['trade:BTCUSDT'] });
    expect(await p.next()).toEqual({ op: 'unsubscribe', success: true, args: ['trade:BTCUSDT'] });
    await w.place('a', { side: 'SELL', price: '50000' });
    await w.place('b', { side: 'BUY', price: '50000' });
    await w.exec({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50100' });
    // markPrice comes after the trade: had the trade been pushed, it would be here first.
    expect(await p.next()).toMatchObject({ event: 'markPrice' });
    expect(p.messages.some(isPush('trade'))).toBe(false);
    expect(w.gateway.stats().publicSubscriptions).toBe(1);
    // unsubscribing what one never had is fine
    p.send({ op: 'unsubscribe', args: ['depth:ETHUSDT'] });
    expect(await p.next()).toMatchObject({ op: 'unsubscribe', success: true });
  });

  it('bad frames get a nack and the connection stays usable; oversized frames close it (1009)', async () => {
    const bad: Array<[unknown, number]> = [
      ['not json', 10005],
      ['[1,2]', 10005],
      ['"subscribe"', 10005],
      [{ op: 'sub', args: ['trade:BTCUSDT'] }, 10004],
      [{ op: 'subscribe' }, 10002],
      [{ args: ['trade:BTCUSDT'] }, 10002],
      [{ op: 'subscribe', args: [] }, 10001],
      [{ op: 'subscribe', args: 'trade:BTCUSDT' }, 10001],
      [{ op: 'subscribe', args: ['candles:BTCUSDT'] }, 10001],
      [{ op: 'subscribe', args: [42] }, 10001],
      [{ op: 'subscribe', args: ['trade:BTCUSDT'], id: 1 }, 10001],
      [{ op: 'subscribe', args: Array.from({ length: 51 }, () => 'trade:BTCUSDT') }, 10001],
    ];
    for (const [frame, code] of bad) {
      p.send(frame);
      const nack = await p.next();
      expect(nack).toMatchObject({ success: false, code });
      expect(typeof nack.message).toBe('string');
    }
    p.send({ op: 'subscribe', args: ['trade:BTCUSDT', 'depth:NOPEUSDT'] });
    expect(await p.next()).toMatchObject({ op: 'subscribe', success: false, code: 10003, args: ['depth:NOPEUSDT'] });
    expect(w.gateway.stats().publicSubscriptions).toBe(0);
    p.ws.send(Buffer.from([0x00, 0xff, 0x13, 0x37]), { binary: true });
    expect(await p.next()).toMatchObject({ success: false, code: 10005 });
    p.ws.send(Buffer.from('{"op":"subscribe","args":["trade:BTCUSDT"]}'), { binary: true });
    expect(await p.next()).toMatchObject({ success: false, code: 10005 });
    await subscribe(p, 'trade:BTCUSDT');
    p.send('x'.repeat(9000));
    expect((await p.closed).code).toBe(1009);
    await until(() => w.gateway.connectionCount === 0);
    expect(w.gateway.stats().publicSubscriptions).toBe(0);
  });
});
