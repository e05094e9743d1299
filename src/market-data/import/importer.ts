/**
 * The part of an importer that does not depend on the venue's format (binance-futures.ts and
 * tardis.ts extend it):
 *
 * - **Output.** Events go, in receive order, to a temporary gzip body; the header (which holds
 *   what only the end knows: specs, counts, sources) is written as a first gzip member before it,
 *   and the file is renamed into place last (a multi-member gzip is one stream to any reader).
 *   Nothing is left behind on failure. Memory is flat: lines go to gzip in 64 KiB pieces.
 * - **Range.** --to stops reading (`accept`); --from drops events before it (counted as skipped,
 *   every message before it under the one reason SKIPPED_BEFORE_FROM) while the books are kept, and
 *   writes each known book as a `snapshot` at the first event inside.
 * - **Counting.** Every input message becomes one event or a skip counted by reason.
 * - **Specs.** Tick and step are the largest grids every price and quantity of the symbol lie on
 *   (the greatest common divisor), unless --tick/--step say (symbol-grid.ts); the other fields
 *   are defaults.
 * - **Marks.** Without a mark price stream, marks are derived, each after the line it comes from:
 *   the mid of the first quote of each second of receive time (or of the rebuilt book's top), down
 *   to the tick, index = mark, funding rate 0, the next 8-hour funding time; the header says so.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createGzip, gzipSync, type ZlibOptions } from 'node:zlib';
import { fromScaledInt, toScaledInt } from '../../core/decimal';
import { RECORDING_FORMAT, SKIPPED_BEFORE_FROM, type MarkProvenance, type RecordedEvent, type RecordedKind, type RecordingHeader } from '../format';
import type { L2Book } from '../l2-book';
import { AnnouncedFunding } from '../funding-times';
import { appendBody, nextFunding, SCALE, type ImportOptions, type ImportSummary } from './common';
import { ImportInputError } from './errors';
import { removeStaleTemps } from './stale-temps';
import { gridState, SymbolGrid, type GridState } from './symbol-grid';

/**
 * gzip level of imported recordings. 5, not the recorder's 6: compression is the larger half of an
 * import's CPU, and on the shared Binance capture level 5 takes about 40 % less of it for a file
 * 1.8 % larger (3.28 MB instead of 3.22 MB). Fixed, so an import's bytes are reproducible.
 */
export const IMPORT_GZIP_LEVEL = 5;

export const R_OTHER_SYMBOL = 'message of another symbol (--symbol)';

/** What the importer keeps per symbol; a format's importer adds its own fields. */
export interface SymBase extends GridState {
  /** The symbol's L2 book when the data has one (written as a snapshot at --from). */
  book: L2Book | undefined;
  markRecorded: boolean;
  derivedMarks: number;
  firstRecordedMark: number | undefined;
  lastMarkSecond: number;
  hasQuotes: boolean;
  /** The last mark written (funding settles at it). */
  lastMark: string | undefined;
  /** The next funding time and rate the symbol's mark stream announced (funding settlements derived from it). */
  funding: AnnouncedFunding;
  /** How recorded marks were obtained, for the header. */
  markMethod: string;
}

export function symBase(name: string, markMethod: string, o: ImportOptions): SymBase {
  return { ...gridState(name, o), book: undefined, markRecorded: false, derivedMarks: 0, firstRecordedMark: undefined, lastMarkSecond: -1, hasQuotes: false, lastMark: undefined, funding: new AnnouncedFunding(), markMethod };
}

/** How a format names things in the header and in messages. */
export interface ImporterNames {
  /** Header `source` and `meta.importer`: `import:<id>`, `perpkit import <id>`. */
  id: string;
  /** The quote stream, in the derived-mark method ("bookTicker", "quotes"). */
  quoteStream: string;
  /** The mark price stream, in the derived-mark method ("markPriceUpdate"). */
  markStream: string;
  /** What the files should hold, for "no ... in the files". */
  messagesNoun: string;
  /** The mark stream's field of the next funding time, in the reasons a settlement is not derived ("funding_timestamp"). */
  fundingTime: string;
}

export const R_FUNDING_NO_MARK = 'funding settlement before any mark price of its symbol';

