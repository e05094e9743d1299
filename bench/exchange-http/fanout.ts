/**
 * WebSocket subscribers for the fan-out measurement, in the bench process (the same process
 * that sends the orders, so send and arrival are stamped with the same process.hrtime clock).
 *
 * Frames are not JSON-parsed: the few fields needed are cut out of the text with indexOf, so
 * that the subscribers cost the client as little CPU as possible (the server's key order is
 * fixed). Latency samples:
 * - private: arrival of a placement's own ORDER_TRADE_UPDATE (executionType NEW for a maker
 *   order, TRADE for a taker order) minus the send time of that placement, matched by
 *   clientOrderId, on every connection of the user;
 * - public trade: arrival minus the send time of the taker order that made the trade, matched
 *   through the tradeId that the taker's private TRADE event carries (joined after the run).
 */
import { WebSocket, type RawData } from 'ws';

export interface FanoutCounters {
  privateFrames: number;
  publicTradeFrames: number;
  publicDepthFrames: number;
  publicOtherFrames: number;
}

export class Fanout {
  private readonly sockets: WebSocket[] = [];
  /** clientOrderId -> send time, ns since timeBase. */
  readonly sentAt = new Map<string, number>();
  /** tradeId -> clientOrderId of the taker (from the taker's private TRADE event). */
  private readonly takerOfTrade = new Map<string, string>();
  private readonly privateSamples: number[] = [];
  private pubTradeIds: string[] = [];
  private pubTradeAt: number[] = [];
  private counting = false;
  private sampling = false;
  readonly counters: FanoutCounters = { privateFrames: 0, publicTradeFrames: 0, publicDepthFrames: 0, publicOtherFrames: 0 };

  constructor(
    private readonly wsBase: string,
    readonly timeBase: bigint,
  ) {}

  private nowNs(): number {
    return Number(process.hrtime.bigint() - this.timeBase);
  }

  private open(url: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      this.sockets.push(ws);
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`websocket upgrade to ${url} refused: HTTP ${res.statusCode}`)));
    });
  }

  async addPrivate(listenKey: string): Promise<void> {
    const ws = await this.open(`${this.wsBase}/v1/ws/private?listenKey=${encodeURIComponent(listenKey)}`);
    ws.on('message', (data: RawData) => this.onPrivate(data));
  }

  async addPublic(topics: string[]): Promise<void> {
    const ws = await this.open(`${this.wsBase}/v1/ws/public`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no subscribe acknowledgement within 5 s')), 5000);
      ws.on('message', (data: RawData) => {
        const text = data.toString();
        if (text.startsWith('{"op":"subscribe"')) {
          clearTimeout(timer);
          if (!text.includes('"success":true')) reject(new Error(`subscribe refused: ${text.slice(0, 200)}`));
          else resolve();
          return;
        }
        this.onPublic(text);
      });
      ws.send(JSON.stringify({ op: 'subscribe', args: topics }));
    });
  }

  /** Frames are counted from here on. */
  startCounting(): void {
    this.counting = true;
  }

  stopCounting(): void {
    this.counting = false;
  }

  /** Latency samples are taken for frames arriving from here on. */
  setSampling(on: boolean): void {
    this.sampling = on;
  }

  private onPrivate(data: RawData): void {
    if (this.counting) this.counters.privateFrames++;
    if (!this.sampling) return;
    const text = data.toString();
    if (!text.startsWith('{"event":"ORDER_TRADE_UPDATE"')) return;
    const cid = field(text, '"clientOrderId":"');
    const exec = field(text, '"executionType":"');
    if (cid === undefined || exec === undefined) return;
    const taker = cid.charCodeAt(0) === 116; // 't'
    if (taker ? exec !== 'TRADE' : exec !== 'NEW') return;
    const sent = this.sentAt.get(cid);
    if (sent === undefined) return;
    this.privateSamples.push(this.nowNs() - sent);
    if (taker) {
      const tradeId = field(text, '"tradeId":"');
      if (tradeId !== undefined) this.takerOfTrade.set(tradeId, cid);
    }
  }

  private onPublic(text: string): void {
    if (text.startsWith('{"event":"trade"')) {
      if (this.counting) this.counters.publicTradeFrames++;
      if (!this.sampling) return;
      const tradeId = field(text, '"tradeId":"');
      if (tradeId === undefined) return;
      this.pubTradeIds.push(tradeId);
      this.pubTradeAt.push(this.nowNs());
    } else if (text.startsWith('{"event":"depth"')) {
      if (this.counting) this.counters.publicDepthFrames++;
    } else if (this.counting) {
      this.counters.publicOtherFrames++;
    }
  }

  /** Private latency samples, ns. */
  privateLatencies(): Float64Array {
    return Float64Array.from(this.privateSamples);
  }

  /** Public trade latency samples, ns (joined through the takers' tradeIds); and how many did not join. */
  publicTradeLatencies(): { samples: Float64Array; unmatched: number } {
    const out: number[] = [];
    let unmatched = 0;
    for (let i = 0; i < this.pubTradeIds.length; i++) {
      const cid = this.takerOfTrade.get(this.pubTradeIds[i]);
      const sent = cid === undefined ? undefined : this.sentAt.get(cid);
      if (sent === undefined) unmatched++;
      else out.push(this.pubTradeAt[i] - sent);
    }
    this.pubTradeIds = [];
    this.pubTradeAt = [];
    return { samples: Float64Array.from(out), unmatched };
  }

  get connectionCount(): number {
    return this.sockets.length;
  }

  /** Closes every socket (terminate: no close handshake to wait for). */
  close(): void {
    for (const ws of this.sockets) {
      ws.removeAllListeners('message');
      ws.on('error', () => undefined);
      ws.terminate();
    }
    this.sockets.length = 0;
  }
}

/** The JSON string value after `key` (which ends with the opening quote), or undefined. */
function field(text: string, key: string): string | undefined {
  const i = text.indexOf(key);
  if (i < 0) return undefined;
  const start = i + key.length;
  const end = text.indexOf('"', start);
  return end < 0 ? undefined : text.slice(start, end);
}
