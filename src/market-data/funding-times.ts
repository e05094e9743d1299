/**
 * Funding settlements read off a mark stream. No public stream says that a settlement happened:
 * a mark stream announces the next funding time and the rate for it (the venue's markPrice push
 * `nextFundingTime` and `fundingRate`, Binance's markPriceUpdate `T` and `r`, Tardis's
 * derivative_ticker `funding_timestamp` and `funding_rate`). When the announced time moves
 * forward, the settlement at the old time took place, at the rate last announced before the move.
 * On a venue with a fixed schedule (Binance, the exchanges of Tardis data) a move more than a
 * minute before the old time came is not taken for one: some venues roll the next funding time
 * just before the settlement, but further ahead it is a change of the schedule. The perpkit venue
 * moves it only by settling, also when its admin settles ahead of time: there every move is one.
 *
 * The recorder (recorder.ts) and the importers (import/importer.ts: Binance captures, Tardis) all
 * read settlements here; what they write of one (which mark, which times) is theirs.
 */

/** How long before the funding time a move of the announced time still counts as its settlement. */
export const FUNDING_SLACK_MS = 60_000;

/** A settlement at the announced funding time `at` (epoch ms), at the rate announced for it. */
export interface FundingSettlement {
  at: number;
  rate: string;
}

/** The next funding time and rate as one symbol's mark stream announced them so far. */
export class AnnouncedFunding {
  /** The next funding time last announced (undefined: none yet). */
  next: number | undefined;
  /** The rate last announced (undefined: none yet). */
  rate: string | undefined;

  /**
   * A message at exchange time `et` announcing next funding time `next` and rate `rate` (either
   * undefined when the message gives none: the last one holds). Returns the settlement it shows,
   * `early` when the announced time moved forward more than FUNDING_SLACK_MS before it came (no
   * settlement assumed; `et` undefined: a venue that moves it only by settling, never early), or
   * undefined (no move: no settlement).
   */
  see(next: number | undefined, rate: string | undefined, et: number | undefined): FundingSettlement | 'early' | undefined {
    const prev = this.next;
    let out: FundingSettlement | 'early' | undefined;
    if (next !== undefined && prev !== undefined && next > prev) out = et !== undefined && prev - et > FUNDING_SLACK_MS ? 'early' : { at: prev, rate: this.rate ?? '0' };
    if (next !== undefined) this.next = next;
    if (rate !== undefined) this.rate = rate;
    return out;
  }
}
