/**
 * Alerts to a human (the `notify:` section of a bot config): what needs one (risk state changes,
 * the kill switch, a strategy stopped for its errors, the venue unreachable or the private stream
 * down for longer than a threshold, the daily loss near its limit) goes to webhooks: generic JSON,
 * Slack-shaped (`{text}`) or Telegram-shaped (`sendMessage`: `{chat_id, text}`). URLs come from
 * environment variables (a Slack or Telegram URL carries its token) and never reach a log.
 *
 * A notifier never stops or slows the bot: alerts queue (bounded; the oldest dropped and counted)
 * and are sent in the background with bounded retries; failures are counted and logged at warn.
 * Each kind is rate limited: within `minIntervalMs` of the last alert of a kind, more are counted
 * and the next one sent says how many were suppressed.
 */
import type { Logger } from 'pino';
import type { Bot } from '../bot/bot';
import type { BotEventOf } from '../bot/bus/events';
import { Dec } from '../core/decimal';
import { undici } from '../client/transport/http';

export type AlertSeverity = 'info' | 'warning' | 'critical';

export interface Alert {
  kind: string;
  severity: AlertSeverity;
  message: string;
  details?: Record<string, unknown>;
}

export type NotifyTargetKind = 'webhook' | 'slack' | 'telegram';

export interface NotifyTarget {
  kind: NotifyTargetKind;
  /** Resolved from the environment variable the config names. */
  url: string;
  /** Telegram's chat id. */
  chatId?: string;
}

export interface NotifyOptions {
  targets: NotifyTarget[];
  /** Name of the bot in every alert. */
  botName: string;
  minIntervalMs: number;
  /** Alert when every venue call has failed for this long. */
  venueUnreachableMs: number;
  /** Alert when the private stream has been down or silent for this long. */
  streamDownMs: number;
  /** Alert when the day's loss reaches this fraction of risk.maxDailyLoss. */
  dailyLossWarnFraction: number;
  /** Attempts per target (1 + retries) and the first retry delay, doubling. */
  attempts?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
}

const MAX_QUEUE = 100;

export interface NotifierStats {
  sent: number;
  failed: number;
  suppressed: number;
  dropped: number;
}

export class Notifier {
  readonly stats: NotifierStats = { sent: 0, failed: 0, suppressed: 0, dropped: 0 };
  private readonly lastByKind = new Map<string, number>();
  private readonly suppressedByKind = new Map<string, number>();
  private readonly queue: Array<{ alert: Alert; suppressed: number; time: number }> = [];
  private sending: Promise<void> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    private readonly opts: NotifyOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues an alert (rate limited per kind); returns at once. */
  alert(a: Alert): void {
    if (this.closed) return;
    const t = this.now();
    const last = this.lastByKind.get(a.kind);
    if (last !== undefined && t - last < this.opts.minIntervalMs) {
      this.suppressedByKind.set(a.kind, (this.suppressedByKind.get(a.kind) ?? 0) + 1);
      this.stats.suppressed++;
      return;
    }
    this.lastByKind.set(a.kind, t);
    const suppressed = this.suppressedByKind.get(a.kind) ?? 0;
    this.suppressedByKind.delete(a.kind);
    if (this.queue.length >= MAX_QUEUE) {
      this.queue.shift();
      this.stats.dropped++;
    }
    this.queue.push({ alert: a, suppressed, time: t });
    this.sending ??= this.drain().finally(() => {
      this.sending = undefined;
    });
  }

  /** Resolves once every queued alert was sent or given up (for a stop, and tests). */
  async idle(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async drain(): Promise<void> {
    for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) {
      const { alert, suppressed, time } = item;
      await Promise.all(this.opts.targets.map((target) => this.send(target, alert, suppressed, time)));
    }
  }

