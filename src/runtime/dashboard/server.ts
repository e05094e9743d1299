/**
 * The dashboard's HTTP side, mounted on the daemon's health/metrics server: the page and its
 * assets (built at package build time, read from disk once), the snapshot, the live stream of
 * server-sent events, and the operator's actions.
 *
 * The stream: a page without a last id gets `snapshot` (everything it draws), then `ev` (journal
 * entries, each with its id) and `live` (the small whole state, at most every 200 ms after a
 * change and at least every second). A page that reconnects sends `Last-Event-ID` and gets the
 * journal entries it missed, or a fresh snapshot when they are gone (or the daemon restarted).
 * Every page sees the same journal in the same order, so two browsers agree.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Bot } from '../../bot/bot';
import { STRATEGY_ACTIONS, StrategyControlError, type StrategyAction, type StrategyActionResult } from '../../bot/strategy/controls';
import { ACTION_HEADER, actorOf, actorText, authorize, type Actor } from './auth';
import { DashboardAssets } from './assets';
import type { EventJournal } from './journal';
import type { Snapshot } from './types';
import type { DashboardView } from './view';

export interface DashboardServerOptions {
  view: DashboardView;
  journal: EventJournal;
  bot: Bot;
  log: Logger;
  /** Bearer token; undefined: loopback only, no token. */
  token: string | undefined;
  botInfo: Omit<Snapshot['bot'], 'auth'>;
  phase(): string;
  kill(reason: string): Promise<void>;
  control(strategyId: string, action: StrategyAction, reason: string): Promise<StrategyActionResult>;
  assetsDir: string;
}

interface StreamClient {
  res: ServerResponse;
  remote: string;
}

/** How much a slow page may leave unread before its stream is cut (it reconnects and catches up). */
const MAX_BUFFERED = 4 * 1024 * 1024;

const ACTION_PATH = /^\/api\/strategies\/([A-Za-z0-9_]{1,16})\/(pause|resume|cancel-orders)$/;

export class DashboardServer {
  private readonly clients = new Set<StreamClient>();
  private readonly assets: DashboardAssets;
  private readonly timers: NodeJS.Timeout[] = [];
  private liveTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;
  /** Counts for /status and tests: what the stream did. */
  readonly stats = { streamsOpened: 0, snapshots: 0, replays: 0, replayedEvents: 0, cut: 0 };

  constructor(private readonly o: DashboardServerOptions) {
    this.assets = new DashboardAssets(o.assetsDir);
    if (!this.assets.ready) o.log.error({ dir: o.assetsDir }, `the dashboard's page is not built (${this.assets.missing}): run npm run build; the API still answers`);
    this.unsubscribe = o.journal.subscribe((e) => this.broadcast('ev', e.id, e));
    o.view.onChange = () => this.scheduleLive();
    this.timers.push(setInterval(() => o.view.sampleEquity(), 250));
    this.timers.push(setInterval(() => this.sendLive(), 1000));
    this.timers.push(setInterval(() => this.write(': keep-alive\n\n'), 15_000));
    for (const t of this.timers) t.unref();
  }

  get openStreams(): number {
    return this.clients.size;
  }

  /** Ends every stream (the daemon is stopping, or a test cuts the connection). */
  closeStreams(): void {
    for (const c of this.clients) c.res.destroy();
    this.clients.clear();
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.unsubscribe();
    this.o.view.close();
    // The last state (stopping, HALTED...) goes out before the streams end.
    this.sendLive();
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }

