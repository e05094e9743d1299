/**
 * Tardis.dev downloadable CSV files (datasets API), gzip or not, as typed rows for the Tardis
 * importer (tardis.ts), merged across files in receive-time order. The layouts (docs/recording.md
 * has them with their meaning), every file starting with a header row:
 *
 * | data type | columns |
 * |---|---|
 * | incremental_book_L2 | exchange, symbol, timestamp, local_timestamp, is_snapshot, side, price, amount |
 * | book_snapshot_5 / _25 (any depth N) | exchange, symbol, timestamp, local_timestamp, then for i = 0..N-1: asks[i].price, asks[i].amount, bids[i].price, bids[i].amount |
 * | trades | exchange, symbol, timestamp, local_timestamp, id, side, price, amount |
 * | quotes | exchange, symbol, timestamp, local_timestamp, ask_amount, ask_price, bid_price, bid_amount |
 * | derivative_ticker | exchange, symbol, timestamp, local_timestamp, funding_timestamp, funding_rate, predicted_funding_rate, open_interest, last_price, index_price, mark_price |
 *
 * Timestamps are microseconds since the epoch (UTC): `timestamp` the exchange's, `local_timestamp`
 * the arrival at Tardis's collector. The kind comes from the header row (a file name in Tardis's
 * own pattern that says another kind is refused). A row that does not fit its header is bad input:
 * one error naming the file, the line and the rule.
 */
import { basename } from 'node:path';
import type { Level } from '../format';
import { excerpt, fileLineBatches, plainDecimal } from './common';
import { ImportInputError } from './errors';

export type TardisKind = 'incremental_book_L2' | 'book_snapshot' | 'trades' | 'quotes' | 'derivative_ticker';

const COMMON = ['exchange', 'symbol', 'timestamp', 'local_timestamp'];
const REST: Record<Exclude<TardisKind, 'book_snapshot'>, string[]> = {
  incremental_book_L2: ['is_snapshot', 'side', 'price', 'amount'],
  trades: ['id', 'side', 'price', 'amount'],
  quotes: ['ask_amount', 'ask_price', 'bid_price', 'bid_amount'],
  derivative_ticker: ['funding_timestamp', 'funding_rate', 'predicted_funding_rate', 'open_interest', 'last_price', 'index_price', 'mark_price'],
};
const snapshotColumns = (n: number): string[] => Array.from({ length: n }, (_, i) => [`asks[${i}].price`, `asks[${i}].amount`, `bids[${i}].price`, `bids[${i}].amount`]).flat();

/**
 * Fields every row has: `t`/`et` in ms (receive / exchange), `lt` the receive time in µs (merge
 * order), `file` the index of its file and `line` its line there (`whereOf` names it).
 */
interface RowBase {
  file: number;
  line: number;
  exchange: string;
  sym: string;
  lt: number;
  t: number;
  et: number;
  /** The exchange timestamp in µs as written (groups the rows of one incremental_book_L2 message). */
  etRaw: string;
}

export type TardisRow =
  | (RowBase & { kind: 'incremental_book_L2'; snapshot: boolean; bid: boolean; price: string; amount: string })
  | (RowBase & { kind: 'book_snapshot'; b: Level[]; a: Level[] })
  | (RowBase & { kind: 'trades'; id: string; side: string; price: string; amount: string })
  | (RowBase & { kind: 'quotes'; bp: string; bq: string; ap: string; aq: string })
  | (RowBase & { kind: 'derivative_ticker'; fundingTs: string; fundingRate: string; indexPrice: string; markPrice: string });

const DEC = /^\d+(\.\d+)?$/;
const US = /^\d{13,17}$/;

/** The kind of a header row, or an error naming what was expected. */
function kindOfHeader(cols: string[], where: string): { kind: TardisKind; depth: number } {
  const got = excerpt(cols.join(','));
  if (cols.slice(0, 4).join(',') !== COMMON.join(',')) {
    throw new ImportInputError(`${where}: not a Tardis CSV header (expected it to begin with ${COMMON.join(',')}), got ${got}`);
  }
  const rest = cols.slice(4).join(',');
  for (const [kind, c] of Object.entries(REST) as Array<[TardisKind, string[]]>) if (rest === c.join(',')) return { kind, depth: 0 };
  const depth = (cols.length - 4) / 4;
  if (depth >= 1 && Number.isInteger(depth) && rest === snapshotColumns(depth).join(',')) return { kind: 'book_snapshot', depth };
  throw new ImportInputError(
    `${where}: the header's columns after local_timestamp fit no Tardis data type (incremental_book_L2: ${REST.incremental_book_L2.join(',')}; trades: ${REST.trades.join(',')}; quotes: ${REST.quotes.join(',')}; derivative_ticker: ${REST.derivative_ticker.join(',')}; book_snapshot_N: asks[0].price,asks[0].amount,bids[0].price,bids[0].amount,...), got ${excerpt(rest)}`,
  );
}

