/**
 * A gateway over real loopback: a plain http.Server on a free port, an ExchangeCore, a
 * ListenKeyStore and a MarketDataStore wired the way the exchange server wires them. Tests drive
 * the engine through `core.execute` and watch the streams through real WebSocket clients.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { type ClientOptions } from 'ws';
import { SystemClock, type Clock } from '../../../../src/core/clock';
import type { PlaceOrderInput } from '../../../../src/exchange/engine/inputs';
import type { Command } from '../../../../src/exchange/service/commands';
import { DEFAULT_CONFIG, type ExchangeConfig } from '../../../../src/exchange/service/config';
import { ExchangeCore } from '../../../../src/exchange/service/exchange-core';
import { ListenKeyStore } from '../../../../src/exchange/transport/listen-keys';
import { MarketDataStore } from '../../../../src/exchange/service/market-data';
import { WsGateway, type WsGatewayOptions } from '../../../../src/exchange/transport/ws/gateway';

export interface WorldOptions {
  ws?: Partial<ExchangeConfig['ws']>;
  listenKeyTtlMs?: number;
  gateway?: Partial<Pick<WsGatewayOptions, 'depthIntervalMs' | 'tickerIntervalMs' | 'closeGraceMs' | 'maxBufferedBytes'>>;
  wallClock?: Clock;
}

export interface World {
  core: ExchangeCore;
  listenKeys: ListenKeyStore;
  marketData: MarketDataStore;
  server: Server;
  gateway: WsGateway;
  port: number;
  exec<R = unknown>(cmd: Command): Promise<R>;
  createUser(userId: string, balance?: string): Promise<void>;
  place(userId: string, input: Partial<PlaceOrderInput> & Pick<PlaceOrderInput, 'side'>): Promise<{ orderId: string; status: string }>;
  privateUrl(listenKey: string): string;
  publicUrl(): string;
  /** Opens a client; closed by `close()`. */
  connect(url: string, opts?: ClientOptions): Promise<Client>;
  close(): Promise<void>;
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const config: ExchangeConfig = { ...DEFAULT_CONFIG, ws: { ...DEFAULT_CONFIG.ws, ...opts.ws } };
  const wallClock = opts.wallClock ?? new SystemClock();
  const core = new ExchangeCore({ config, wallClock });
  const listenKeys = new ListenKeyStore(wallClock, opts.listenKeyTtlMs ?? config.listenKey.ttlMs, config.listenKey.maxPerUser);
  const marketData = new MarketDataStore(config.symbols.map((s) => s.symbol));
  core.emitter.on('events', (events) => marketData.onEvents(events));
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const gateway = new WsGateway({ core, listenKeys, marketData, httpServer: server, config: config.ws, ...opts.gateway });
  const clients: Client[] = [];
  const exec = <R = unknown>(cmd: Command): Promise<R> => core.execute<R>(cmd);
  const world: World = {
    core,
    listenKeys,
    marketData,
    server,
    gateway,
    port,
    exec,
    async createUser(userId, balance = '100000') {
      await exec({ k: 'createUser', userId, username: userId, passwordHash: 'x', balance, positionMode: 'ONE_WAY' });
    },
    place(userId, input) {
      return exec({ k: 'placeOrder', userId, input: { symbol: 'BTCUSDT', type: 'LIMIT', quantity: '1', ...input } });
    },
    privateUrl: (key) => `ws://127.0.0.1:${port}/v1/ws/private?listenKey=${encodeURIComponent(key)}`,
    publicUrl: () => `ws://127.0.0.1:${port}/v1/ws/public`,
    async connect(url, copts) {
      const c = await Client.open(url, copts);
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.ws.terminate();
      await gateway.close();
      await core.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return world;
}

export type Json = Record<string, unknown> & { event?: string; seq?: number; data?: Record<string, unknown> };

/** A WebSocket client that keeps every text frame it received, decoded. */
export class Client {
  readonly messages: Json[] = [];
  private cursor = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.messages.push(JSON.parse(String(data)) as Json);
    });
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string, opts?: ClientOptions): Promise<Client> {
    const ws = new WebSocket(url, opts);
    const c = new Client(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The next message (after those already taken) that matches, waiting for it. */
  async next(pred: (m: Json) => boolean = () => true, timeoutMs = 3000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.messages.length) {
        const m = this.messages[this.cursor++];
        if (pred(m)) return m;
      }
      if (Date.now() > deadline) throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-5))}`);
      await sleep(5);
    }
  }

  /** Takes the next `n` messages in order. */
  async take(n: number, timeoutMs = 3000): Promise<Json[]> {
    const out: Json[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(() => true, timeoutMs));
    return out;
  }

  /** Every message not yet taken, without waiting. */
  drain(): Json[] {
    const out = this.messages.slice(this.cursor);
    this.cursor = this.messages.length;
    return out;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `cond` holds (never sleeps a fixed time to wait for an effect). */
export async function until(cond: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Status and JSON body of a refused upgrade. */
export function refusedUpgrade(url: string): Promise<{ status: number; body: Record<string, unknown>; requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('error', () => undefined);
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('upgrade unexpectedly accepted'));
    });
    ws.once('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        const header = res.headers['x-request-id'];
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>, requestId: typeof header === 'string' ? header : undefined });
      });
    });
  });
}