  /** Serves a dashboard route; false when the path is not the dashboard's. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const method = req.method ?? 'GET';
    const p = url.pathname;
    if (method === 'GET' && (p === '/' || p === '/index.html' || p.startsWith('/assets/'))) {
      this.assets.serve(p === '/' ? '/index.html' : p, res);
      return true;
    }
    if (!p.startsWith('/api/')) return false;
    const auth = authorize(req, this.o.token);
    if (!auth.ok) {
      this.o.log.warn({ remote: req.socket.remoteAddress, path: p, status: auth.status }, 'dashboard request refused');
      json(res, auth.status, { error: auth.error, code: auth.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN' });
      return true;
    }
    if (method === 'GET' && p === '/api/snapshot') {
      json(res, 200, this.snapshot());
      return true;
    }
    if (method === 'GET' && p === '/api/stream') {
      this.openStream(req, res);
      return true;
    }
    if (method === 'POST' && (p === '/api/kill' || ACTION_PATH.test(p))) {
      if (req.headers[ACTION_HEADER] !== '1') {
        json(res, 400, { error: `actions need the header ${ACTION_HEADER}: 1 (the dashboard page sends it)`, code: 'MISSING_HEADER' });
        return true;
      }
      const actor = actorOf(req, auth.auth);
      if (p === '/api/kill') await this.kill(req, res, actor);
      else {
        const m = ACTION_PATH.exec(p) as RegExpExecArray;
        await this.strategyAction(res, m[1], m[2] === 'cancel-orders' ? 'cancelOrders' : (m[2] as StrategyAction), actor);
      }
      return true;
    }
    json(res, 404, { error: `no dashboard route ${method} ${p}; routes: GET /api/snapshot, GET /api/stream, POST /api/strategies/<id>/(pause|resume|cancel-orders), POST /api/kill`, code: 'NOT_FOUND' });
    return true;
  }

  private snapshot(): Snapshot {
    return this.o.view.snapshot({ ...this.o.botInfo, auth: this.o.token === undefined ? 'none' : 'token' });
  }

  // ------------------------------------------------------------------ the stream

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    const client: StreamClient = { res, remote: req.socket.remoteAddress ?? 'unknown' };
    this.stats.streamsOpened++;
    const header = req.headers['last-event-id'];
    const last = typeof header === 'string' && header !== '' ? header : undefined;
    const resume = last === undefined ? undefined : this.o.journal.after(last);
    if (resume?.kind === 'replay') {
      this.stats.replays++;
      this.stats.replayedEvents += resume.events.length;
      for (const e of resume.events) res.write(frame('ev', e.id, e));
      res.write(frame('live', this.o.journal.lastId, this.o.view.live()));
    } else {
      if (resume) this.o.log.info({ remote: client.remote, why: resume.why }, 'dashboard stream resumed with a fresh snapshot');
      this.stats.snapshots++;
      const snap = this.snapshot();
      res.write(frame('snapshot', snap.lastId, snap));
    }
    this.clients.add(client);
    const drop = (): void => {
      this.clients.delete(client);
    };
    // The response's close, not the request's: a request's 'close' comes once its (empty) body is read.
    res.on('close', drop);
    res.on('error', drop);
  }

  private write(text: string): void {
    for (const c of this.clients) {
      if (c.res.writableLength > MAX_BUFFERED) {
        this.stats.cut++;
        this.o.log.warn({ remote: c.remote, buffered: c.res.writableLength }, 'dashboard stream cut: the page does not read fast enough (it will reconnect and catch up)');
        this.clients.delete(c);
        c.res.destroy();
        continue;
      }
      c.res.write(text);
    }
  }

  private broadcast(event: string, id: string, data: unknown): void {
    if (this.clients.size === 0) return;
    this.write(frame(event, id, data));
  }

  private scheduleLive(): void {
    if (this.liveTimer !== undefined || this.clients.size === 0) return;
    this.liveTimer = setTimeout(() => {
      this.liveTimer = undefined;
      this.sendLive();
    }, 200);
    this.liveTimer.unref();
  }

  private sendLive(): void {
    if (this.clients.size === 0) return;
    this.broadcast('live', this.o.journal.lastId, this.o.view.live());
  }

  // ------------------------------------------------------------------ actions

  private record(actor: Actor, action: string, strategyId: string | undefined, outcome: string, ok: boolean): void {
    const fields = { action, strategy: strategyId, by: actor, outcome };
    if (ok) this.o.log.warn(fields, 'dashboard action');
    else this.o.log.warn(fields, 'dashboard action refused');
    const what = strategyId === undefined ? action : `${action} ${strategyId}`;
    this.o.journal.add({ time: this.o.view.now(), kind: 'action', level: ok ? 'warn' : 'error', strategyId, code: action, text: `${actorText(actor)}: ${what}${ok ? '' : ' refused'}: ${outcome}` });
  }

  private refuseWhenNotRunning(res: ServerResponse, actor: Actor, action: string, strategyId: string | undefined): boolean {
    const phase = this.o.phase();
    if (phase === 'running') return false;
    const error = `the bot is ${phase}: no action is possible`;
    this.record(actor, action, strategyId, error, false);
    json(res, 409, { error, code: 'BOT_NOT_RUNNING' });
    return true;
  }

  private async strategyAction(res: ServerResponse, strategyId: string, action: StrategyAction, actor: Actor): Promise<void> {
    if (!STRATEGY_ACTIONS.includes(action) || this.refuseWhenNotRunning(res, actor, action, strategyId)) return;
    try {
      const r = await this.o.control(strategyId, action, `by ${actorText(actor)} from the dashboard`);
      const outcome = action === 'cancelOrders' ? `${r.cancelled} working orders cancelled` : `now ${r.status}`;
      this.record(actor, action, strategyId, outcome, true);
      this.o.view.onChange();
      json(res, 200, { ok: true, action, strategyId, status: r.status, cancelled: r.cancelled });
    } catch (e) {
      if (!(e instanceof StrategyControlError)) throw e;
      this.record(actor, action, strategyId, e.message, false);
      json(res, e.code === 'UNKNOWN_STRATEGY' ? 404 : 409, { error: e.message, code: e.code });
    }
  }

  private async kill(req: IncomingMessage, res: ServerResponse, actor: Actor): Promise<void> {
    if (req.headers['x-perpkit-confirm'] !== 'KILL') {
      json(res, 400, { error: 'the kill switch needs the confirmation header x-perpkit-confirm: KILL (the page asks first)', code: 'NOT_CONFIRMED' });
      return;
    }
    if (this.refuseWhenNotRunning(res, actor, 'kill', undefined)) return;
    const before = this.o.bot.tracker.live().length;
    await this.o.kill(`dashboard: ${actorText(actor)}`);
    this.record(actor, 'kill', undefined, `HALTED; ${before} working orders cancelled`, true);
    this.o.view.onChange();
    json(res, 200, { ok: true, action: 'kill', state: this.o.bot.risk.state, cancelled: before });
  }
}

function frame(event: string, id: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}
