/**
 * Reading a request body with a size bound. An oversized body is refused with 10001 (HTTP 400, as
 * httpStatusOf says for that code: every status on this server follows from its code) without
 * buffering it; the server then closes the connection, so a client streaming gigabytes is cut off
 * rather than read to the end.
 */
import type { IncomingMessage } from 'node:http';
import { ErrorCodes, VenueError } from '../../../core/errors';

export class BodyTooLarge extends VenueError {
  constructor(limit: number) {
    super(ErrorCodes.INVALID_PARAMETER, `request body is larger than the limit of ${limit} bytes`, 'body');
  }
}

/** The client went away before its body arrived: there is nobody to answer. */
export class RequestAborted extends Error {}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(new BodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | undefined): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (): void => finish(new RequestAborted('request stream failed'));
    const onAborted = (): void => finish(new RequestAborted('client aborted the request'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
