/**
 * How a long command (import, synth, sweep) stops on Ctrl+C: the first SIGINT or SIGTERM aborts a
 * signal (its reason the signal's name) that the work checks, so it can stop and clean up; a
 * second one exits at once.
 */

/** The shell's exit code for a process ended by a signal: 130 for SIGINT, 143 for SIGTERM. */
export const signalExit = (sig: string): number => (sig === 'SIGTERM' ? 143 : 130);

export interface SignalStop {
  readonly signal: AbortSignal;
  /** Stops listening for the signals (when the work is over). */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM; `onFirst` runs on the first, before the abort, and `onSecond` on
 * the second, before the exit (to say what quitting at once leaves behind).
 */
export function stopOnSignals(onFirst?: (sig: NodeJS.Signals) => void, onSecond?: (sig: NodeJS.Signals) => void): SignalStop {
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stop.signal.aborted) {
      onSecond?.(sig);
      process.exit(signalExit(sig));
    }
    onFirst?.(sig);
    stop.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
