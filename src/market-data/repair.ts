/**
 * Repairing a recording file cut short by a crash of its writer (a torn last line, or a gzip
 * stream with no end): everything before the tear is written to a new, whole file, header as it
 * was. The torn file is left as it is; the new one is written beside its final name and renamed
 * onto it at the end, so an interrupted repair leaves no half file behind.
 */
import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import { readRecording, RecordingFormatError, type TornTail } from './reader';
import { sameFile } from './writer';

export interface RepairResult {
  /** Events kept (the header aside). */
  events: number;
  /** Where the tear was; undefined when the file read whole (nothing is written then). */
  tear: TornTail | undefined;
}

/**
 * Reads `file` up to its tear and writes what is before it to `out` (gzip JSON lines, or plain
 * ones when `out` does not end in .gz), in one pass through a temporary file. A file that reads
 * whole is not copied: the result says so. Throws RecordingFormatError for a file that is damaged
 * elsewhere than its tail (that is not a crash), whose gzip data is damaged (not torn), or that is
 * torn inside its header (nothing to keep); nothing is written then.
 */
export async function repairRecording(file: string, out: string): Promise<RepairResult> {
  if (sameFile(file, out)) throw new Error(`--out ${out}: the repaired recording must go to another file than the torn one (which is left as it is)`);
  let tear: TornTail | undefined;
  let events = 0;
  const tmp = `${out}.repair-${process.pid}.tmp`;
  // Gzip unless --out says plain JSON lines (a name not ending in .gz); readers take either.
  const gzip = out.endsWith('.gz') ? createGzip() : new PassThrough();
  const dest = createWriteStream(tmp);
  gzip.pipe(dest);
  const lines: string[] = [];
  try {
    for await (const x of readRecording([file], { allowTornTail: true, onTornTail: (t) => (tear = t) })) {
      if (!('type' in x)) events++;
      lines.push(JSON.stringify(x));
      if (lines.length >= 4096) {
        if (!gzip.write(`${lines.join('\n')}\n`)) await once(gzip, 'drain');
        lines.length = 0;
      }
    }
    if (lines.length > 0) gzip.write(`${lines.join('\n')}\n`);
    gzip.end();
    await once(dest, 'close');
    // A file that reads whole is not copied; one torn in its header has nothing to keep.
    const torn = tear as TornTail | undefined;
    if (torn !== undefined && torn.line <= 1) throw new RecordingFormatError(file, 1, `nothing to keep: the header itself is torn (${torn.why}); nothing written`);
    if (torn === undefined) rmSync(tmp, { force: true });
    else renameSync(tmp, out);
  } catch (e) {
    gzip.destroy();
    dest.destroy();
    rmSync(tmp, { force: true });
    throw e;
  }
  return { events, tear };
}
