/**
 * Whose a Binance REST depth snapshot is. `GET /fapi/v1/depth` answers `{"lastUpdateId":...,
 * "bids":...,"asks":...}` without the symbol; a collector fetches one per symbol and writes it
 * among that symbol's streams. So a snapshot without a `symbol` is the symbol's whose depth
 * messages its own file holds: the one seen in the file before it, or else the next one after it
 * (the snapshot waits for it). The symbol counts whether it is imported or not: --symbol selects
 * what is imported and does not name a snapshot (when it did, a BTCUSDT capture imported with
 * --symbol ETHUSDT wrote the BTCUSDT book as ETHUSDT's). Only in a file with depth of several
 * symbols does --symbol say whose its snapshots are (Binance's procedure then checks it: a
 * snapshot that the next diff does not straddle becomes a gap).
 */
import type { Level } from '../format';
import { ImportInputError } from './errors';

/** A snapshot waiting for the first depth message of its file. */
export interface HeldSnapshot {
  t: number;
  et: number;
  u: number;
  b: Level[];
  a: Level[];
  /** file:line of the snapshot. */
  where: string;
}

export class SnapshotOwners {
  /** Symbols with depth messages per file, imported or not. */
  private readonly depthByFile = new Map<string, Set<string>>();
  private readonly held = new Map<string, HeldSnapshot>();

  /** Is a snapshot waiting for a depth message (lines then take the general path)? */
  get waiting(): boolean {
    return this.held.size > 0;
  }

  /** `file` has a depth message of `sym`; the snapshot of that file waiting for one, if any, is its. */
  depth(file: string, sym: string): HeldSnapshot | undefined {
    let here = this.depthByFile.get(file);
    if (here === undefined) this.depthByFile.set(file, (here = new Set()));
    here.add(sym);
    if (this.held.size === 0) return undefined;
    const h = this.held.get(file);
    if (h !== undefined) this.held.delete(file);
    return h;
  }

  /**
   * The symbol of a snapshot without one read in `file`, or undefined when it must wait for the
   * file's next depth message (it is held: `depth` hands it back).
   */
  ownerOf(file: string, symbolOpt: string | undefined, snap: HeldSnapshot): string | undefined {
    const here = this.depthByFile.get(file);
    if (here !== undefined && here.size === 1) return [...here][0];
    if (here !== undefined && here.size > 1) {
      if (symbolOpt === undefined) throw new ImportInputError(`${snap.where}: a depth snapshot without a symbol while its file holds depth of ${[...here].join(', ')}; pass --symbol`);
      return symbolOpt;
    }
    const first = this.held.get(file);
    if (first !== undefined) throw new ImportInputError(`${snap.where}: a second depth snapshot without a symbol before any depth message of its file (the first is ${first.where}): whose each is cannot be told`);
    this.held.set(file, snap);
    return undefined;
  }

  /** At the end: a snapshot no depth message claimed is refused. */
  finish(): void {
    const [h] = this.held.values();
    if (h !== undefined) throw new ImportInputError(`${h.where}: a depth snapshot without a symbol and no depth message in its file to say whose it is (a snapshot is the symbol's whose depth stream its file holds)`);
  }
}
