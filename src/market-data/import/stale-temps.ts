/** The temporary files of an import that was killed, found by the process id in their names. */
import { readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from '../../core/processes';

/**
 * Removes the temporary files an import to `out` left when it was killed (`kill -9`, a power
 * loss: no cleanup ran), `<out>.body-<pid>.tmp` and `<out>.<pid>.tmp` of a process that is gone;
 * those of a running import are left alone. Returns the paths removed.
 */
export function removeStaleTemps(out: string): string[] {
  const dir = dirname(out);
  const name = basename(out);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const n of names.sort()) {
    if (!n.startsWith(`${name}.`)) continue;
    const m = /^(?:body-)?(\d+)\.tmp$/.exec(n.slice(name.length + 1));
    if (m === null || Number(m[1]) === process.pid || isProcessAlive(Number(m[1]))) continue;
    const p = join(dir, n);
    try {
      unlinkSync(p);
      removed.push(p);
    } catch {
      // Gone already, or not ours to remove: left.
    }
  }
  return removed;
}
