/**
 * Time and timers are injected (DESIGN.md: nothing below the runtime reads the wall clock on its
 * own). The defaults look the global timers up at call time, so jest's fake timers drive them.
 */
import { SystemClock, type Clock } from '../core/clock';

/** The longest delay Node's timers take (2^31 - 1 ms); a timeout option is checked against it. */
export const TIMER_MAX_MS = 2_147_483_647;

export interface TimerHandle {
  unref?(): unknown;
  ref?(): unknown;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(h: TimerHandle): void;
}

export const NODE_TIMERS: Timers = {
  setTimeout(fn, ms) {
    const h = globalThis.setTimeout(fn, ms);
    h.unref?.();
    return h;
  },
  clearTimeout(h) {
    globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>);
  },
};

export const SYSTEM_CLOCK: Clock = new SystemClock();

/** A promise that resolves after `ms`, or rejects with the signal's reason when aborted first. */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 && signal?.aborted !== true) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timers.clearTimeout(h);
      reject(signal?.reason);
    };
    const h = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    // NODE_TIMERS unrefs its timers (an idle client must not hold the process), but an awaited
    // sleep is work under way: a retry's backoff, the 429 gate, settling an order. Unref'd, it let
    // a process with nothing else alive (a bot or recorder still starting against a venue that does
    // not answer) end with exit 0 in the middle of the retry, having said nothing.
    h.ref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
