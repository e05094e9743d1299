/** Who a request acts for, once authenticated. */
import type { Permission } from '../../../core/enums';

export interface Principal {
  userId: string;
  /** How the caller proved it: a JWT session holds every permission, an API key its own set. */
  via: 'jwt' | 'apiKey';
  permissions: ReadonlySet<Permission>;
  /** The API key, for logs (never the secret). */
  apiKey?: string;
}

export const ALL_PERMISSIONS: ReadonlySet<Permission> = new Set<Permission>(['READ', 'TRADE']);
