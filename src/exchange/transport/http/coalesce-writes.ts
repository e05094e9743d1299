/**
 * One socket write per connection per event-loop turn instead of one per response.
 *
 * node:http ends every response with a forced uncork, so each response (and each pipelined
 * response after it) costs its own writev system call; over loopback that call was 40 % of the
 * server's CPU under load. Here a connection's writes made during one turn of the event loop are
 * collected and handed to the socket's own `_writev` once, in a setImmediate (after the poll phase
 * that read the requests), as one system call.
 *
 * Back-pressure is kept: a write is only collected while the socket's libuv queue is empty (the
 * kernel took everything so far). Once the peer stops reading and data stays queued, writes go
 * the ordinary way again, so the Writable's buffer and `needDrain` (which node:http uses to stop
 * parsing the pipelined requests of a client that does not read its answers) work as before.
 * Ending or destroying the socket flushes first: what was collected was already reported written
 * (node:http counts the response finished), just as it would have been in the kernel's buffer
 * before a destroy without coalescing.
 */
import type { Socket } from 'node:net';

interface Chunk {
  chunk: Buffer | string;
  encoding: BufferEncoding;
}
type Cb = (err?: Error | null) => void;

interface SocketInternals {
  _writev(chunks: Chunk[], cb: Cb): void;
  _write(chunk: Buffer | string, encoding: BufferEncoding, cb: Cb): void;
  _final(cb: Cb): void;
  _destroy(err: Error | null, cb: Cb): void;
  _handle: { writeQueueSize?: number } | null;
}

interface Coalesced {
  socket: Socket;
  writev: (chunks: Chunk[], cb: Cb) => void;
  pending: Chunk[] | undefined;
}

let dirty: Coalesced[] = [];
let scheduled = false;

const onWriteError = function (this: Socket, err?: Error | null): void {
  if (err) this.destroy(err);
};

/** `destroying`: called from _destroy (socket.destroyed is already true, the handle still open). */
function flush(c: Coalesced, destroying = false): void {
  const chunks = c.pending;
  if (chunks === undefined) return;
  c.pending = undefined;
  if (c.socket.destroyed && !destroying) return;
  c.writev.call(c.socket, chunks, onWriteError.bind(c.socket));
}

function flushAll(): void {
  scheduled = false;
  const list = dirty;
  dirty = [];
  for (const c of list) flush(c);
}

function collect(c: Coalesced, chunk: Chunk): void {
  if (c.pending === undefined) {
    c.pending = [chunk];
    dirty.push(c);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushAll);
    }
  } else {
    c.pending.push(chunk);
  }
}

export function coalesceWrites(socket: Socket): void {
  const s = socket as unknown as SocketInternals;
  const c: Coalesced = { socket, writev: s._writev, pending: undefined };
  const write = s._write;
  const final = s._final;
  const destroy = s._destroy;
  const queued = (): boolean => (s._handle?.writeQueueSize ?? 0) > 0;
  s._writev = function (chunks, cb) {
    if (queued()) {
      flush(c);
      c.writev.call(socket, chunks, cb);
      return;
    }
    for (const ch of chunks) collect(c, ch);
    cb();
  };
  s._write = function (chunk, encoding, cb) {
    if (queued()) {
      flush(c);
      write.call(socket, chunk, encoding, cb);
      return;
    }
    collect(c, { chunk, encoding });
    cb();
  };
  s._final = function (cb) {
    flush(c);
    final.call(socket, cb);
  };
  s._destroy = function (err, cb) {
    if (s._handle !== null) flush(c, true);
    else c.pending = undefined;
    destroy.call(socket, err, cb);
  };
}
