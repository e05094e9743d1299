/**
 * The bot's state on disk: strategy state (`saveState()` of each strategy), order attribution
 * (the live orders the bot tracks, with the strategy and the tag each was placed with), the loss
 * limits' references and the strategies an operator paused.
 *
 * Which strategy owns an order survives a restart without this file, because the clientOrderId
 * starts with the strategy id and the bot adopts matching open orders when it reconciles at start.
 * What the id cannot carry is the strategy's own tag (the market maker finds its bid and ask by
 * tag): restoring the tracked orders before start lets the reconciliation confirm them with their
 * tags, so a restarted strategy amends its old quotes instead of placing new ones beside them.
 *
 * Writes are atomic (write a temp file, fsync, rename over the old one): a crash mid-save leaves
 * the previous state, never half a file.
 */
import { isRecord } from '../core/config-errors';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { BotStateStore, KillRecord, SavedBotState } from '../bot/state/saved-state';
import type { OrderTracker, TrackedOrder } from '../bot/execution/order-tracker';
import { makeDir } from '../core/dirs';
import { isDecimalString } from '../core/decimal';
import type { RiskMemory } from '../bot/risk/risk-engine';

export const STATE_FORMAT = 'perpkit-bot-state';
export const STATE_VERSION = 1;

/** A live order as saved: enough to re-track it until the venue confirms its state. */
export interface SavedOrder {
  clientOrderId: string;
  strategyId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  executedQty: string;
  orderId: string;
  tag: string | undefined;
  reduceOnly: boolean;
  sentAt: number;
}

export interface StateFile extends SavedBotState {
  format: typeof STATE_FORMAT;
  version: number;
  orders: SavedOrder[];
  /**
   * The private stream's listenKey, so that a restarted bot reuses it while the venue still
   * knows it rather than adding one more live key (the venue caps them per user).
   */
  listenKey?: string;
}

export class StateFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'StateFileError';
  }
}


function parseOrder(v: unknown): SavedOrder | undefined {
  if (!isRecord(v)) return undefined;
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const cid = str('clientOrderId');
  const sid = str('strategyId');
  const symbol = str('symbol');
  const side = str('side');
  if (cid === undefined || sid === undefined || symbol === undefined || (side !== 'BUY' && side !== 'SELL')) return undefined;
  return {
    clientOrderId: cid,
    strategyId: sid,
    symbol,
    side,
    price: str('price') ?? '0',
    quantity: str('quantity') ?? '0',
    executedQty: str('executedQty') ?? '0',
    orderId: str('orderId') ?? '',
    tag: str('tag'),
    reduceOnly: v.reduceOnly === true,
    sentAt: typeof v.sentAt === 'number' ? v.sentAt : 0,
  };
}

/** The paused strategies as saved (id -> reason); entries that are not strings are dropped, undefined when none is left. */
function parsePaused(v: unknown): Record<string, string> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [id, why] of Object.entries(v)) if (typeof why === 'string') out[id] = why;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The kill switch as saved; undefined when malformed. */
function parseHalted(v: unknown): KillRecord | undefined {
  if (!isRecord(v) || typeof v.reason !== 'string' || typeof v.at !== 'number') return undefined;
  return { reason: v.reason, at: v.at };
}

/** The loss limits' references as saved; undefined (a fresh start of them) when absent or malformed. */
function parseRiskMemory(v: unknown): RiskMemory | undefined {
  if (!isRecord(v) || !Number.isSafeInteger(v.day) || typeof v.dayStartEquity !== 'string' || typeof v.peakEquity !== 'string') return undefined;
  if (!isDecimalString(v.dayStartEquity) || !isDecimalString(v.peakEquity)) return undefined;
  return { day: v.day as number, dayStartEquity: v.dayStartEquity, peakEquity: v.peakEquity };
}

export class FileStateStore implements BotStateStore {
  private ordersSource: (() => SavedOrder[]) | undefined;
  private listenKeySource: (() => string | undefined) | undefined;
  private last: StateFile | undefined;
  /** Saves run one at a time; a save requested meanwhile writes the newest state after it. */
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** Saves include the tracker's live orders from now on. */
  trackOrders(tracker: OrderTracker): void {
    this.ordersSource = () => tracker.live().map(toSavedOrder);
  }

  /** Saves include the private stream's listenKey from now on. */
  trackListenKey(source: () => string | undefined): void {
    this.listenKeySource = source;
  }

