/** What a handler gets: the validated request, who sent it, and the server's state. */
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { EndpointName, RequestOf, ResponseOf } from '../../../protocol/endpoints';
import type { JwtSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { SessionStore } from '../auth/sessions';
import type { ExchangeCore } from '../../service/exchange-core';
import type { FaultSwitches } from '../faults';
import type { ListenKeyStore } from '../listen-keys';
import type { MarketDataStore } from '../../service/market-data';

export interface ServerDeps {
  core: ExchangeCore;
  listenKeys: ListenKeyStore;
  marketData: MarketDataStore;
  sessions: SessionStore;
  jwt: JwtSigner;
  /** Fault injection (faults.ts): the admin switches, and the clock skew GET /v1/time reports. */
  faults: FaultSwitches;
}

export interface RequestContext {
  deps: ServerDeps;
  principal: Principal | undefined;
  /** Remote address, for lastLoginIp. */
  ip: string;
  headers: IncomingHttpHeaders;
  setCookie(value: string): void;
}

/** The authenticated user; private endpoints are only reached with one. */
export function userOf(ctx: RequestContext): string {
  if (!ctx.principal) throw new VenueError(ErrorCodes.NOT_AUTHENTICATED, 'authentication required');
  return ctx.principal.userId;
}

export type Handler<K extends EndpointName> = (ctx: RequestContext, req: RequestOf<K>) => ResponseOf<K> | Promise<ResponseOf<K>>;
export type HandlerMap = { [K in EndpointName]: Handler<K> };
