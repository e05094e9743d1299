/**
 * Users, API keys and favourite symbols of the local exchange: the state outside the engine that
 * must survive a restart, changed only through journaled commands.
 */
import type { Permission, PositionMode } from '../../core/enums';

export interface UserRecord {
  userId: string;
  username: string;
  /** scrypt hash in the form `scrypt$N$r$p$saltB64$hashB64`. */
  passwordHash: string;
  positionMode: PositionMode;
  createdAt: number;
  agentId: number;
  vipLevel: number;
}

export interface ApiKeyRecord {
  apiKey: string;
  userId: string;
  secret: string;
  permissions: Permission[];
  createdAt: number;
}

export class AccountsState {
  readonly users = new Map<string, UserRecord>();
  readonly byUsername = new Map<string, UserRecord>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  readonly favorites = new Map<string, string[]>();
  /** Last login per user: not journaled (informational). */
  readonly lastLogin = new Map<string, { at: number; ip: string }>();
  private seq = 0;

  /** The next external user id: stable across replays because it depends only on the journal. */
  nextUserId(): string {
    return String(10000001 + this.seq);
  }

  addUser(u: UserRecord): void {
    this.users.set(u.userId, u);
    this.byUsername.set(u.username, u);
    this.seq++;
  }

  addApiKey(k: ApiKeyRecord): void {
    this.apiKeys.set(k.apiKey, k);
  }
}