  /** Reads the file; undefined when there is none yet. Throws StateFileError on a corrupt file. */
  async read(): Promise<StateFile | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      // A path through a regular file, a folder, no permission: a mistake in the config, said as one.
      const why = code === 'ENOTDIR' ? 'a part of its folder path is a file, not a folder' : code === 'EISDIR' ? 'it is a folder; name a file' : code === 'EACCES' || code === 'EPERM' ? 'no permission to read it' : undefined;
      throw new StateFileError(this.file, `cannot be read: ${why ?? (e instanceof Error ? e.message : String(e))}${why === undefined ? '' : ` (${code})`}`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new StateFileError(this.file, `not valid JSON (${e instanceof Error ? e.message : String(e)}); move it away to start fresh`);
    }
    if (!isRecord(doc) || doc.format !== STATE_FORMAT) throw new StateFileError(this.file, `expected a ${STATE_FORMAT} file`);
    if (doc.version !== STATE_VERSION) throw new StateFileError(this.file, `expected state version ${STATE_VERSION}, got ${JSON.stringify(doc.version)}`);
    const strategies = isRecord(doc.strategies) ? doc.strategies : {};
    const orders = Array.isArray(doc.orders) ? doc.orders.map(parseOrder).filter((o): o is SavedOrder => o !== undefined) : [];
    const state: StateFile = { format: STATE_FORMAT, version: STATE_VERSION, savedAt: typeof doc.savedAt === 'number' ? doc.savedAt : 0, strategies, orders };
    if (typeof doc.listenKey === 'string' && doc.listenKey !== '') state.listenKey = doc.listenKey;
    const risk = parseRiskMemory(doc.risk);
    if (risk !== undefined) state.risk = risk;
    // A file written before pauses were saved has no such key: nothing is paused.
    const paused = parsePaused(doc.paused);
    if (paused !== undefined) state.paused = paused;
    if (doc.halted !== undefined) {
      // Read as it is or refused: a kill switch lost to a typo would trade again unseen.
      const halted = parseHalted(doc.halted);
      if (halted === undefined) throw new StateFileError(this.file, `"halted" must be {"reason": text, "at": ms}, got ${JSON.stringify(doc.halted)}; remove it to trade again, or mend it`);
      state.halted = halted;
    }
    this.last = state;
    return state;
  }

  /**
   * Why the state could not be saved here, or undefined: the file's folder, or the nearest folder
   * above it that exists (a save makes the rest), must be writable. A run without it trades with
   * its state unsaved (health degraded); `perpkit run --check` says so beforehand.
   */
  async unwritable(): Promise<string | undefined> {
    let dir = path.dirname(path.resolve(this.file));
    while (!(await fs.stat(dir).then((st) => st.isDirectory(), () => false)) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    // A real write (permission bits say nothing for root, nor of a read-only or pseudo file system).
    try {
      await fs.rm(await fs.mkdtemp(path.join(dir, '.perpkit-check-')), { recursive: true, force: true });
      return undefined;
    } catch (e) {
      return `cannot create anything in ${dir} (${(e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e))})`;
    }
  }

  async load(): Promise<SavedBotState | undefined> {
    return this.last ?? (await this.read());
  }

  save(state: SavedBotState): Promise<void> {
    const doc: StateFile = { format: STATE_FORMAT, version: STATE_VERSION, savedAt: state.savedAt, strategies: state.strategies, orders: this.ordersSource?.() ?? [] };
    if (state.risk !== undefined) doc.risk = state.risk;
    if (state.paused !== undefined) doc.paused = state.paused;
    if (state.halted !== undefined) doc.halted = state.halted;
    const listenKey = this.listenKeySource?.();
    if (listenKey !== undefined) doc.listenKey = listenKey;
    const run = this.chain.then(() => this.write(doc));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async write(doc: StateFile): Promise<void> {
    await makeDir(path.dirname(this.file));
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fh = await fs.open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(`${JSON.stringify(doc, null, 2)}\n`, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, this.file);
    this.last = doc;
  }
}

export function toSavedOrder(o: TrackedOrder): SavedOrder {
  return {
    clientOrderId: o.clientOrderId,
    strategyId: o.strategyId,
    symbol: o.symbol,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    executedQty: o.executedQty,
    orderId: o.orderId,
    tag: o.tag,
    reduceOnly: o.reduceOnly,
    sentAt: o.sentAt,
  };
}

/**
 * Puts saved orders back in the tracker as UNKNOWN before the bot starts: its start-up
 * reconciliation then confirms each from the venue's open orders (keeping the tag) or settles it
 * by query (filled or cancelled while the bot was down). Orders of strategies no longer
 * configured are left to the venue.
 */
export function restoreOrders(tracker: OrderTracker, orders: readonly SavedOrder[], strategyIds: ReadonlySet<string>, now: number): number {
  let n = 0;
  for (const o of orders) {
    if (!strategyIds.has(o.strategyId) || tracker.get(o.clientOrderId)) continue;
    tracker.add({ ...o, state: 'UNKNOWN', updatedAt: now });
    n++;
  }
  return n;
}
