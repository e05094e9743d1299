import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { OrderTracker } from '../../src/bot/execution/order-tracker';
import { FileStateStore, StateFileError, restoreOrders } from '../../src/runtime/state-store';

const dir = (): string => mkdtempSync(path.join(tmpdir(), 'perpkit-state-'));

function trackerWithOrders(): OrderTracker {
  const t = new OrderTracker();
  const base = { strategyId: 'mm', symbol: 'BTCUSDT', quantity: '0.01', executedQty: '0', reduceOnly: false, sentAt: 1, updatedAt: 1 };
  t.add({ ...base, clientOrderId: 'mm-a1', side: 'BUY', price: '49990', state: 'NEW', orderId: '11', tag: 'BUY' });
  t.add({ ...base, clientOrderId: 'mm-a2', side: 'SELL', price: '50010', state: 'NEW', orderId: '12', tag: 'SELL' });
  t.add({ ...base, clientOrderId: 'mm-a3', side: 'SELL', price: '50020', state: 'FILLED', orderId: '13', tag: 'SELL' });
  return t;
}

describe('FileStateStore', () => {
  it('round-trips strategy state and the live orders with their tags', async () => {
    const file = path.join(dir(), 'nested', 'state.json');
    const store = new FileStateStore(file);
    expect(await store.load()).toBeUndefined();
    store.trackOrders(trackerWithOrders());
    await store.save({ savedAt: 123, strategies: { mm: { variance: '0.1' } } });

    const again = new FileStateStore(file);
    const s = await again.read();
    expect(s?.savedAt).toBe(123);
    expect(s?.strategies).toEqual({ mm: { variance: '0.1' } });
    // Final orders are not worth restoring: only the live ones are saved.
    expect(s?.orders.map((o) => [o.clientOrderId, o.tag])).toEqual([
      ['mm-a1', 'BUY'],
      ['mm-a2', 'SELL'],
    ]);
    expect(await again.load()).toMatchObject({ savedAt: 123 });
  });

  it("keeps the loss limits' references (the day's first equity, the peak); a malformed one is left out", async () => {
    const file = path.join(dir(), 'state.json');
    const risk = { day: 20500, dayStartEquity: '100000.5', peakEquity: '100100' };
    await new FileStateStore(file).save({ savedAt: 1, strategies: {}, risk });
    expect((await new FileStateStore(file).read())?.risk).toEqual(risk);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...doc, risk: { day: 20500, dayStartEquity: 'lots', peakEquity: '1' } }));
    expect((await new FileStateStore(file).read())?.risk).toBeUndefined();
  });

  it('writes atomically: no temp file is left and concurrent saves keep the newest', async () => {
    const d = dir();
    const file = path.join(d, 'state.json');
    const store = new FileStateStore(file);
    await Promise.all([1, 2, 3, 4, 5].map((n) => store.save({ savedAt: n, strategies: {} })));
    expect(readdirSync(d)).toEqual(['state.json']);
    expect(JSON.parse(readFileSync(file, 'utf8')).savedAt).toBe(5);
  });

  it('refuses a corrupt or foreign file with a message naming it', async () => {
    const file = path.join(dir(), 'state.json');
    writeFileSync(file, '{ half');
    await expect(new FileStateStore(file).read()).rejects.toThrow(StateFileError);
    writeFileSync(file, JSON.stringify({ something: 'else' }));
    await expect(new FileStateStore(file).read()).rejects.toThrow(/expected a perpkit-bot-state file/);
  });

  it('restores saved orders as UNKNOWN for the configured strategies only', async () => {
    const file = path.join(dir(), 'state.json');
    const store = new FileStateStore(file);
    store.trackOrders(trackerWithOrders());
    await store.save({ savedAt: 1, strategies: {} });
    const saved = await new FileStateStore(file).read();
    const fresh = new OrderTracker();
    expect(restoreOrders(fresh, saved?.orders ?? [], new Set(['mm']), 5)).toBe(2);
    expect(fresh.live('mm').map((o) => [o.clientOrderId, o.state, o.tag])).toEqual([
      ['mm-a1', 'UNKNOWN', 'BUY'],
      ['mm-a2', 'UNKNOWN', 'SELL'],
    ]);
    expect(restoreOrders(new OrderTracker(), saved?.orders ?? [], new Set(['other']), 5)).toBe(0);
  });
});
