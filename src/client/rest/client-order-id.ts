/**
 * clientOrderIds made by the client: a random per-instance prefix and a counter, 36 characters at
 * most from [A-Za-z0-9_-] (the venue's rule). Cheap (no crypto per order) and unique across
 * restarts with overwhelming probability thanks to the random prefix.
 */
import { randomBytes } from 'node:crypto';

export class ClientOrderIdGenerator {
  private readonly prefix: string;
  private n = 0;

  constructor(prefix = 'pk') {
    if (!/^[A-Za-z0-9_-]{0,12}$/.test(prefix)) throw new RangeError(`clientOrderId prefix must be at most 12 of [A-Za-z0-9_-], got ${JSON.stringify(prefix)}`);
    this.prefix = `${prefix}${randomBytes(9).toString('base64url')}`;
  }

  next(): string {
    return `${this.prefix}${(++this.n).toString(36)}`;
  }
}
