/**
 * Text out of (possibly compressed) files, for every reader of market data: lines of a stream, and
 * what a zlib error means, so each reader can say it in one line instead of a zlib stack trace.
 */
import { closeSync, openSync, readSync } from 'node:fs';
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
