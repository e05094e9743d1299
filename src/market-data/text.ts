/**
 * Text out of (possibly compressed) files, for every reader of market data: lines of a stream, and
 * what a zlib error means, so each reader can say it in one line instead of a zlib stack trace.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** Whether the file is gzip data: its magic bytes, not its name. */
export function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Lines of a text stream; the last line may lack its newline. */
export async function* textLines(stream: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = rest + decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  rest += decoder.end();
  if (rest.length > 0) yield rest;
}

/**
 * What a decompression error says of the file: `torn` (the compressed data ends early, as when a
 * writer was killed before it closed the file), `damaged` (not compressed data, or corrupt), or
 * undefined when the error is not zlib's. Duck-typed: errors from node's zlib may come from another
 * realm (test runners' VMs).
 */
export function zlibProblem(e: unknown): 'torn' | 'damaged' | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, message } = e as { code?: unknown; message?: unknown };
  if (code === 'Z_BUF_ERROR' || (typeof message === 'string' && /unexpected end of file/i.test(message))) return 'torn';
  if (typeof code === 'string' && code.startsWith('Z_')) return 'damaged';
  return undefined;
}

/**
 * Whole lines (newlines) a gzip file inflates to before its data fails: a reader that met the
 * failure may have been handed none of the text before it (zlib hands it out in large pieces), so
 * this second pass, in small ones, finds the last good line. Memory is flat in the file's size.
 */
export async function linesBeforeDamage(path: string): Promise<number> {
  let lines = 0;
  const gz = createGunzip({ chunkSize: 4096 });
  const raw = createReadStream(path, { highWaterMark: 16 * 1024 });
  raw.on('error', (e) => gz.destroy(e));
  try {
    for await (const chunk of raw.pipe(gz) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } catch {
    // The damage: the lines before it are counted.
  } finally {
    raw.destroy();
  }
  return lines;
}

/**
 * What every reader says of gzip data that is damaged, not torn (`zlibProblem` 'damaged': the
 * bytes were changed after they were written, by a bad copy or disk, rather than cut short by a
 * crash), after its last good line `line`: nothing after it can be read, and no repair mends it.
 */
export function damagedGzipProblem(line: number, e: unknown): string {
  const why = e instanceof Error ? e.message : String(e);
  return `the gzip data is damaged (not torn) after line ${line} (${why}): its bytes were changed after they were written (a bad copy or disk), so nothing after that line can be read and \`perpkit data repair\` cannot mend it; get the file again`;
}
