/**
 * The silences of a replay longer than LONG_SILENCE_MS (market-data/silence.ts, the definition
 * `perpkit data inspect` uses), each with the file it lies in or the two files it lies between.
 * The driver finds them where the replay clock moves on (the clock is the latest event time of
 * the range); this keeps the files, once per batch, so the replay pays nothing per event for them.
 * A source's batch never spans two files.
 */
import { configRelative } from './config';
import { SILENCES_LISTED, type BacktestResult, type SilenceRow } from './result';
import type { EventSource } from './source';

export class SilenceBooks {
  /** The file of the last batch an event of the range was applied from. */
  private lastFile = '';
  /** Events applied before the current batch. */
  private appliedBefore = 0;

  constructor(
    private readonly out: BacktestResult['silences'],
    private readonly baseDir: string,
  ) {}

  /** At a batch's start, with the count of events applied so far. */
  startBatch(applied: number): void {
    this.appliedBefore = applied;
  }

  /** At a batch's end, with the count of events applied so far. */
  endBatch(source: EventSource, applied: number): void {
    if (applied > this.appliedBefore) this.lastFile = source.origin(0).file;
  }

  /**
   * A silence from `from` (the latest event time of the range) to event `i` of the current batch
   * at `to`, with `applied` events applied so far: the event before it is in this batch's file
   * when one of the batch was applied, else in the file of the last batch that had one.
   */
  note(source: EventSource, i: number, applied: number, from: number, to: number): void {
    const file = source.origin(i).file;
    const before = applied > this.appliedBefore ? file : this.lastFile;
    const row: SilenceRow = { from, to, ms: to - from, file: configRelative(this.baseDir, before), nextFile: before === file ? null : configRelative(this.baseDir, file) };
    const o = this.out;
    o.count++;
    o.ms += row.ms;
    if (o.longest === null || row.ms > o.longest.ms) o.longest = row;
    if (o.first.length < SILENCES_LISTED) o.first.push(row);
  }
}
