/**
 * What an operator wants to know about a running bot, computed from its cache and tracker: the
 * numbers behind /status, the PnL and exposure gauges of /metrics and the demo's status line.
 *
 * PnL is equity now minus equity when the bot first saw the account, equity being the wallet
 * balance plus the unrealized PnL of every position at the latest mark the bot holds (the
 * account's own unrealizedPnl only moves with account events, marks move more often).
 */
import { Dec } from '../core/decimal';
import type { Bot } from '../bot/bot';
import type { TradingState } from '../bot/risk/decision';
import type { PositionView } from './dashboard/types';

/** A position on /status: the dashboard's wire type (one type for both). */
export type PositionStatus = PositionView;

export interface BotStatus {
  state: TradingState;
  stateReason: string;
  running: boolean;
  /** `unauthenticated`: the venue refuses the credentials it reconnects or keeps its listenKey alive with (StatusTracker.privateStreamReason says how, for /healthz). */
  privateStream: 'connected' | 'disconnected' | 'unauthenticated' | 'unknown';
  fills: number;
  openOrders: number;
  ordersByState: Record<string, number>;
  positions: PositionStatus[];
  /** USDT decimals; undefined before the first account reading. */
  equity: string | undefined;
  pnl: string | undefined;
  exposure: string;
  stats: Bot['stats'];
}

export class StatusTracker {
  private startEquity: Dec | undefined;
  private stream: BotStatus['privateStream'] = 'unknown';
  /** The venue's refusal while the private stream is `unauthenticated`. */
  private streamRefusal = '';
  /** Since when (bot clock, ms) the public stream (marks, trades, book) has been down; undefined while it is up. */
  private publicDown: number | undefined;
  running = false;

  constructor(private readonly bot: Bot) {
    bot.bus.subscribe('stream', (e) => {
      const up = e.status === 'connected' || e.status === 'reconnected';
      if (e.stream === 'public') {
        if (e.status === 'disconnected') this.publicDown ??= e.time;
        else if (up) this.publicDown = undefined;
        return;
      }
      if (up) this.stream = 'connected';
      else if (e.status === 'unauthenticated') {
        this.stream = 'unauthenticated';
        this.streamRefusal = e.detail;
      }
      // A close while refused (each failed attempt makes none) does not hide why it stays down.
      else if (e.status === 'disconnected' && this.stream !== 'unauthenticated') this.stream = 'disconnected';
    });
  }

  /** Since when the public stream has been down (bot clock, ms); undefined while it is up. */
  get publicDownSince(): number | undefined {
    return this.publicDown;
  }

  get privateStream(): BotStatus['privateStream'] {
    return this.stream;
  }

  /** Why the private stream is down, for /healthz: the venue's refusal when it refuses the credentials. */
  get privateStreamReason(): string {
    return this.stream === 'unauthenticated'
      ? `private stream unauthenticated: the venue refuses the credentials (${this.streamRefusal}); no order updates or fills reach the bot until they are fixed (it keeps retrying)`
      : `private stream ${this.stream}`;
  }

  /** Wallet balance plus unrealized PnL at the latest marks; undefined before any account data. */
  equity(): Dec | undefined {
    const asset = this.bot.cache.asset();
    if (!asset) return undefined;
    let eq = new Dec(asset.walletBalance);
    for (const p of this.positionStatus()) eq = eq.plus(p.unrealizedPnl);
    return eq;
  }

  private positionStatus(): PositionStatus[] {
    const out: PositionStatus[] = [];
    for (const p of this.bot.cache.positions()) {
      const qty = new Dec(p.quantity);
      if (qty.isZero()) continue;
      const mark = this.bot.cache.mark(p.symbol)?.markPrice;
      // One-way positions are signed; hedge-mode SHORT quantities are positive but lose as mark rises.
      const signed = p.positionSide === 'SHORT' ? qty.abs().negated() : qty;
      const upnl = mark === undefined ? new Dec(p.unrealizedPnl) : new Dec(mark).minus(p.entryPrice).times(signed);
      out.push({ symbol: p.symbol, positionSide: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, markPrice: mark, unrealizedPnl: upnl.toString(), liqPrice: p.liqPrice, leverage: p.leverage });
    }
    return out;
  }

  /** Sum of absolute position notionals at mark (entry price when no mark is known). */
  exposure(): Dec {
    let sum = new Dec(0);
    for (const p of this.bot.cache.positions()) {
      const px = this.bot.cache.mark(p.symbol)?.markPrice ?? p.entryPrice;
      sum = sum.plus(new Dec(p.quantity).abs().times(px));
    }
    return sum;
  }

  pnl(): Dec | undefined {
    const eq = this.equity();
    if (eq === undefined) return undefined;
    this.startEquity ??= eq;
    return eq.minus(this.startEquity);
  }

  snapshot(): BotStatus {
    const byState = this.bot.tracker.countByState();
    const live = this.bot.tracker.live().length;
    const eq = this.equity();
    const pnl = this.pnl();
    return {
      state: this.bot.risk.state,
      stateReason: this.bot.risk.reason,
      running: this.running,
      privateStream: this.stream,
      fills: this.bot.stats.fills,
      openOrders: live,
      ordersByState: { ...byState },
      positions: this.positionStatus(),
      equity: eq?.toFixed(4),
      pnl: pnl?.toFixed(4),
      exposure: this.exposure().toFixed(4),
      stats: { ...this.bot.stats },
    };
  }
}
