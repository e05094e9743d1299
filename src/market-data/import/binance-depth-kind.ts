/**
 * Which of Binance's two depth streams a `depthUpdate` comes from. Diffs (`<symbol>@depth`) change
 * the levels they list; partial book depth (`@depth5/10/20`) is the top 5, 10 or 20 levels a side
 * as they are now. A combined-stream envelope names the stream; a bare payload (a capture of one
 * raw stream) has the same fields either way, so the user says (`--bare-depth`), and without that
 * the import watches what bare messages hold: every partial message holds exactly 5, 10 or 20
 * levels a side and never a zero quantity, while diffs hold as many levels as changed and remove
 * levels with zero quantities. Read as diffs, partial messages would leave each level that left
 * the top in the book for good.
 */
import type { Level } from '../format';
import { ImportInputError } from './errors';

export const R_PARTIAL_DEPTH = 'partial book depth (a <symbol>@depth5/10/20 stream) of a symbol whose book comes from diff depth (<symbol>@depth): the diffs make the book';
export const R_DIFF_AFTER_PARTIAL = 'diff depth (depthUpdate of <symbol>@depth) of a symbol whose book comes from partial book depth (@depth5/10/20) seen first: capture one depth stream per symbol';
/** Partial book depth streams by their stream name. */
export const PARTIAL_DEPTH = /@depth(5|10|20)(@|$)/;
/** Levels a side of the partial book depth streams. */
const PARTIAL_SIZES = new Set([5, 10, 20]);
/**
 * This many bare depth messages of a symbol in a row, from its first, all alike as partial depth
 * is (the same 5, 10 or 20 levels a side, no zero quantity) stop the import.
 */
export const BARE_PARTIAL_PROOF = 20;

/** A level's quantity is zero ("0", "0.000"): a diff's removal of the level. */
export const zeroQty = (l: Level): boolean => /^[0.]+$/.test(l[1]);

/** zeroQty of scanned levels (binance-scan.ts spans: price start, end, quantity start, end a level). */
export function zeroQtyIn(text: string, spans: number[], count: number): boolean {
  for (let i = 0; i < 4 * count; i += 4) {
    let zero = spans[i + 3] > spans[i + 2];
    for (let k = spans[i + 2]; zero && k < spans[i + 3]; k++) {
      const c = text.charCodeAt(k);
      zero = c === 48 || c === 46;
    }
    if (zero) return true;
  }
  return false;
}

/** What bare depthUpdates are: as the user said, or diffs watched (per symbol) for looking like partial depth. */
export class BareDepth {
  /** Per symbol: messages alike so far (-1 once one was not) and their levels a side. */
  private readonly seen = new Map<string, { like: number; levels: number }>();

  /** `said`: the user's `--bare-depth`, if any. */
  constructor(private readonly said: 'diff' | 'partial' | undefined) {}

  /** Bare depthUpdates are read as partial book depth (each a snapshot of the top levels). */
  get partial(): boolean {
    return this.said === 'partial';
  }

  /** Whether a bare depthUpdate of `symbol`, read as a diff, is to be shown to `message` (nothing said, and none has yet read as a diff for sure). */
  watching(symbol: string): boolean {
    return this.said === undefined && (this.seen.get(symbol)?.like ?? 0) >= 0;
  }

  /** One bare depth message of `symbol` read as a diff; throws once BARE_PARTIAL_PROOF of them read as partial depth. */
  message(symbol: string, bids: number, asks: number, zero: boolean, where: string): void {
    let w = this.seen.get(symbol);
    if (w === undefined) this.seen.set(symbol, (w = { like: 0, levels: 0 }));
    if (w.like < 0) return;
    if (zero || bids !== asks || !PARTIAL_SIZES.has(bids) || (w.like > 0 && bids !== w.levels)) {
      w.like = -1;
      return;
    }
    w.levels = bids;
    if (++w.like < BARE_PARTIAL_PROOF) return;
    throw new ImportInputError(
      `${where}: the depthUpdate messages of ${symbol} have no stream envelope and read as partial book depth (@depth${bids}), not as diffs: the first ${w.like} each hold exactly ${bids} levels a side and no zero quantity (diffs hold the levels that changed and remove levels with quantity 0); pass --bare-depth partial to import each as a snapshot of the top levels, --bare-depth diff if they are diffs, or capture with the envelope ({"stream":"<symbol>@depth${bids}","data":...})`,
    );
  }

  /** For the summary: symbols whose few bare depth messages all looked like partial depth. */
  notes(): string[] {
    const out: string[] = [];
    for (const [symbol, w] of this.seen) {
      if (w.like > 0) {
        out.push(`${symbol}: the ${w.like} depthUpdate messages without a stream envelope each held exactly ${w.levels} levels a side and no zero quantity, as partial book depth (@depth${w.levels}) does; they were read as diffs: if they are partial depth, import again with --bare-depth partial`);
      }
    }
    return out;
  }
}
