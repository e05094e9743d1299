/**
 * WebSocket gateway of the local exchange: private streams per listenKey and the public stream.
 * PLACEHOLDER signature only — being implemented (issue 3); it accepts no connections yet.
 */
import type { Server } from 'node:http';
import type { ExchangeConfig } from '../config';
import type { ExchangeCore } from '../exchange-core';
import type { ListenKeyStore } from '../listen-keys';
import type { MarketDataStore } from '../market-data';

export interface WsGatewayOptions {
  core: ExchangeCore;
  listenKeys: ListenKeyStore;
  marketData: MarketDataStore;
  httpServer: Server;
  config: ExchangeConfig['ws'];
}

export class WsGateway {
  constructor(private readonly opts: WsGatewayOptions) {}

  /** Number of open WebSocket connections (for metrics and tests). */
  get connectionCount(): number {
    return 0;
  }

  /** Closes every connection (code 1001) and stops timers. */
  async close(): Promise<void> {
    void this.opts;
  }
}
