/**
 * Where accepted commands go before the client hears back. `append` resolves once the entry is
 * as durable as the log promises (written to the OS, or fsynced); entries resolve in order.
 */
import type { JournalEntry } from './commands';

export interface CommandLog {
  /** Entries already on the log, oldest first, to replay at start (after any snapshot). */
  replay(): AsyncIterable<JournalEntry> | Iterable<JournalEntry>;
  /**
   * Returns nothing when the entry is already as durable as this log makes it (the in-memory log):
   * the caller then needs no await, one promise and microtask turn less per command.
   */
  append(entry: JournalEntry): Promise<void> | void;
  /**
   * Flushes what is buffered and releases the file. `final: false` (a start that did not
   * complete): nothing more is written than what is buffered (no final snapshot).
   */
  close(opts?: { final?: boolean }): Promise<void>;
}

/** The log of an exchange without a data directory: nothing survives the process. */
export class MemoryLog implements CommandLog {
  replay(): Iterable<JournalEntry> {
    return [];
  }

  append(): void {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}