export abstract class RecordingImporter<S extends SymBase> {
  protected readonly syms = new Map<string, S>();
  protected readonly summary: ImportSummary;
  /** Every price and quantity goes through it before it is written (symbol-grid.ts). */
  protected readonly grid: SymbolGrid;
  protected chunk = '';
  // A deep write buffer lets parsing and compression (on the thread pool) overlap instead of taking turns.
  // The 1 MiB output buffer matters as much: zlib hands each full output buffer back to the main
  // thread before compressing on, so with the default 16 KiB it stalls on every busy parse batch.
  private readonly gzip = createGzip({ level: IMPORT_GZIP_LEVEL, chunkSize: 1 << 20, writableHighWaterMark: 8 << 20 } as ZlibOptions & { writableHighWaterMark: number });
  private readonly bodyPath: string;
  private readonly body: ReturnType<typeof createWriteStream>;
  private readonly bodyDone: Promise<void>;
  private failure: Error | undefined;
  private inRange = false;
  /** A message at or past --to was read (the files cover the range's end). */
  private reachedTo = false;
  protected lastT = 0;
  /** Symbols of messages skipped under --symbol, for the error when --symbol is not in the data. */
  protected readonly otherSymbols = new Set<string>();
  /** Extra facts for the header's meta. */
  protected readonly meta: Record<string, string | number | boolean> = {};
  /** Settlements the mark stream showed that were not derived, by reason (fundingNotes). */
  private readonly fundingNotDerived: Record<string, number> = {};

  constructor(
    protected readonly o: ImportOptions,
    private readonly names: ImporterNames,
  ) {
    this.grid = new SymbolGrid(o, () => this.where());
    this.summary = { out: o.out, messages: 0, events: {}, added: { derivedMarks: 0, gaps: 0, rebuiltSnapshots: 0 }, skipped: {}, symbols: [], marks: {}, sources: [], firstTime: 0, lastTime: 0 };
    const stale = removeStaleTemps(o.out);
    if (stale.length > 0) this.summary.notes = [`removed ${stale.length} temporary file(s) of an earlier import to ${o.out} that was killed (its process is gone): ${stale.join(', ')}`];
    this.bodyPath = `${o.out}.body-${process.pid}.tmp`;
    this.body = createWriteStream(this.bodyPath);
    const fail = (e: Error): void => {
      this.failure ??= e;
    };
    this.gzip.on('error', fail);
    this.body.on('error', fail);
    this.gzip.pipe(this.body);
    this.bodyDone = once(this.body, 'close').then(() => undefined, fail);
  }

  /** Reads every input, emitting events; fills `summary.sources`. */
  protected abstract read(): Promise<void>;
  /** A new symbol's state. */
  protected abstract newSym(name: string): S;
  /** The input file and line being read (file:line), for an error about a value of it. */
  protected abstract where(): string;
  /** After reading: anything still held back (counted or refused). */
  protected finish(): void {}

  async run(): Promise<ImportSummary> {
    try {
      await this.read();
      this.finish();
      await this.closeBody();
      this.checkOutcome();
      // A symbol of which nothing was written (no price, no mark: e.g. the other symbols of an
      // all-market `!markPrice@arr` stream, their marks counted as skipped) is no symbol of the recording.
      const syms = [...this.syms.values()].filter((s) => s.priceGcd > 0 || s.lastMark !== undefined || s.book !== undefined);
      this.summary.symbols = syms.map((s) => this.grid.spec(s));
      this.summary.marks = Object.fromEntries(syms.map((s) => [s.name, this.markProvenance(s)]));
      const few = syms.map((s) => this.grid.fewValues(s)).filter((w): w is string => w !== undefined);
      if (few.length > 0) {
        this.summary.warnings = few;
        this.meta.gridWarning = few.join('; ');
      }
      this.writeOut();
      return this.summary;
    } catch (e) {
      this.gzip.destroy();
      this.body.destroy();
      await this.bodyDone.catch(() => undefined);
      if (existsSync(this.bodyPath)) unlinkSync(this.bodyPath);
      throw e;
    }
  }

  // ---- input bookkeeping -------------------------------------------------------------------------

