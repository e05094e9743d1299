/**
 * The dashboard's HTTP side against a real daemon on a real local exchange: configuration rules,
 * the token, the Host check, actions (pause stops quoting, resume brings it back, cancel empties
 * the book, a stopped strategy is refused with its reason), and the stream's catch-up by
 * Last-Event-ID.
 */
import { parseBotConfig } from '../../../src/runtime/config';
import { EventJournal } from '../../../src/runtime/dashboard/journal';
import type { DashEvent, Snapshot } from '../../../src/runtime/dashboard/types';
import { startWorld, TOKEN, until, type World } from './world';

let w: World;
beforeAll(async () => {
  w = await startWorld(undefined);
});
afterAll(async () => {
  await w.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };
const act = (url: string, path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'x-perpkit-dashboard': '1', 'x-perpkit-operator': 'tester', ...headers } });

interface Frame {
  event: string;
  id: string;
  data: unknown;
}

/** Opens the stream and reads frames until `enough` says so (or the time is up). */
async function readStream(url: string, headers: Record<string, string>, enough: (frames: Frame[]) => boolean, ms = 5000): Promise<Frame[]> {
  const ac = new AbortController();
  const res = await fetch(`${url}/api/stream`, { headers: { ...auth, ...headers }, signal: ac.signal });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const frames: Frame[] = [];
  let buf = '';
  const end = Date.now() + ms;
  try {
    while (!enough(frames) && Date.now() < end) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += Buffer.from(value).toString('utf8');
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const f: Partial<Frame> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) f.event = line.slice(7);
          if (line.startsWith('id: ')) f.id = line.slice(4);
          if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6)) as unknown;
        }
        if (f.event) frames.push(f as Frame);
      }
    }
  } finally {
    ac.abort();
  }
  return frames;
}

