/**
 * The local exchange's read-only page in headless Chromium: symbols, the book with the resting
 * orders of a user, the trade they made, and the mark, read from the public API of a real local
 * exchange. The API around it answers as before.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { PerpClient } from '../../../src/client';
import { exchangePage, userPositions } from '../../../src/runtime/dashboard/exchange-page';
import { startExchange, type ExchangeServer } from '../../../src/exchange/transport/server';
import { buildWebPages, collectPageErrors, launchChromium } from '../../helpers/browser';
import { until } from './world';

let server: ExchangeServer;
let browser: Browser;
let url: string;

let pages: string;

beforeAll(async () => {
  pages = buildWebPages();
  // Bound late: the page's positions read the server's core, which exists once it has started.
  const page = exchangePage(path.join(pages, 'exchange'), { token: 'admin-tk', positions: () => userPositions(server.core) });
  server = await startExchange({ port: 0, host: '127.0.0.1', adminToken: 'admin-tk', users: [
        { username: 'maker', password: 'pw-maker-1', balance: '100000' },
        { username: 'taker', password: 'pw-taker-1', balance: '100000' },
      ] }, { pages: page.handle });
  url = `http://127.0.0.1:${(server.httpServer.address() as { port: number }).port}`;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (pages) rmSync(pages, { recursive: true, force: true });
});

it('shows symbols, the book, a trade and the mark; the API around it is unchanged', async () => {
  const c = new PerpClient({ baseUrl: url });
  await c.login('maker', 'pw-maker-1');
  await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.02', timeInForce: 'GTC' });
  await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '51000', quantity: '0.03', timeInForce: 'GTC' });
  await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '51500', quantity: '0.01', timeInForce: 'GTC' });
  await c.close();
  const t = new PerpClient({ baseUrl: url });
  await t.login('taker', 'pw-taker-1');
  await t.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '51000', quantity: '0.01', timeInForce: 'IOC' });
  await t.close();

  expect((await fetch(`${url}/ui`, { redirect: 'manual' })).status).toBe(308);
  const notFound = await fetch(`${url}/nope`);
  expect(notFound.status).toBe(404);
  expect(((await notFound.json()) as { code: number }).code).toBe(10006);

  const ctx = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await ctx.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${url}/ui/`);
  await page.getByTestId('symbol-BTCUSDT').waitFor({ timeout: 10_000 });
  await until(async () => (await page.getByTestId('bid').count()) === 1 && (await page.getByTestId('ask').count()) === 2, 5000, 'the book on the page');
  expect(await page.getByTestId('bid').first().textContent()).toBe('490000.02');
  expect(await page.getByTestId('ask').last().textContent()).toBe('510000.02');
  await page.getByTestId('trade').first().waitFor({ timeout: 5000 });
  expect(await page.getByTestId('trade').first().textContent()).toMatch(/^\d\d:\d\d:\d\dBUY510000\.01$/);
  expect(await page.getByTestId('mark').textContent()).toMatch(/^mark \d+\.\d\d/);
  expect(errors).toEqual([]);
  await ctx.close();
}, 60_000);

it("shows users' positions to the operator with the admin token, and refuses without it", async () => {
  // The maker and taker above traded 0.01 at 51000: one long, one short.
  const api = async (token?: string): Promise<{ status: number; body: { code: number; data: { positions: Array<{ username: string; quantity: string; entryPrice: string }> } | null } }> => {
    const res = await fetch(`${url}/ui/api/positions`, { headers: token === undefined ? {} : { 'x-admin-token': token } });
    return { status: res.status, body: (await res.json()) as never };
  };
  expect((await api()).status).toBe(401);
  const wrong = await api('nope');
  expect(wrong.status).toBe(401);
  expect(JSON.stringify(wrong.body)).not.toContain('admin-tk');
  const ok = await api('admin-tk');
  expect(ok.status).toBe(200);
  expect(ok.body.data?.positions.map((p) => [p.username, p.quantity, p.entryPrice])).toEqual([
    ['maker', '-0.01', '51000'],
    ['taker', '0.01', '51000'],
  ]);

  const ctx = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await ctx.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${url}/ui/`);
  await page.getByTestId('admin-token').fill('wrong-token');
  await page.getByTestId('admin-show').click();
  await page.getByTestId('positions-note').waitFor({ timeout: 5000 });
  expect(await page.getByTestId('positions-note').textContent()).toMatch(/^refused \(401\)/);
  await page.getByTestId('admin-token').fill('admin-tk');
  await page.getByTestId('admin-show').click();
  await until(async () => (await page.getByTestId('position').count()) === 2, 5000, 'the two positions on the page');
  expect(await page.getByTestId('position').first().textContent()).toMatch(/^makerBTCUSDT/);
  // The long's liqPrice "0" (no price liquidates it) reads as a dash, as on the dashboard; the short's is a price.
  expect(await page.getByTestId('position-liq').nth(1).textContent()).toBe('–');
  expect(await page.getByTestId('position-liq').first().textContent()).toMatch(/^\d[\d,]*(\.\d+)?$/);
  // The token is nowhere in the page's address or text.
  expect(page.url()).not.toContain('admin-tk');
  expect(await page.content()).not.toContain('admin-tk');
  // A 401 is logged by the browser as a failed resource, not a script error: only those are counted.
  expect(errors.filter((e) => !/401/.test(e))).toEqual([]);
  await ctx.close();
}, 60_000);

it('answers 404 for positions when the exchange has no admin API', async () => {
  const page = exchangePage(path.join(pages, 'exchange'), { token: undefined, positions: () => [] });
  const off = await startExchange({ port: 0, host: '127.0.0.1', adminToken: undefined }, { pages: page.handle });
  try {
    const res = await fetch(`http://127.0.0.1:${(off.httpServer.address() as { port: number }).port}/ui/api/positions`, { headers: { 'x-admin-token': 'x' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/admin API is off/);
  } finally {
    await off.stop();
  }
});