  /** Counts a message at time `t`; false when it is at or past --to (reading stops). */
  protected accept(t: number): boolean {
    if (this.o.to !== undefined && t >= this.o.to) {
      this.reachedTo = true;
      return false;
    }
    this.summary.messages++;
    if (this.summary.messages === 1) this.summary.firstTime = t;
    this.lastT = t;
    this.summary.lastTime = Math.max(this.summary.lastTime, t);
    return true;
  }

  /**
   * A message that does not read (a capture's last line cut off mid-write), counted as read and
   * skipped for `reason`, as every other skipped message is: at `t` when its receive time read
   * (false, not counted, when that is at or past --to, as any message there), else without one.
   */
  protected skipUnread(reason: string, t: number | undefined): boolean {
    if (t !== undefined) {
      if (!this.accept(t)) return false;
    } else {
      this.summary.messages++;
    }
    this.skip(reason);
    return true;
  }

  /**
   * Counts `n` messages at receive time `t` (the message being read, unless said) skipped for
   * `reason`. Before --from a message is outside the range asked for, whatever else it is: it is
   * counted as such (SKIPPED_BEFORE_FROM), so the skips of the other reasons are those of the range
   * written, and an import of the time before (`--to` where this one's `--from` is) counts them once.
   */
  protected skip(reason: string, n = 1, t = this.lastT): void {
    const why = this.o.from !== undefined && t < this.o.from ? SKIPPED_BEFORE_FROM : reason;
    this.summary.skipped[why] = (this.summary.skipped[why] ?? 0) + n;
  }

  /** Is this symbol outside --symbol? Then the message is counted as skipped. */
  protected otherSymbol(sym: string): boolean {
    if (this.o.symbol === undefined || sym === this.o.symbol) return false;
    this.otherSymbols.add(sym);
    this.skip(R_OTHER_SYMBOL);
    return true;
  }

  protected state(name: string): S {
    let s = this.syms.get(name);
    if (s === undefined) {
      s = this.newSym(name);
      this.syms.set(name, s);
    }
    return s;
  }

  // ---- marks -------------------------------------------------------------------------------------

  /** Are marks of this symbol given by the inputs (no derivation at all)? */
  protected marksGiven(_s: S): boolean {
    return false;
  }

  /** A derived mark from this bid/ask, once per second of receive time, unless marks are recorded. */
  protected deriveMark(s: S, t: number, bid: string, ask: string): void {
    if (s.markRecorded || this.marksGiven(s)) return;
    const sec = Math.floor(t / 1000);
    if (sec === s.lastMarkSecond) return;
    const b = toScaledInt(bid, SCALE);
    const a = toScaledInt(ask, SCALE);
    const tick = s.tickScaled ?? s.priceGcd;
    if (b === undefined || a === undefined || tick <= 0) return;
    s.lastMarkSecond = sec;
    // Rounded down to the tick known so far: the final tick divides it, so the mark stays on the grid.
    const mid = Math.floor((b + a) / 2 / tick) * tick;
    const p = fromScaledInt(mid, SCALE);
    s.lastMark = p;
    // Counted when written: before --from the mark is kept (funding settles at it), not written.
    if (!this.emit({ t, k: 'mark', s: s.name, p, i: p, r: '0', n: nextFunding(t) }, t, true)) return;
    s.derivedMarks++;
    this.summary.added.derivedMarks++;
  }

  /** A recorded mark was seen for this symbol: no more are derived. */
  protected markSeen(s: S, t: number): void {
    s.markRecorded = true;
    s.firstRecordedMark ??= t;
  }

  private markProvenance(s: S): MarkProvenance {
    if (s.derivedMarks === 0 && s.markRecorded) return { source: 'recorded', method: s.markMethod };
    const method = `the mid price of the first ${s.hasQuotes ? this.names.quoteStream : 'rebuilt L2 book top'} of each second of receive time, rounded down to the tick; index = mark, funding rate 0, next funding at the next 8-hour boundary`;
    return { source: 'derived', method: s.markRecorded ? `${method} (until the first ${this.names.markStream} at ${new Date(s.firstRecordedMark ?? 0).toISOString()})` : method };
  }

  // ---- funding settlements -------------------------------------------------------------------------

