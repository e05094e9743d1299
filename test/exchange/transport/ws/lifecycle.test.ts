import { refusedUpgrade, startWorld, until, type World } from './harness';

describe('ws heartbeat, cleanup and shutdown', () => {
  let w: World;
  afterEach(() => w.close());

  // deadAfterMs 600, not 150: under a full test run (two jest workers on two cores) an event-loop
  // stall past 150 ms cut the healthy clients too. The bounds leave 400 ms for such a stall.
  it('pings every pingIntervalMs; a client that never answers is cut within deadAfterMs, healthy ones stay', async () => {
    w = await startWorld({ ws: { pingIntervalMs: 100, deadAfterMs: 600 } });
    await w.createUser('a');
    const healthy = await w.connect(w.publicUrl());
    const healthyPrivate = await w.connect(w.privateUrl(w.listenKeys.create('a').listenKey));
    w.gateway.silence('a', true); // silenced streams still answer pings
    let pings = 0;
    healthy.ws.on('ping', () => pings++);
    const opened = Date.now();
    const mute = await w.connect(w.publicUrl(), { autoPong: false });
    const closed = await mute.closed;
    const lived = Date.now() - opened;
    expect(closed.code).toBe(1006);
    expect(lived).toBeGreaterThanOrEqual(590);
    expect(lived).toBeLessThan(600 + 400);
    await new Promise((r) => setTimeout(r, 400));
    expect(healthy.ws.readyState).toBe(healthy.ws.OPEN);
    expect(healthyPrivate.ws.readyState).toBe(healthyPrivate.ws.OPEN);
    expect(pings).toBeGreaterThanOrEqual(6);
    expect(w.gateway.connectionCount).toBe(2);
  });

  it('a client that answered for a while and then stops reading is cut', async () => {
    w = await startWorld({ ws: { pingIntervalMs: 100, deadAfterMs: 600 } });
    const c = await w.connect(w.publicUrl());
    await new Promise((r) => setTimeout(r, 800));
    expect(w.gateway.connectionCount).toBe(1);
    c.ws.pause();
    const paused = Date.now();
    await until(() => w.gateway.connectionCount === 0, 5000, 'the paused client to be cut');
    expect(Date.now() - paused).toBeLessThan(600 + 100 + 400);
  });

  it('many connections opened and closed leave no listeners and no index entries behind', async () => {
    // deadAfterMs leaves room for a loaded CI machine: 40 clients and the server share one event
    // loop here, and a 150 ms stall once cut healthy clients before their subscribe was answered.
    w = await startWorld({ ws: { pingIntervalMs: 100, deadAfterMs: 1000 } });
    const baseline = { events: w.core.emitter.listenerCount('events'), upgrade: w.server.listenerCount('upgrade') };
    for (const u of ['a', 'b', 'c', 'd']) await w.createUser(u);
    const keys = ['a', 'b', 'c', 'd'].map((u) => w.listenKeys.create(u).listenKey);
    for (let round = 0; round < 3; round++) {
      const clients = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => w.connect(w.privateUrl(keys[i % 4]))),
        ...Array.from({ length: 20 }, () => w.connect(w.publicUrl())),
      ]);
      for (const [i, c] of clients.slice(20).entries()) {
        c.send({ op: 'subscribe', args: ['trade:BTCUSDT', 'depth:BTCUSDT', `ticker:${i % 2 === 0 ? 'BTCUSDT' : 'ETHUSDT'}`, 'markPrice:ETHUSDT'] });
      }
      await Promise.all(clients.slice(20).map((c) => c.next((m) => m.success === true)));
      await w.place('a', { side: 'BUY', price: '49000' });
      expect(w.gateway.connectionCount).toBe(40);
      expect(w.gateway.stats()).toMatchObject({ privateUsers: 4, privateListenKeys: 4, privateConnections: 20, publicSubscriptions: 80 });
      // half leave politely, a quarter vanish, a quarter stop answering pings
      for (const [i, c] of clients.entries()) {
        if (i % 4 < 2) c.ws.close();
        else if (i % 4 === 2) c.ws.terminate();
        else c.ws.pause();
      }
      await until(() => w.gateway.connectionCount === 0, 6000, 'all connections to go');
      for (const c of clients) c.ws.terminate();
    }
    expect(w.gateway.stats()).toEqual({
      connections: 0,
      privateUsers: 0,
      privateListenKeys: 0,
      privateConnections: 0,
      silencedUsers: 0,
      publicSubscriptions: 0,
      pendingSnapshots: 0,
    });
    expect(w.core.emitter.listenerCount('events')).toBe(baseline.events);
    expect(w.server.listenerCount('upgrade')).toBe(baseline.upgrade);
  });

  it('close(): every connection gets 1001, timers stop, later upgrades get 503', async () => {
    w = await startWorld({ gateway: { closeGraceMs: 200 } });
    await w.createUser('a');
    const key = w.listenKeys.create('a').listenKey;
    const priv = await w.connect(w.privateUrl(key));
    const pub = await w.connect(w.publicUrl());
    const stuck = await w.connect(w.publicUrl());
    pub.send({ op: 'subscribe', args: ['depth:BTCUSDT'] });
    await pub.next((m) => m.event === 'depth');
    await w.place('a', { side: 'BUY', price: '49000' }); // leaves a depth push pending
    stuck.ws.pause(); // never answers the close frame: cut after the grace period
    const listeners = w.core.emitter.listenerCount('events');
    const t0 = Date.now();
    await Promise.all([w.gateway.close(), w.gateway.close()]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await priv.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect((await pub.closed).code).toBe(1001);
    expect(w.gateway.connectionCount).toBe(0);
    expect(w.gateway.stats().pendingSnapshots).toBe(0);
    expect(w.core.emitter.listenerCount('events')).toBe(listeners - 1);
    const r = await refusedUpgrade(w.publicUrl());
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 50002 });
    // events after close reach nobody and break nothing
    await w.place('a', { side: 'BUY', price: '48000' });
    w.listenKeys.expireNow(key);
  });

  it('a half-open connection (dropWs fault) closed by the server is cut, not left holding the socket', async () => {
    w = await startWorld({ gateway: { closeGraceMs: 200 } });
    await w.createUser('a');
    const key = w.listenKeys.create('a').listenKey;
    const priv = await w.connect(w.privateUrl(key));
    expect(w.gateway.dropPrivate('a', 'halfOpen')).toBe(1);
    // The key ends while the connection reads nothing: the server closes the connection. A close
    // frame could never be answered through a paused socket, and ws would then hold it for 30 s
    // (a test exchange's stop() waited that long after every half-open fault).
    w.listenKeys.expireNow(key);
    const t0 = Date.now();
    expect((await priv.closed).code).toBe(1006);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
