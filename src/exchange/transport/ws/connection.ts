/** Per-connection state shared by both streams; the streams extend it with their own. */
import type { WebSocket } from 'ws';
import type { TimerHandle } from './timers';

export interface ConnectionBase {
  /** Process-unique, for logs. */
  readonly id: number;
  readonly ws: WebSocket;
  /** Last sign of life from the client (pong or any frame), by the gateway's clock. */
  lastSeen: number;
  /** Fires when the connection may be dead; re-armed lazily (see WsGateway.checkAlive). */
  deadTimer: TimerHandle | undefined;
  /** False once the gateway has let go of it (closing, closed or terminated). */
  attached: boolean;
}