  /**
   * A mark-stream message of `s` (receive time `t`, exchange time `et`) announcing the next
   * funding time `next` and the rate `rate` for it (undefined: not given). A settlement it shows
   * (funding-times.ts) is written as a `funding` event at the rate announced for it and the
   * symbol's last mark before this message, stamped `t`, with `et` the settlement time, and
   * counted in `added.derivedFunding`: true. One it shows that is not derived (the time moved too
   * early, or no mark yet) returns its reason: the caller counts it (`fundingNotDerivedBy`, or as
   * the message's skip when it gives no event). Call it before the message's own mark is kept.
   */
  protected announcedFunding(s: S, t: number, et: number, next: number | undefined, rate: string | undefined): true | string | undefined {
    this.summary.added.derivedFunding ??= 0;
    const seen = s.funding.see(next, rate, et);
    if (seen === undefined) return undefined;
    if (seen === 'early') return `${this.names.fundingTime} moved more than a minute before its time came (no settlement assumed)`;
    if (s.lastMark === undefined) return R_FUNDING_NO_MARK;
    if (this.emit({ t, et: seen.at, k: 'funding', s: s.name, r: seen.rate, p: s.lastMark }, t, true)) this.summary.added.derivedFunding++;
    return true;
  }

  /** Counts a settlement the mark stream showed and that was not derived, though its message gave an event. */
  protected fundingNotDerivedBy(reason: string): void {
    this.fundingNotDerived[reason] = (this.fundingNotDerived[reason] ?? 0) + 1;
  }

  /** After reading: the derived settlements into the header's meta, and the note on those not derived (undefined: none). */
  protected fundingNotes(): string | undefined {
    if (this.summary.added.derivedFunding !== undefined) this.meta.derivedFunding = this.summary.added.derivedFunding;
    const nd = Object.entries(this.fundingNotDerived);
    if (nd.length === 0) return undefined;
    this.meta.fundingNotDerived = nd.map(([why, k]) => `${why}: ${k}`).join('; ');
    return `funding settlements not derived (the ${this.names.messagesNoun} gave their marks): ${this.meta.fundingNotDerived}`;
  }

  // ---- output ------------------------------------------------------------------------------------

  /**
   * Writes an event (receive time `t`); `added` events (derived, gaps) are not counted as input.
   * False when it lies before --from and was not written.
   */
  protected emit(e: RecordedEvent, t: number, added = false): boolean {
    if (!this.admit(e.k, t, added)) return false;
    this.chunk += `${JSON.stringify(e)}\n`;
    return true;
  }

  /** emit() of an input message's event whose line the caller built: exactly `JSON.stringify` of the event. */
  protected emitText(k: RecordedKind, json: string, t: number): boolean {
    if (!this.admit(k, t, false)) return false;
    this.chunk += `${json}\n`;
    return true;
  }

  /** Counts an event of kind `k` at `t` as written; false (counted as skipped) when it lies before --from. */
  private admit(k: RecordedKind, t: number, added: boolean): boolean {
    if (!this.inRange) {
      if (this.o.from !== undefined && t < this.o.from) {
        // Outside the range: the book and marks are kept, the event is not written.
        if (!added && k !== 'gap') this.skip(SKIPPED_BEFORE_FROM);
        return false;
      }
      this.inRange = true;
      if (this.o.from !== undefined) this.rebuildSnapshots(t);
    }
    if (!added && k !== 'gap') this.summary.events[k] = (this.summary.events[k] ?? 0) + 1;
    return true;
  }

  /** Will the books' levels still be read as snapshots at --from (rebuildSnapshots)? */
  protected snapshotsToRebuild(): boolean {
    return this.o.from !== undefined && !this.inRange;
  }

  /** At the first event inside --from: the books kept so far, as snapshots (the output starts there). */
  private rebuildSnapshots(t: number): void {
    for (const s of this.syms.values()) {
      if (s.book === undefined) continue;
      const { bids, asks } = s.book.levels();
      this.summary.added.rebuiltSnapshots++;
      this.chunk += `${JSON.stringify({ t, k: 'snapshot', s: s.name, u: s.book.lastUpdateId, b: bids, a: asks } satisfies RecordedEvent)}\n`;
    }
  }