describe('dashboard configuration', () => {
  const base = { venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'u', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }] };
  it('is off unless configured, and refuses a non-loopback bind without a token', () => {
    expect(parseBotConfig({ ...base, http: { port: 0 } }, 'bot.yaml').http?.dashboard).toBeUndefined();
    expect(parseBotConfig({ ...base, http: { port: 0, dashboard: true } }, 'bot.yaml').http?.dashboard).toEqual({ tokenEnv: undefined });
    expect(() => parseBotConfig({ ...base, http: { host: '0.0.0.0', port: 0, killTokenEnv: 'K', dashboard: true } }, 'bot.yaml')).toThrow(
      'bot.yaml: http.dashboard.tokenEnv: expected a token variable, since http.host 0.0.0.0 is not a loopback address (the dashboard can pause strategies and engage the kill switch), got no tokenEnv',
    );
    expect(parseBotConfig({ ...base, http: { host: '0.0.0.0', port: 0, killTokenEnv: 'K', dashboard: { tokenEnv: 'T' } } }, 'bot.yaml').http?.dashboard).toEqual({ tokenEnv: 'T' });
    // POST /kill open to the network without a token was accepted silently, while the dashboard was refused.
    expect(() => parseBotConfig({ ...base, http: { host: '0.0.0.0', port: 0 } }, 'bot.yaml')).toThrow(
      'bot.yaml: http.killTokenEnv: expected a token variable, since http.host 0.0.0.0 is not a loopback address (POST /kill halts trading and cancels every order), got nothing (the key is missing)',
    );
    expect(parseBotConfig({ ...base, http: { host: '0.0.0.0', port: 0, killTokenEnv: 'K' } }, 'bot.yaml').http?.killTokenEnv).toBe('K');
    expect(() => parseBotConfig({ ...base, http: { port: 0, dashboard: { token: 'x' } } }, 'bot.yaml')).toThrow("bot.yaml: http.dashboard.token: expected one of the known keys tokenEnv, got unknown key 'token'");
    expect(() => parseBotConfig({ ...base, http: { port: 0, dashboard: 'yes' } }, 'bot.yaml')).toThrow('http.dashboard: expected true, false or { tokenEnv: NAME }, got string "yes"');
    // Not a way around the kill token.
    expect(() => parseBotConfig({ ...base, http: { port: 0, killTokenEnv: 'KILL', dashboard: true } }, 'bot.yaml')).toThrow(
      'bot.yaml: http.dashboard.tokenEnv: expected a token variable, since http.killTokenEnv (KILL) protects the kill switch and the dashboard can engage it, got no tokenEnv',
    );
  });

  it('does not start when the token variable is unset, naming the variable', async () => {
    await expect(w.daemon({ dashboard: { tokenEnv: 'UNSET_DASH_TOKEN' } })).rejects.toThrow('http.dashboard.tokenEnv: expected environment variable UNSET_DASH_TOKEN to be set');
  });

  it("says where it is served, with a token field only when it has a token, and the token's value never", async () => {
    const served = (): Array<Record<string, unknown>> => w.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'dashboard served');
    const { url } = await w.daemon({ dashboard: true });
    expect(served().at(-1)).toMatchObject({ url: `${url}/` });
    // It said token: "[redacted]" without one too: an operator read that the page needed a token.
    expect(served().at(-1)).not.toHaveProperty('token');
    const { url: url2 } = await w.daemon();
    expect(served().at(-1)).toMatchObject({ url: `${url2}/`, token: '[redacted]' });
    expect(w.logLines.join('')).not.toContain(TOKEN);
  });

  it('serves nothing when off', async () => {
    const { url } = await w.daemon({ dashboard: undefined });
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/api/snapshot`)).status).toBe(404);
  });
});

describe('dashboard API on a running bot', () => {
  it('refuses a missing or wrong token, serves the page and the snapshot without any secret', async () => {
    const { url } = await w.daemon();
    expect((await fetch(`${url}/api/snapshot`)).status).toBe(401);
    const wrong = await fetch(`${url}/api/snapshot`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'wrong token', code: 'UNAUTHORIZED' });
    expect((await fetch(`${url}/api/stream`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await act(url, '/api/kill', { authorization: 'Bearer nope', 'x-perpkit-confirm': 'KILL' })).status).toBe(401);

    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('/assets/main.js');
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${url}/assets/main.js`)).status).toBe(200);
    expect((await fetch(`${url}/assets/../../package.json`)).status).toBe(404);

    const res = await fetch(`${url}/api/snapshot`, { headers: auth });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('pw-Dash7');
    const snap = JSON.parse(text) as Snapshot;
    expect(snap.bot).toMatchObject({ name: 'dash-bot', auth: 'token' });
    expect(snap.live).toMatchObject({ phase: 'running', state: 'ACTIVE' });
    expect(snap.live.strategies[0]).toMatchObject({ id: 'mm', strategy: 'market-maker', status: 'running', params: { symbol: 'BTCUSDT', quantity: '0.01' } });
    expect(snap.live.orders).toHaveLength(2);
  });

  it('without a token answers only to loopback Host names', async () => {
    const { url } = await w.daemon({ dashboard: true });
    expect((await fetch(`${url}/api/snapshot`)).status).toBe(200);
    const port = new URL(url).port;
    const { request } = await import('undici');
    const r = await request(`${url}/api/snapshot`, { headers: { host: `evil.example:${port}` } });
    expect(r.statusCode).toBe(403);
    expect(((await r.body.json()) as { error: string }).error).toMatch(/^Host 'evil.example' refused/);
  });

  it('pause stops the quoting, cancel empties the book, resume brings the quotes back; each is in the journal with who did it', async () => {
    const { d, url, userId } = await w.daemon();
    expect((await fetch(`${url}/api/strategies/mm/pause`, { method: 'POST', headers: auth })).status).toBe(400); // no action header: a cross-site form cannot do this
    expect((await act(url, '/api/strategies/nope/pause')).status).toBe(404);
    const paused = await act(url, '/api/strategies/mm/pause');
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ ok: true, status: 'paused' });
    expect((await act(url, '/api/strategies/mm/pause')).status).toBe(409);
    // Healthy as asked, and a probe can see what was paused.
    const health = async (): Promise<Record<string, unknown>> => (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
    expect(await health()).toMatchObject({ status: 'ok', paused: { mm: expect.any(String) } });
    const cancelled = await act(url, '/api/strategies/mm/cancel-orders');
    expect(await cancelled.json()).toMatchObject({ ok: true, cancelled: 2 });
    expect(w.openOrders(userId)).toHaveLength(0);
    // Paused: the market maker's timer would have re-quoted within 200 ms.
    await new Promise((r) => setTimeout(r, 800));
    expect(w.openOrders(userId)).toHaveLength(0);
    expect((await act(url, '/api/strategies/mm/resume')).status).toBe(200);
    await until(() => w.openOrders(userId).length === 2, 5000, 'quotes after resume');
    expect(await health()).not.toHaveProperty('paused');
    const snap = (await (await fetch(`${url}/api/snapshot`, { headers: auth })).json()) as Snapshot;
    const actions = snap.events.filter((e) => e.kind === 'action').map((e) => e.text);
    expect(actions).toEqual([
      expect.stringMatching(/^tester from 127\.0\.0\.1 \(token\): pause nope refused: no strategy 'nope'/),
      'tester from 127.0.0.1 (token): pause mm: now paused',
      expect.stringMatching(/^tester from 127\.0\.0\.1 \(token\): pause mm refused: strategy mm is already paused/),
      'tester from 127.0.0.1 (token): cancelOrders mm: 2 working orders cancelled',
      'tester from 127.0.0.1 (token): resume mm: now running',
    ]);
    expect(d.bot.risk.state).toBe('ACTIVE');
  });

  it('failed venue calls of the bot are in the journal, one entry per context per 10 s', async () => {
    const { userId, url } = await w.daemon({ extra: { pollPositionsMs: 100 } });
    const faults = (body: Record<string, unknown>) => w.ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': w.ex.adminToken }, body });
    await faults({ fault: 'http5xx', status: 503, userId, pathPrefix: '/v1/private/position/' });
    const errors = async () => ((await (await fetch(`${url}/api/snapshot`, { headers: auth })).json()) as Snapshot).events.filter((e) => e.kind === 'botError');
    try {
      // Before: nothing on the dashboard while every position poll failed (only the log had them).
      await until(async () => (await errors()).length > 0, 8000, 'a bot error in the journal');
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      await faults({ fault: 'all', on: false });
    }
    const got = await errors();
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ level: 'error', code: 'poll positions' });
    expect(got[0].text).toMatch(/^poll positions failed: 50002 service busy/);
  });

  it('refuses actions on a strategy stopped for its errors, saying why', async () => {
    const { url } = await w.daemon({ withFailing: true });
    for (const a of ['pause', 'resume', 'cancel-orders']) {
      const r = await act(url, `/api/strategies/bad/${a}`);
      expect(r.status).toBe(409);
      const body = (await r.json()) as { error: string; code: string };
      expect(body.code).toBe('STRATEGY_STOPPED');
      expect(body.error).toMatch(/^strategy bad was stopped for its errors \(.*broken on purpose\); .*Restart the bot to run it again$/);
    }
    const snap = (await (await fetch(`${url}/api/snapshot`, { headers: auth })).json()) as Snapshot;
    expect(snap.live.strategies.find((s) => s.id === 'bad')).toMatchObject({ status: 'stopped', errors: 1 });
  });

  it('the kill switch needs its confirmation header, then halts and cancels everything', async () => {
    const { d, url, userId } = await w.daemon();
    expect((await act(url, '/api/kill')).status).toBe(400);
    expect(d.bot.risk.state).toBe('ACTIVE');
    const r = await act(url, '/api/kill', { 'x-perpkit-confirm': 'KILL' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ ok: true, state: 'HALTED', cancelled: 2 });
    expect(w.openOrders(userId)).toHaveLength(0);
    expect(d.bot.risk.reason).toMatch(/dashboard: tester from 127\.0\.0\.1/);
    await d.stop('test');
    await expect(fetch(`${url}/api/snapshot`, { headers: auth })).rejects.toThrow();
  });

  it('the stream resumes after Last-Event-ID with exactly the missed entries, and sends a snapshot when it cannot', async () => {
    const { d, url, userId } = await w.daemon();
    const dash = d.dashboard;
    if (!dash) throw new Error('no dashboard');
    const isFill = (f: Frame) => f.event === 'ev' && (f.data as DashEvent).kind === 'fill';
    // Live: a fill on the exchange reaches an open stream as it happens.
    const reading = readStream(url, {}, (f) => f.some(isFill));
    await until(() => dash.openStreams === 1, 5000, 'the stream open');
    await w.takeQuote(userId);
    const first = await reading;
    expect(first[0].event).toBe('snapshot');
    expect(first.filter(isFill)).toHaveLength(1);
    const lastId = first[first.length - 1].id;
    await until(() => dash.openStreams === 0, 5000, 'the stream closed');
    // While no page listens: another fill and an action.
    await until(() => w.openOrders(userId).length === 2, 5000, 'quotes again');
    await w.takeQuote(userId);
    await until(() => d.bot.stats.fills === 2);
    expect((await act(url, '/api/strategies/mm/pause')).status).toBe(200);
    const resumed = await readStream(url, { 'last-event-id': lastId }, (f) => f.some((x) => x.event === 'live'));
    const evs = resumed.filter((f) => f.event === 'ev').map((f) => f.data as DashEvent);
    expect(resumed[0].event).toBe('ev');
    expect(evs.map((e) => e.kind)).toEqual(expect.arrayContaining(['fill', 'action']));
    const seqs = evs.map((e) => Number(e.id.split(':')[1]));
    expect(seqs[0]).toBe(Number(lastId.split(':')[1]) + 1);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i)); // none missing, none twice
    expect(dash.stats.replays).toBe(1);
    const stale = await readStream(url, { 'last-event-id': '1:5' }, (f) => f.length >= 1);
    expect(stale[0].event).toBe('snapshot');
  });
});

