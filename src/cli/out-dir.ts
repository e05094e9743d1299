/**
 * An output directory is checked before any work: a backtest that ran for minutes must not fail
 * at the end because `--out` names a file.
 */
import { rmdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { makeDirSync, missingDirsSync } from '../core/dirs';

/**
 * Why `dir` cannot be an output directory, as the end of "expected a directory (created if
 * missing), got ...", or undefined when it can: then it exists (made with its parents when
 * missing, so that a folder that cannot be made is said before the work, not after).
 */
export function outDirProblem(dir: string): string | undefined {
  const target = path.resolve(dir);
  for (let p = target; ; p = path.dirname(p)) {
    try {
      if (statSync(p).isDirectory()) return made(target);
      return p === target ? 'a file' : `a path under the file ${p}`;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return e instanceof Error ? e.message : String(e);
      if (path.dirname(p) === p) return made(target);
    }
  }
}

function made(dir: string): string | undefined {
  try {
    makeDirSync(dir);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The outermost of `dir` and its parents that does not exist now: what `outDirProblem` will make
 * for a run, so that a run that fails before writing anything can take it away again
 * (`removeMadeDir`). Undefined when `dir` exists.
 */
export function missingOutDir(dir: string): string | undefined {
  try {
    return missingDirsSync(dir)[0];
  } catch {
    // A path that cannot be a folder: outDirProblem says why, and nothing is made.
    return undefined;
  }
}

/**
 * Removes the folders a failed run made for its output (`made`, from `missingOutDir`, down to
 * `dir`) while they are empty: a refused backtest left an empty output folder behind.
 */
export function removeMadeDir(dir: string, made: string | undefined): void {
  if (made === undefined) return;
  for (let p = path.resolve(dir); ; p = path.dirname(p)) {
    try {
      rmdirSync(p);
    } catch {
      return;
    }
    if (p === made || path.dirname(p) === p) return;
  }
}