/**
 * The data type a Tardis file name states (`<exchange>_<type>_<date>_<symbol>.csv.gz`), if any.
 * `book_ticker` has the columns of `quotes` and is read as quotes. `liquidations` has the columns
 * of `trades`, so only its name tells it apart: it is refused (a liquidation is no recording
 * event), as is `options_chain`.
 */
function kindOfName(path: string): TardisKind | undefined {
  const name = basename(path);
  const m = /_(incremental_book_L2|book_snapshot_\d+|trades|quotes|book_ticker|derivative_ticker|liquidations|options_chain)_\d{4}-\d{2}-\d{2}_/.exec(name);
  if (m === null) return undefined;
  if (m[1] === 'liquidations' || m[1] === 'options_chain') {
    throw new ImportInputError(`${path}: a Tardis ${m[1]} file; it is not imported (${m[1] === 'liquidations' ? 'a liquidation is no recording event; its columns equal those of trades, so it must not be read as trades' : 'options are not traded on a perpetual venue'})`);
  }
  if (m[1] === 'book_ticker') return 'quotes';
  return m[1].startsWith('book_snapshot') ? 'book_snapshot' : (m[1] as TardisKind);
}

/** One file's rows, read a batch at a time: `head` is the next row (undefined at the end). */
export class TardisFile {
  head: TardisRow | undefined;
  kind: TardisKind | undefined;
  depth = 0;
  lines = 0;
  /** Rows whose local_timestamp was earlier than the row before them (stamped with that row's). */
  outOfOrder = 0;
  private lastLt = 0;
  private batch: string[] = [];
  private i = 0;
  private cols = 0;
  private readonly src: ReturnType<typeof fileLineBatches>;

  constructor(
    readonly path: string,
    readonly index: number,
  ) {
    this.src = fileLineBatches(path);
  }

  bytesRead(): number {
    return this.src.bytesRead();
  }