  private async send(target: NotifyTarget, a: Alert, suppressed: number, time: number): Promise<void> {
    const text = `[${a.severity}] ${this.opts.botName}: ${a.message}${suppressed > 0 ? ` (${suppressed} more ${a.kind} alerts suppressed)` : ''}`;
    const body =
      target.kind === 'slack'
        ? { text }
        : target.kind === 'telegram'
          ? { chat_id: target.chatId, text }
          : { bot: this.opts.botName, kind: a.kind, severity: a.severity, message: a.message, details: a.details ?? {}, time: new Date(time).toISOString(), suppressed };
    const attempts = this.opts.attempts ?? 3;
    let delay = this.opts.retryDelayMs ?? 500;
    let last = '';
    for (let i = 0; i < attempts && !this.closed; i++) {
      try {
        const res = await undici().request(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          headersTimeout: this.opts.timeoutMs ?? 5000,
          bodyTimeout: this.opts.timeoutMs ?? 5000,
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          this.stats.sent++;
          return;
        }
        last = `HTTP ${res.statusCode}`;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
      }
      if (i + 1 < attempts) await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
    this.stats.failed++;
    // The URL is a secret (tokens ride in it): only the target's kind is logged.
    this.log.warn({ target: target.kind, alert: a.kind, error: last }, 'alert not delivered');
  }

  /** Watches a bot: the bus events and conditions that need a person. */
  watch(bot: Bot): void {
    bot.bus.subscribe('riskState', (e) => this.alert(riskAlert(e)));
    bot.bus.subscribe('strategyStopped', (e) => this.alert({ kind: 'strategyStopped', severity: 'critical', message: `strategy ${e.strategyId} stopped for its errors: ${e.reason}`, details: { strategy: e.strategyId } }));
    let downSince: number | undefined;
    bot.bus.subscribe('stream', (e) => {
      if (e.stream !== 'private') return;
      if (e.status === 'disconnected' || e.status === 'silent' || e.status === 'unauthenticated') downSince ??= this.now();
      else if (e.status === 'connected' || e.status === 'reconnected') downSince = undefined;
    });
    let dayAlerted = -1;
    const tick = setInterval(() => {
      const t = this.now();
      if (downSince !== undefined && t - downSince >= this.opts.streamDownMs) {
        this.alert({ kind: 'streamDown', severity: 'critical', message: `the private stream has been down or silent for ${Math.round((t - downSince) / 1000)} s`, details: { since: new Date(downSince).toISOString() } });
      }
      if (this.failingSince !== undefined && t - this.failingSince >= this.opts.venueUnreachableMs) {
        this.alert({ kind: 'venueUnreachable', severity: 'critical', message: `every venue call has failed for ${Math.round((t - this.failingSince) / 1000)} s`, details: { since: new Date(this.failingSince).toISOString() } });
      }
      const limit = bot.risk.configured.maxDailyLoss;
      const loss = bot.risk.dailyLoss();
      const day = Math.floor(t / 86_400_000);
      if (limit !== undefined && loss !== undefined && day !== dayAlerted && loss.gte(new Dec(limit).times(this.opts.dailyLossWarnFraction))) {
        dayAlerted = day;
        this.alert({ kind: 'dailyLossNear', severity: 'warning', message: `daily loss ${loss.toFixed(2)} USDT has reached ${Math.round(this.opts.dailyLossWarnFraction * 100)} % of the limit ${limit}`, details: { loss: loss.toString(), limit } });
      }
    }, 250);
    tick.unref();
    this.timers.push(tick);
  }

  private failingSince: number | undefined;

  /** Feed of venue call outcomes (the daemon's TimedVenue observer): how long it has been unreachable. */
  observeVenueCall(ok: boolean): void {
    if (ok) this.failingSince = undefined;
    else this.failingSince ??= this.now();
  }

  /** Stops the watchers; queued alerts are still sent (await idle()). */
  close(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
  }
}

function riskAlert(e: BotEventOf<'riskState'>): Alert {
  if (e.reason.startsWith('kill switch')) return { kind: 'killSwitch', severity: 'critical', message: `kill switch: ${e.reason.replace(/^kill switch: /, '')}; every order is being cancelled`, details: { state: e.state } };
  const severity: AlertSeverity = e.state === 'HALTED' ? 'critical' : e.state === 'REDUCING' ? 'warning' : 'info';
  return { kind: `riskState`, severity, message: `trading state ${e.state}: ${e.reason}`, details: { state: e.state, reason: e.reason } };
}
