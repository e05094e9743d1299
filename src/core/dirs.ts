/**
 * Making a folder and its missing parents. Node's own `mkdir(dir, { recursive: true })` never
 * returns for a path under procfs (`/proc/x`: mkdir says ENOENT, the parent exists, and it tries
 * again, forever: Node 20, 22 and 24 alike), so a mistyped `--out /proc/x` hung the command. These
 * make one level at a time from the nearest folder that exists, and throw the first error.
 */
import { mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The folders to make, outermost first: `dir` and its parents up to the nearest one that exists.
 * Throws mkdir's error for a path that cannot be a folder (under a file, no access).
 */
export function missingDirsSync(dir: string): string[] {
  const todo: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      statSync(d);
      return todo.reverse();
    } catch (e) {
      // Not a folder, no access: mkdir says so in its own words, as node's recursive mkdir did.
      if (!isMissing(e)) mkdirSync(d);
      if (!isMissing(e) || path.dirname(d) === d) throw e;
      todo.push(d);
    }
  }
}

/** Makes `dir` and its missing parents; nothing when it exists. */
export function makeDirSync(dir: string, mode?: number): void {
  for (const d of missingDirsSync(dir)) {
    try {
      mkdirSync(d, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  if (!statSync(dir).isDirectory()) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: 'EEXIST', syscall: 'mkdir', path: dir });
  }
}

/** makeDirSync, for async code (a few mkdir calls of microseconds: not worth a second walk). */
export async function makeDir(dir: string, mode?: number): Promise<void> {
  makeDirSync(dir, mode);
  return Promise.resolve();
}
