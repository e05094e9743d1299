/** Loopback ports for tests that start servers (or need one where nothing listens). */
import { createServer } from 'node:net';

/**
 * A port that was free a moment ago on 127.0.0.1, and has nothing listening now: for a server the
 * test is about to start there, or for a venue that does not answer.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
