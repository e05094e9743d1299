/**
 * The crash test: the real CLI under concurrent order load is killed with SIGKILL; after a
 * restart on the same data directory every order that was acknowledged is there, unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SystemClock } from '../../../src/core/clock';
import { DEFAULT_CONFIG } from '../../../src/exchange/service/config';
import { openDurableCore } from '../../../src/exchange/service/durable-core';
import { Dec } from '../../../src/core/decimal';
import { ensureBuilt, startCli, type Proc } from '../../cli/exchange-proc';

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

async function call<T>(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Envelope<T>> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as Envelope<T>;
}

describe('kill -9 under load', () => {
  let dir: string;
  const procs: Proc[] = [];
  beforeAll(() => ensureBuilt(), 120000);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-kill-'));
  });
  afterEach(() => {
    for (const p of procs.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged order with its state', async () => {
    const args = ['--port', '0', '--data-dir', dir, '--admin-token', 't'];
    const p1 = await startCli(args);
    procs.push(p1);
    const admin = { 'x-admin-token': 't' };
    const users = ['alice', 'bobby', 'carol', 'david'];
    const tokens: string[] = [];
    for (const u of users) {
      const created = await call<{ userId: string }>(`${p1.url}/v1/admin/users`, 'POST', { username: u, password: 'pw-' + u, balance: '1000000' }, admin);
      expect(created.code).toBe(0);
      const login = await call<{ accessToken: string }>(`${p1.url}/v1/public/user/login`, 'POST', { username: u, password: 'pw-' + u });
      expect(login.code).toBe(0);
      tokens.push(login.data.accessToken);
    }
    const acked: Array<{ user: number; orderId: string }> = [];
    let stop = false;
    // Buyers below, sellers crossing some of them: acknowledged orders are NEW, FILLED or in between.
    const worker = async (w: number): Promise<void> => {
      const user = w % users.length;
      for (let i = 0; !stop; i++) {
        const side = user % 2 === 0 ? 'BUY' : 'SELL';
        const price = (50000 + (side === 'BUY' ? -1 : 1) * ((i * 7 + w) % 50) * 0.1 - (side === 'SELL' ? 4 : 0)).toFixed(1);
        try {
          const r = await call<{ orderId: string }>(`${p1.url}/v1/private/order/place`, 'POST', { symbol: 'BTCUSDT', type: 'LIMIT', side, price, quantity: '0.001', timeInForce: 'GTC' }, { authorization: `Bearer ${tokens[user]}` });
          if (r.code === 0) acked.push({ user, orderId: r.data.orderId });
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    while (acked.length < 600) await new Promise((r) => setTimeout(r, 10));
    p1.child.kill('SIGKILL');
    const killedAt = acked.length;
    await p1.exited;
    stop = true;
    await Promise.all(workers);
    expect(killedAt).toBeGreaterThanOrEqual(600);

    const p2 = await startCli(args);
    procs.push(p2);
    const logins: string[] = [];
    for (const u of users) {
      const login = await call<{ accessToken: string }>(`${p2.url}/v1/public/user/login`, 'POST', { username: u, password: 'pw-' + u });
      expect(login.code).toBe(0);
      logins.push(login.data.accessToken);
    }
    const missing: string[] = [];
    const states = new Map<string, string>();
    for (const a of acked) {
      const r = await call<{ status: string; executedQty: string }>(`${p2.url}/v1/private/order?symbol=BTCUSDT&orderId=${a.orderId}`, 'GET', undefined, { authorization: `Bearer ${logins[a.user]}` });
      if (r.code !== 0) missing.push(a.orderId);
      else states.set(a.orderId, `${r.data.status}:${r.data.executedQty}`);
    }
    expect(missing).toEqual([]);
    expect([...states.values()].some((s) => s.startsWith('FILLED'))).toBe(true);
    p2.child.kill('SIGTERM');
    expect((await p2.exited).code).toBe(0);

    // The state on disk, opened in-process: same order states, and the money adds up.
    const durable = await openDurableCore({ ...DEFAULT_CONFIG, dataDir: dir }, new SystemClock());
    await durable.core.recover();
    const e = durable.core.engine;
    const ids = e.userIds();
    for (const a of acked) {
      const o = e.queryOrder(ids[a.user], { symbol: 'BTCUSDT', orderId: a.orderId });
      expect(`${o.status}:${o.executedQty}`).toBe(states.get(a.orderId));
    }
    const audit = e.audit();
    expect(audit.frozenMismatch).toEqual([]);
    expect(audit.netQtyBySymbol).toEqual({ BTCUSDT: 0, ETHUSDT: 0 });
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
    await durable.core.close();
  }, 60000);
});
