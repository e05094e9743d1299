/**
 * The dashboard in headless Chromium (Debian's, driven by playwright-core) against a daemon on
 * the local exchange: the page loads without a console error and fetches nothing from elsewhere,
 * a fill on the exchange shows within seconds, the kill switch works end to end, a wrong token is
 * refused, a dropped stream reconnects and catches up, and two browsers stay consistent.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebPages, collectPageErrors, launchChromium } from '../../helpers/browser';
import { startWorld, TOKEN, until, type World } from './world';
import { rmSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

let w: World;
let browser: Browser;
const contexts: BrowserContext[] = [];

let pages: string;

beforeAll(async () => {
  pages = buildWebPages();
  w = await startWorld(path.join(pages, 'dashboard'));
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await w?.close();
  if (pages) rmSync(pages, { recursive: true, force: true });
});

/** A page of its own (own storage), already holding the token (unless null) and an operator name. */
async function openPage(url: string, operator = 'alice', token: string | null = TOKEN): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  contexts.push(ctx);
  if (token !== null) {
    // Runs in the page before its own script (a string: this file is compiled without the DOM's types).
    await ctx.addInitScript({ content: `sessionStorage.setItem('perpkit.dashboard.token', ${JSON.stringify(token)}); localStorage.setItem('perpkit.dashboard.operator', ${JSON.stringify(operator)});` });
  }
  const page = await ctx.newPage();
  const errors = collectPageErrors(page);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${url}/`);
  return { page, errors, requests };
}

const text = (page: Page, testId: string) => page.getByTestId(testId).first().textContent({ timeout: 10_000 });

describe('dashboard in headless Chromium', () => {
  it('loads without a console error, fetches only from the bot, and shows a fill within seconds of it happening on the exchange', async () => {
    const { d, url, userId } = await w.daemon();
    const { page, errors, requests } = await openPage(url);
    await page.getByTestId('state').filter({ hasText: 'ACTIVE' }).waitFor({ timeout: 10_000 });
    await page.getByTestId('link').filter({ hasText: 'live open' }).waitFor();
    expect(await text(page, 'strategy-mm-fills')).toBe('0');
    await until(async () => (await page.getByTestId('order-row').count()) === 2, 5000, 'two working orders on the page');
    expect(await page.getByTestId('strategy-mm').getAttribute('data-status')).toBe('running');

    const t0 = Date.now();
    await w.takeQuote(userId);
    await page.locator('[data-testid="event-row"][data-kind="fill"]').first().waitFor({ timeout: 5000 });
    const shownAfterMs = Date.now() - t0;
    expect(shownAfterMs).toBeLessThan(3000);
    await until(async () => (await text(page, 'strategy-mm-fills')) === '1', 3000, 'the fill counted on the page');
    expect(d.bot.stats.fills).toBe(1);
    await page.getByTestId('position-BTCUSDT-size').filter({ hasText: '0.01' }).waitFor({ timeout: 5000 });
    const fillText = await page.locator('[data-testid="event-row"][data-kind="fill"]').first().textContent();
    expect(fillText).toMatch(/BUY 0\.01 BTCUSDT @ \d+/);
    // The chart has a point and a marker for the fill.
    await until(async () => Number(await page.getByTestId('chart').getAttribute('data-fills')) === 1, 3000, 'the fill on the chart');
    expect(await page.locator('[data-testid="chart"] canvas').count()).toBeGreaterThan(0);
    // The event list filters by kind and by text.
    const kinds = () => page.locator('[data-testid="event-row"]').evaluateAll((rows) => [...new Set(rows.map((r) => r.getAttribute('data-kind')))]);
    const only = (kind: string) => until(async () => JSON.stringify(await kinds()) === JSON.stringify([kind]), 3000, `only ${kind} rows`);
    await page.getByTestId('event-filter').selectOption('fill');
    await only('fill');
    await page.getByTestId('event-filter').selectOption('stream');
    await only('stream');
    await page.getByTestId('event-filter').selectOption('all');
    await page.getByTestId('event-search').fill('maker, fee');
    await only('fill');
    await page.getByTestId('event-search').fill('');
    // The token is never rendered.
    expect(await page.content()).not.toContain(TOKEN);
    const origin = new URL(url).origin;
    expect(requests.filter((r) => !r.startsWith(origin) && !r.startsWith('data:'))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('kill switch: asks first, then halts the bot, cancels every order and says who did it', async () => {
    const { d, url, userId } = await w.daemon();
    const { page, errors } = await openPage(url, 'carol');
    await page.getByTestId('state').filter({ hasText: 'ACTIVE' }).waitFor({ timeout: 10_000 });
    await page.getByTestId('kill-button').click();
    await page.getByTestId('kill-dialog').waitFor();
    await page.getByTestId('kill-cancel').click();
    expect(await page.getByTestId('kill-dialog').count()).toBe(0);
    expect(d.bot.risk.state).toBe('ACTIVE');

    await page.getByTestId('kill-button').click();
    await page.getByTestId('kill-confirm').click();
    await page.getByTestId('state').filter({ hasText: 'HALTED' }).waitFor({ timeout: 5000 });
    expect(d.bot.risk.state).toBe('HALTED');
    expect(w.openOrders(userId)).toHaveLength(0);
    expect(await text(page, 'toast')).toMatch(/kill switch: kill switch engaged: HALTED, 2 orders cancelled/);
    await until(async () => (await page.getByTestId('order-row').count()) === 0, 3000, 'no working order on the page');
    const action = page.locator('[data-testid="event-row"][data-kind="action"]').first();
    expect(await action.textContent()).toMatch(/carol from 127\.0\.0\.1 \(token\): kill: HALTED; 2 working orders cancelled/);
    expect(await page.getByTestId('kill-button').isDisabled()).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);

  it('refuses a wrong token and shows nothing of the bot until the right one is given', async () => {
    const { url } = await w.daemon();
    const { page } = await openPage(url, 'mallory', null);
    await page.getByTestId('login').waitFor({ timeout: 10_000 });
    await page.getByTestId('token-input').fill('not-the-token');
    await page.getByTestId('token-submit').click();
    await page.getByTestId('login-error').waitFor({ timeout: 5000 });
    expect(await text(page, 'login-error')).toBe('The token was refused.');
    expect(await page.getByTestId('strategy-mm').count()).toBe(0);
    expect(await page.getByTestId('state').count()).toBe(0);
    await page.getByTestId('token-input').fill(TOKEN);
    await page.getByTestId('token-submit').click();
    await page.getByTestId('state').filter({ hasText: 'ACTIVE' }).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('strategy-mm').count()).toBe(1);
  }, 60_000);

  it('a dashboard without a token opened under a name that is not loopback says why it is refused, instead of asking for a token', async () => {
    const { url } = await w.daemon({ dashboard: true });
    // The same daemon under a host name that resolves to 127.0.0.1 (as /etc/hosts or a proxy keeping the Host would).
    const other = await launchChromium(['--host-resolver-rules=MAP dash.example 127.0.0.1']);
    try {
      const page = await other.newPage();
      await page.goto(`${url.replace('127.0.0.1', 'dash.example')}/`);
      await page.getByTestId('refused').waitFor({ timeout: 10_000 });
      expect(await text(page, 'refused-reason')).toMatch(/^Host 'dash\.example' refused: a dashboard without a token answers only to loopback names/);
      // No token form: no token would help.
      expect(await page.getByTestId('login').count()).toBe(0);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('an action on a strategy stopped for its errors is refused with the reason, shown where it was asked', async () => {
    const { url } = await w.daemon({ withFailing: true });
    const { page } = await openPage(url);
    await page.getByTestId('strategy-bad').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('strategy-bad').getAttribute('data-status')).toBe('stopped');
    await page.getByTestId('pause-bad').click();
    await page.locator('.toast.err').waitFor({ timeout: 5000 });
    expect(await text(page, 'toast')).toMatch(/^pause bad refused: strategy bad was stopped for its errors \(.*broken on purpose\); .*Restart the bot to run it again$/);
    // The other strategy is untouched.
    expect(await page.getByTestId('strategy-mm').getAttribute('data-status')).toBe('running');
  }, 60_000);

  it('a dropped stream reconnects and catches up on what happened meanwhile, without a fresh snapshot', async () => {
    const { d, url, userId } = await w.daemon();
    const { page } = await openPage(url);
    await page.getByTestId('link').filter({ hasText: 'live open' }).waitFor({ timeout: 10_000 });
    const dash = d.dashboard;
    if (!dash) throw new Error('no dashboard');
    const snapshots = dash.stats.snapshots;
    // The network is down for the page: its stream is cut and reconnects fail...
    await page.route('**/api/stream', (route) => route.abort());
    dash.closeStreams();
    await page.getByTestId('link').filter({ hasText: 'reconnecting' }).waitFor({ timeout: 5000 });
    // ...while a fill and a pause happen.
    await w.takeQuote(userId);
    await until(() => d.bot.stats.fills === 1, 5000, 'the fill reaching the bot');
    expect((await d.bot.control('mm', 'pause', 'test')).status).toBe('paused');
    expect(await text(page, 'strategy-mm-fills')).toBe('0');
    expect(await page.locator('[data-testid="event-row"][data-kind="fill"]').count()).toBe(0);
    // The network is back: the page resumes after its last id and gets what it missed.
    await page.unroute('**/api/stream');
    await page.getByTestId('link').filter({ hasText: 'live open' }).waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="event-row"][data-kind="fill"]').first().waitFor({ timeout: 5000 });
    await until(async () => (await page.getByTestId('strategy-mm').getAttribute('data-status')) === 'paused', 3000, 'paused shown');
    expect(await text(page, 'strategy-mm-fills')).toBe('1');
    expect(dash.stats.replays).toBeGreaterThanOrEqual(1);
    expect(dash.stats.snapshots).toBe(snapshots);
  }, 60_000);

  it('a stream that goes silent without closing (a connection dropped on the way) is noticed and reconnected', async () => {
    const { url } = await w.daemon();
    const target = new URL(url);
    // A TCP relay between the page and the daemon that can go silent: it keeps the connections
    // open but stops passing the daemon's bytes, as a NAT or proxy that dropped them would.
    let silent = false;
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((inbound) => {
      const outbound = net.connect(Number(target.port), target.hostname);
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      inbound.on('data', (b) => outbound.write(b));
      outbound.on('data', (b) => {
        if (!silent) inbound.write(b);
      });
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const port = (relay.address() as net.AddressInfo).port;
      const { page } = await openPage(`http://127.0.0.1:${port}`);
      await page.getByTestId('link').filter({ hasText: 'live open' }).waitFor({ timeout: 10_000 });
      silent = true;
      // The live state comes every second: ten silent seconds mean a dead link, not a quiet bot.
      await page.getByTestId('link').filter({ hasText: 'reconnecting' }).waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('link').getAttribute('title')).toMatch(/nothing received for 10 s/);
      silent = false;
      for (const s of sockets) s.destroy(); // the dead connections go; new ones pass again
      await page.getByTestId('link').filter({ hasText: 'live open' }).waitFor({ timeout: 15_000 });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => relay.close(r));
    }
  }, 60_000);

  it('two browsers at once stay consistent: same events in the same order, one sees what the other does', async () => {
    const { url, userId } = await w.daemon();
    const a = await openPage(url, 'alice');
    const b = await openPage(url, 'bob');
    for (const p of [a.page, b.page]) await p.getByTestId('link').filter({ hasText: 'live open' }).waitFor({ timeout: 10_000 });
    await w.takeQuote(userId);
    await a.page.getByTestId('pause-mm').click();
    await until(async () => (await b.page.getByTestId('strategy-mm').getAttribute('data-status')) === 'paused', 5000, 'the pause seen by the other browser');
    await b.page.getByTestId('resume-mm').click();
    await until(async () => (await a.page.getByTestId('strategy-mm').getAttribute('data-status')) === 'running', 5000, 'the resume seen by the first browser');
    const ids = (p: Page) => p.locator('[data-testid="event-row"]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-id') ?? ''} ${r.textContent ?? ''}`));
    await until(async () => JSON.stringify(await ids(a.page)) === JSON.stringify(await ids(b.page)), 5000, 'the same event list in both');
    const list = await ids(a.page);
    expect(list.some((r) => /alice from 127\.0\.0\.1 \(token\): pause mm/.test(r))).toBe(true);
    expect(list.some((r) => /bob from 127\.0\.0\.1 \(token\): resume mm/.test(r))).toBe(true);
    expect(await text(a.page, 'strategy-mm-fills')).toBe(await text(b.page, 'strategy-mm-fills'));
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  }, 60_000);
});