  /**
   * Moves `head` to the next row of the batch in hand; false when the batch is used up and the
   * file must be read (`advance`) first.
   */
  advanceSync(): boolean {
    while (this.i < this.batch.length) {
      const line = this.batch[this.i++];
      this.lines++;
      const row = this.parse(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (row !== undefined) {
        this.head = row;
        return true;
      }
    }
    return false;
  }

  /** Moves `head` to the next row, reading more of the file when the batch is used up. */
  async advance(): Promise<void> {
    while (!this.advanceSync()) {
      const r = await this.src.batches.next();
      if (r.done === true) {
        if (this.kind === undefined) throw new ImportInputError(`${this.path}: empty file; expected a Tardis CSV file with a header row`);
        this.head = undefined;
        return;
      }
      this.batch = r.value;
      this.i = 0;
    }
  }

  async close(): Promise<void> {
    await this.src.batches.return(undefined);
    this.src.close();
  }

  private parse(line: string): TardisRow | undefined {
    if (line.length === 0) return undefined;
    const c = line.split(',');
    if (this.kind === undefined) {
      const where = `${this.path}:${this.lines}`;
      const h = kindOfHeader(c, where);
      const named = kindOfName(this.path);
      if (named !== undefined && named !== h.kind) throw new ImportInputError(`${where}: the file name says ${named} but the header is that of ${h.kind}`);
      this.kind = h.kind;
      this.depth = h.depth;
      this.cols = c.length;
      return undefined;
    }
    const kind = this.kind;
    if (c.length !== this.cols) this.bad(line, `expected ${this.cols} columns as in the header, found ${c.length}`);
    if (!US.test(c[2]) || !US.test(c[3])) this.bad(line, 'expected timestamp and local_timestamp as microseconds since the epoch');
    if (c[1] === '') this.bad(line, 'expected a symbol');
    let lt = Number(c[3]);
    // Tardis writes rows in arrival order; one that goes back in time keeps its place and is
    // stamped with the time before it (counted), so the merged output stays in receive order.
    if (lt < this.lastLt) {
      lt = this.lastLt;
      this.outOfOrder++;
    }
    this.lastLt = lt;
    const file = this.index;
    const n = this.lines;
    const t = Math.floor(lt / 1000);
    const et = Math.floor(Number(c[2]) / 1000);
    switch (kind) {
      case 'incremental_book_L2': {
        const snap = c[4];
        const side = c[5];
        if (snap !== 'true' && snap !== 'false') this.bad(line, 'expected is_snapshot true or false');
        if (side !== 'bid' && side !== 'ask') this.bad(line, 'expected side bid or ask');
        return { kind, file, line: n, exchange: c[0], sym: c[1], lt, t, et, etRaw: c[2], snapshot: snap === 'true', bid: side === 'bid', price: this.dec(line, c[6], 'price'), amount: this.dec(line, c[7], 'amount') };
      }
      case 'book_snapshot': {
        const b: Level[] = [];
        const a: Level[] = [];
        for (let i = 0; i < this.depth; i++) {
          const k = 4 + 4 * i;
          if (c[k] !== '') a.push([this.dec(line, c[k], `asks[${i}].price`), this.dec(line, c[k + 1], `asks[${i}].amount`)]);
          if (c[k + 2] !== '') b.push([this.dec(line, c[k + 2], `bids[${i}].price`), this.dec(line, c[k + 3], `bids[${i}].amount`)]);
        }
        return { kind, file, line: n, exchange: c[0], sym: c[1], lt, t, et, etRaw: c[2], b, a };
      }
      case 'trades':
        return { kind, file, line: n, exchange: c[0], sym: c[1], lt, t, et, etRaw: c[2], id: c[4], side: c[5], price: this.dec(line, c[6], 'price'), amount: this.dec(line, c[7], 'amount') };
      case 'quotes':
        return { kind, file, line: n, exchange: c[0], sym: c[1], lt, t, et, etRaw: c[2], aq: this.opt(line, c[4], 'ask_amount'), ap: this.opt(line, c[5], 'ask_price'), bp: this.opt(line, c[6], 'bid_price'), bq: this.opt(line, c[7], 'bid_amount') };
      case 'derivative_ticker':
        if (c[4] !== '' && !US.test(c[4])) this.bad(line, 'expected funding_timestamp as microseconds since the epoch or empty');
        if (c[5] !== '' && !/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(c[5])) this.bad(line, 'expected funding_rate as a decimal or empty');
        return { kind, file, line: n, exchange: c[0], sym: c[1], lt, t, et, etRaw: c[2], fundingTs: c[4], fundingRate: c[5], indexPrice: this.opt(line, c[9], 'index_price'), markPrice: this.opt(line, c[10], 'mark_price') };
    }
  }

  /** A row that breaks its column's rule: one line naming the file, the line and the rule. */
  private bad(line: string, what: string): never {
    throw new ImportInputError(`${this.path}:${this.lines}: ${this.kind ?? 'header'} row: ${what}, got ${excerpt(line)}`);
  }

  private dec(line: string, v: string, name: string): string {
    if (DEC.test(v)) return v;
    return plainDecimal(v) ?? this.bad(line, `expected ${name} as a non-negative decimal`);
  }

  private opt(line: string, v: string, name: string): string {
    return v === '' ? '' : this.dec(line, v, name);
  }
}

/**
 * Every file's rows merged in receive-time order (`local_timestamp`; ties: the order the files
 * were given, so one file's rows of equal time stay together). One row per file is in memory,
 * and one read batch: memory is flat in the file sizes.
 */
export class TardisMerge {
  readonly files: TardisFile[];

  constructor(paths: string[]) {
    this.files = paths.map((p, i) => new TardisFile(p, i));
  }

  /** Reads each file's header and first row. */
  async open(): Promise<void> {
    for (const f of this.files) await f.advance();
  }

  /** A file whose batch is used up: `fill()` must read it before the next `take()`. */
  needsRead: TardisFile | undefined;

  /** Reads the file that needs it. */
  async fill(): Promise<void> {
    const f = this.needsRead;
    this.needsRead = undefined;
    if (f !== undefined) await f.advance();
  }

  /**
   * The next row in receive order, or undefined at the end; synchronous (no await per row), so
   * call `fill()` first whenever `needsRead` is set.
   */
  take(): TardisRow | undefined {
    let best: TardisFile | undefined;
    for (const f of this.files) {
      if (f.head !== undefined && (best === undefined || f.head.lt < (best.head as TardisRow).lt)) best = f;
    }
    if (best === undefined) return undefined;
    const row = best.head as TardisRow;
    if (!best.advanceSync()) this.needsRead = best;
    return row;
  }

  async close(): Promise<void> {
    for (const f of this.files) await f.close();
  }
}
