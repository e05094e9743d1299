/**
 * A strategy's code as part of what identifies a run: a sha256 of the module file a config's
 * `module` loaded and of the local files it imports, as they were when this process (or worker
 * thread) first loaded them. Node keeps a loaded module's code for the life of the process, so
 * the hash is taken once per file and kept: a file edited later runs as it was loaded, and its
 * hash says so (a long-lived `perpkit worker` compares it with the hash a sweep's job carries).
 *
 * What is hashed (docs/backtesting.md, "Identity"): the module file (for an example shipped with
 * perpkit, its TypeScript source when the package has it, though the build was loaded), then every file
 * it imports by a relative path (`./x`, `../lib/y`) in a static `import ... from`, `export ... from`,
 * `import '...'`, `import('...')` or `require('...')` with a string literal, resolved as the loader
 * resolves (the file, with `.ts`, `.mts`, `.cts`, `.js`, `.cjs`, `.mjs`, `./x.js` for `./x.ts`,
 * or a folder's index), and so on through those files. Packages (`perpkit`, anything from
 * node_modules) and perpkit's own code (an example strategy's `../../src/index`) are not
 * followed: perpkit's version is in the identity already. A path computed at run time is not seen.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

export interface StrategyCode {
  /** sha256 over the files below (each its path as listed and the sha256 of its bytes), 16 hex digits. */
  sha256: string;
  /** The module file first, then the local files it imports, relative to the module's folder with `/`. */
  files: string[];
}

const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.cjs', '.mjs'];
/** Specifiers of static imports, re-exports, side-effect imports, dynamic imports and requires, as string literals. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\1/g;

/** Per file, as first read in this process: its bytes' sha256 and the local files it imports. */
const seen = new Map<string, { sha256: string; imports: string[] }>();

let ownRoot: string | null | undefined;

/** The folder of perpkit's package.json (the checkout, or node_modules/perpkit); null when not found. */
function perpkitRoot(): string | null {
  if (ownRoot !== undefined) return ownRoot;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'package.json');
    if (existsSync(p) && (JSON.parse(readFileSync(p, 'utf8')) as { name?: string }).name === 'perpkit') return (ownRoot = dir);
    if (path.dirname(dir) === dir) return (ownRoot = null);
  }
}

/** perpkit's own code (src/ and dist/src/ of its package): not followed. */
function perpkitCode(): string[] {
  const root = perpkitRoot();
  return root === null ? [] : [path.join(root, 'src') + path.sep, path.join(root, 'dist', 'src') + path.sep];
}

/**
 * The file whose code `file` is: an example's compiled `dist/strategies/<name>/index.js` (loaded
 * in a checkout whose build is fresh) is its source `strategies/<name>/index.ts`, so the same
 * example has the same code whether a process loaded its build or its source (a sweep's
 * coordinator and its worker threads may not load the same one).
 */
function codeFileOf(file: string): string {
  const root = perpkitRoot();
  if (root === null) return file;
  const built = path.join(root, 'dist', 'strategies') + path.sep;
  if (!file.startsWith(built) || !file.endsWith('.js')) return file;
  const source = path.join(root, 'strategies', file.slice(built.length, -'.js'.length) + '.ts');
  return isFile(source) ? source : file;
}

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/** The file a relative specifier names from `from`, as the loader finds it; undefined when none. */
function resolveImport(from: string, spec: string): string | undefined {
  const target = path.resolve(path.dirname(from), spec);
  const candidates = [target, ...EXTENSIONS.map((e) => target + e), ...EXTENSIONS.map((e) => path.join(target, `index${e}`))];
  // TypeScript's ESM style: `./x.js` names x.ts.
  const js = /\.(m|c)?js$/.exec(target);
  if (js !== null) candidates.push(`${target.slice(0, -js[0].length)}.${js[1] ?? ''}ts`);
  return candidates.find(isFile);
}

function fileOf(file: string): { sha256: string; imports: string[] } {
  let f = seen.get(file);
  if (f === undefined) {
    const bytes = readFileSync(file);
    const text = bytes.toString('utf8');
    const own = perpkitCode();
    const imports = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const r = resolveImport(file, m[2]);
      if (r !== undefined && !r.includes(`${path.sep}node_modules${path.sep}`) && !own.some((o) => r.startsWith(o))) imports.add(r);
    }
    f = { sha256: createHash('sha256').update(bytes).digest('hex'), imports: [...imports] };
    seen.set(file, f);
  }
  return f;
}

/**
 * The code of the strategy module `file` (absolute, as the loader resolved it), as first loaded
 * here: call it when the module is loaded. Unreadable files are left out of the hash (the loader
 * has said why the module did not load).
 */
export function strategyCodeOf(loaded: string): StrategyCode {
  const file = codeFileOf(loaded);
  const all: string[] = [];
  const todo = [file];
  const done = new Set<string>();
  while (todo.length > 0) {
    const f = todo.shift() as string;
    if (done.has(f)) continue;
    done.add(f);
    let info: { sha256: string; imports: string[] };
    try {
      info = fileOf(f);
    } catch {
      continue;
    }
    all.push(f);
    todo.push(...info.imports);
  }
  const base = path.dirname(file);
  const rel = (f: string): string => path.relative(base, f).split(path.sep).join('/');
  // The module first, then its imports in a fixed order: the same files give the same hash wherever the project lives.
  const files = [all[0] ?? file, ...all.slice(1).sort((a, b) => (rel(a) < rel(b) ? -1 : rel(a) > rel(b) ? 1 : 0))];
  const h = createHash('sha256');
  for (const f of files) h.update(`${rel(f)}\0${seen.get(f)?.sha256 ?? 'unreadable'}\0`);
  return { sha256: h.digest('hex').slice(0, 16), files: files.map(rel) };
}
