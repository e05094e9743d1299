/** String comparison whose time does not depend on where the strings differ. */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Both sides are hashed first so that the comparison runs over equal lengths: timingSafeEqual
 * refuses unequal buffers, and an early length check would leak the secret's length.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}
