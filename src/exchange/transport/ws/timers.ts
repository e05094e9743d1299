/**
 * Timers the gateway uses, injectable so that tests (and a virtual clock) can drive heartbeats
 * and coalescing without waiting on the wall clock. The default wraps Node's timers and unrefs
 * them: a gateway's housekeeping must never be what keeps a process alive.
 */

/** Opaque: only ever handed back to the clear function that matches the set function. */
export type TimerHandle = unknown;

export interface GatewayTimers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

type NodeTimer = ReturnType<typeof setTimeout>;

export const NODE_TIMERS: GatewayTimers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeTimer);
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, ms);
    t.unref();
    return t;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeTimer);
  },
};