  /** Hands what is queued to gzip, waiting when it is behind. */
  protected async flushChunk(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.chunk.length === 0) return;
    const ok = this.gzip.write(this.chunk);
    this.chunk = '';
    if (!ok) await once(this.gzip, 'drain');
  }

  private async closeBody(): Promise<void> {
    await this.flushChunk();
    this.gzip.end();
    await this.bodyDone;
    if (this.failure) throw this.failure;
  }

  /** Refuses an import that produced nothing usable, naming why. */
  private checkOutcome(): void {
    const o = this.o;
    const iso = (t: number): string => new Date(t).toISOString();
    if (this.summary.messages === 0) {
      if (o.to !== undefined && this.lastT === 0) throw new ImportInputError(`--from/--to: no message before --to ${iso(o.to)} in ${o.files.join(', ')}`);
      throw new ImportInputError(`${o.files.join(', ')}: no ${this.names.messagesNoun} in the files`);
    }
    const written = Object.values(this.summary.events).reduce((a, b) => a + b, 0);
    if (o.symbol !== undefined && !this.syms.has(o.symbol)) {
      throw new ImportInputError(`--symbol ${o.symbol}: no message of that symbol in the files (they hold ${[...this.otherSymbols].join(', ') || 'no symbol messages'}; symbols are upper case, e.g. BTCUSDT)`);
    }
    if (written === 0 && o.from === undefined && o.to === undefined) {
      const why = Object.entries(this.summary.skipped).map(([r, k]) => `${r} ${k}`).join(', ');
      throw new ImportInputError(`${o.files.join(', ')}: no message became an event (skipped: ${why})`);
    }
    if (written === 0) {
      throw new ImportInputError(`--from/--to: no message in ${o.from !== undefined ? iso(o.from) : 'the start'} to ${o.to !== undefined ? iso(o.to) : 'the end'}; the files run from ${iso(this.summary.firstTime)} to ${iso(this.summary.lastTime)}`);
    }
    if ((o.tick !== undefined || o.step !== undefined) && this.syms.size > 1) {
      throw new ImportInputError(`--tick/--step: the files hold ${[...this.syms.keys()].join(', ')}; pass --symbol to say which symbol the grid is for`);
    }
    // A range the files cover only in part is imported as that part, and said (as a backtest says it).
    const notes: string[] = [];
    if (o.from !== undefined && this.summary.firstTime - o.from > 1000) notes.push(`--from ${iso(o.from)} is before the first message (${iso(this.summary.firstTime)}): the recording starts there`);
    if (o.to !== undefined && !this.reachedTo && o.to - this.summary.lastTime > 1000) notes.push(`--to ${iso(o.to)} is after the last message (${iso(this.summary.lastTime)}): the recording ends there`);
    if (notes.length > 0) this.summary.notes = [...(this.summary.notes ?? []), ...notes];
  }

  /** The header as the first gzip member, then the body's gzip members: renamed into place last. */
  private writeOut(): void {
    const header: RecordingHeader = {
      type: 'header',
      format: RECORDING_FORMAT,
      version: 2,
      source: `import:${this.names.id}`,
      startTime: this.o.from ?? this.summary.firstTime,
      symbols: this.summary.symbols,
      part: 0,
      sources: this.summary.sources,
      marks: this.summary.marks,
      skipped: this.summary.skipped,
      meta: {
        importer: `perpkit import ${this.names.id}`,
        messages: this.summary.messages,
        derivedMarks: this.summary.added.derivedMarks,
        gaps: this.summary.added.gaps,
        specs: `${this.o.tick !== undefined ? 'tickSize from --tick' : 'tickSize inferred (the largest grid every price lies on)'}, ${this.o.step !== undefined ? 'stepSize from --step' : 'stepSize inferred (the largest grid every quantity lies on)'}; minNotional 0, fees and margin tier are defaults`,
        ...this.meta,
        ...(this.o.from !== undefined ? { from: this.o.from } : {}),
        ...(this.o.to !== undefined ? { to: this.o.to } : {}),
        ...(this.summary.stoppedAt !== undefined ? { stoppedAt: this.summary.stoppedAt } : {}),
      },
    };
    const tmp = `${this.o.out}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, gzipSync(`${JSON.stringify(header)}\n`));
      appendBody(tmp, this.bodyPath);
      renameSync(tmp, this.o.out);
    } finally {
      if (existsSync(tmp)) unlinkSync(tmp);
      if (existsSync(this.bodyPath)) unlinkSync(this.bodyPath);
    }
  }
}
