/**
 * Where accepted commands go before the client hears back. `append` resolves once the entry is
 * as durable as the log promises (written to the OS, or fsynced); entries resolve in order.
 */
import type { JournalEntry } from './commands';

export interface CommandLog {
  /** Entries already on the log, oldest first, to replay at start (after any snapshot). */
  replay(): AsyncIterable<JournalEntry> | Iterable<JournalEntry>;
  append(entry: JournalEntry): Promise<void>;
  /** Flushes what is buffered and releases the file. */
  close(): Promise<void>;
}

/** The log of an exchange without a data directory: nothing survives the process. */
export class MemoryLog implements CommandLog {
  replay(): Iterable<JournalEntry> {
    return [];
  }

  append(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