describe('event journal', () => {
  it('replays what came after an id, and asks for a snapshot once entries were dropped', () => {
    const j = new EventJournal('e', 3);
    const add = (text: string) => j.add({ time: 0, kind: 'action', level: 'info', strategyId: undefined, code: undefined, text });
    add('a');
    add('b');
    expect(j.after('e:0')).toEqual({ kind: 'replay', events: [expect.objectContaining({ id: 'e:1', text: 'a' }), expect.objectContaining({ id: 'e:2', text: 'b' })] });
    add('c');
    add('d');
    expect(j.after('e:1')).toEqual({ kind: 'replay', events: ['b', 'c', 'd'].map((text) => expect.objectContaining({ text })) });
    expect(j.after('e:0')).toEqual({ kind: 'snapshot', why: '1 events were dropped from the journal since' });
    expect(j.after('e:4')).toEqual({ kind: 'replay', events: [] });
    expect(j.after('e:9')).toMatchObject({ kind: 'snapshot' });
    expect(j.after('other:2')).toEqual({ kind: 'snapshot', why: 'the daemon restarted since' });
    expect(j.after('garbage')).toMatchObject({ kind: 'snapshot' });
    expect(j.latest(2, () => true).map((e) => e.text)).toEqual(['c', 'd']);
  });
});
