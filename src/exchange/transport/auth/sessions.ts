/**
 * Short-lived credentials held in memory: refresh tokens (rotated on every use) and the agent-SSO
 * tickets and embed tokens the admin API mints. None is journaled: after a restart users log in
 * again, as they would after the access-token secret changed.
 *
 * Maps are keyed by a SHA-256 of the token, so a heap dump or a debugger never shows a usable token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../../core/clock';

const TICKET_TTL_MS = 60_000;
const EMBED_TOKEN_TTL_MS = 5 * 60_000;

interface Grant {
  userId: string;
  expireAt: number;
  channelId?: string;
}

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url');
const newToken = (): string => randomBytes(32).toString('base64url');

/** Store of one kind of bearer grant. */
class GrantStore {
  private readonly grants = new Map<string, Grant>();

  constructor(private readonly clock: Clock) {}

  mint(grant: Grant): string {
    this.sweep();
    const token = newToken();
    this.grants.set(digest(token), grant);
    return token;
  }

  /** The live grant behind the token, without using it up. */
  peek(token: string): Grant | undefined {
    const g = this.grants.get(digest(token));
    if (!g) return undefined;
    if (g.expireAt <= this.clock.now()) {
      this.grants.delete(digest(token));
      return undefined;
    }
    return g;
  }

  consume(token: string): void {
    this.grants.delete(digest(token));
  }

  sweep(): void {
    const now = this.clock.now();
    for (const [k, g] of this.grants) if (g.expireAt <= now) this.grants.delete(k);
  }
}

export class SessionStore {
  private readonly refresh: GrantStore;
  private readonly tickets: GrantStore;
  private readonly embeds: GrantStore;

  constructor(
    private readonly clock: Clock,
    private readonly refreshTtlMs: number,
  ) {
    this.refresh = new GrantStore(clock);
    this.tickets = new GrantStore(clock);
    this.embeds = new GrantStore(clock);
  }

  issueRefreshToken(userId: string): string {
    return this.refresh.mint({ userId, expireAt: this.clock.now() + this.refreshTtlMs });
  }

  /** Rotation: the presented token dies, a new one for the same user is returned. */
  rotateRefreshToken(token: string): { userId: string; token: string } | undefined {
    const g = this.refresh.peek(token);
    if (!g) return undefined;
    this.refresh.consume(token);
    return { userId: g.userId, token: this.issueRefreshToken(g.userId) };
  }

  mintTicket(userId: string): string {
    return this.tickets.mint({ userId, expireAt: this.clock.now() + TICKET_TTL_MS });
  }

  /** One use: the ticket is gone after this call, whatever the outcome of the request. */
  useTicket(ticket: string): string | undefined {
    const g = this.tickets.peek(ticket);
    if (!g) return undefined;
    this.tickets.consume(ticket);
    return g.userId;
  }

  mintEmbedToken(userId: string, channelId: string): string {
    return this.embeds.mint({ userId, channelId, expireAt: this.clock.now() + EMBED_TOKEN_TTL_MS });
  }

  /**
   * One use, bound to the channel. A wrong channel does not use the token up: the channel id is
   * not a secret, and burning the token would let anyone who guesses it break a user's iframe.
   */
  useEmbedToken(embedToken: string, channelId: string): string | undefined {
    const g = this.embeds.peek(embedToken);
    if (!g || g.channelId !== channelId) return undefined;
    this.embeds.consume(embedToken);
    return g.userId;
  }

  sweep(): void {
    this.refresh.sweep();
    this.tickets.sweep();
    this.embeds.sweep();
  }
}
