/**
 * Where strategy code comes from, for every command that runs strategies (`perpkit run`, the
 * backtester and its sweep workers): one resolver, one loader.
 *
 * - A bare name (`market-maker`) is an example strategy shipped with perpkit (`strategies/<name>`
 *   beside this code). In a checkout of perpkit an edited example runs as edited: its TypeScript
 *   source is loaded unless the build is at least as new as every example source
 *   (`compiledIfFresh`); an installed package has only the compiled examples.
 * - Anything else is a path, resolved against the config file's directory: a file (`.ts`, `.mts`,
 *   `.cts`, `.js`, `.cjs`, `.mjs`), a path without extension (tried with each), or a folder (its
 *   `index` file).
 *
 * The compiled CLI loads every strategy module with jiti, which transpiles TypeScript in memory
 * (its disk cache is keyed by the file's content): a `.ts` strategy anywhere runs directly, with
 * no build step, and never from stale compiled output. Plain `require` cannot do this: Node treats
 * `.ts` as JavaScript, and since Node 20.19 an `import` line makes it an ES module, so
 * `defineStrategy<{ symbol: string }>(...)` is read as the comparison
 * `defineStrategy < { symbol: string } > (...)` and fails with "string is not defined".
 * Run from sources (the test runner transpiles TypeScript itself), modules are required as usual.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { createJiti } from 'jiti';
import { definitionProblems, type AnyStrategyDefinition } from './strategy/api';

/** The code root: the repo when running from sources (tests), dist/ when running compiled. */
const CODE_ROOT = path.resolve(__dirname, '../..');
const COMPILED = __filename.endsWith('.js');
/** The package root (the checkout, or node_modules/perpkit when installed). */
const PACKAGE_ROOT = COMPILED ? path.resolve(CODE_ROOT, '..') : CODE_ROOT;
const BUILT_IN = /^[a-z0-9][a-z0-9-]*$/;
/** Where this build's compiled examples are (dist/strategies/ when compiled). */
const COMPILED_EXAMPLES = path.join(CODE_ROOT, 'strategies') + path.sep;
const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.cjs', '.mjs'];
/** perpkit's own code: a load error thrown there (defineStrategy refusing a definition) is shown where the user's file called it. */
const OWN_CODE = path.join(CODE_ROOT, 'src') + path.sep;

/** A strategy module that cannot be found or loaded: what was expected, what was found. */
export class StrategySourceError extends Error {
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
    this.name = 'StrategySourceError';
  }
}

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();
const isDir = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();

/** The file `target` names: itself, itself plus an extension, or a folder's index file. */
function fileFor(target: string): string | undefined {
  if (isFile(target)) return target;
  for (const ext of EXTENSIONS) if (isFile(target + ext)) return target + ext;
  if (isDir(target)) for (const ext of EXTENSIONS) if (isFile(path.join(target, `index${ext}`))) return path.join(target, `index${ext}`);
  return undefined;
}

/** The file to load for a config's `module` value (absolute). Throws StrategySourceError. */
export function resolveStrategySource(spec: string, baseDir: string): string {
  if (BUILT_IN.test(spec)) {
    // A checkout has the examples' sources beside dist/: load those, never older compiled output.
    const source = path.join(PACKAGE_ROOT, 'strategies', spec, 'index.ts');
    if (isFile(source)) return (COMPILED ? compiledIfFresh(path.join(PACKAGE_ROOT, 'strategies'), path.join(CODE_ROOT, 'strategies'), spec) : undefined) ?? source;
    const compiled = fileFor(path.join(CODE_ROOT, 'strategies', spec));
    if (compiled !== undefined) return compiled;
    const known = listBuiltIns();
    throw new StrategySourceError(`an example strategy shipped with perpkit (${known.join(', ') || 'none found'}) or a path such as ./${spec}.ts`, `'${spec}'`);
  }
  const target = path.resolve(baseDir, spec);
  const file = fileFor(target);
  if (file === undefined) {
    const found = isDir(target) ? `${target}: a folder with no index file (index${EXTENSIONS.join(', index')})` : `${target}: no such file`;
    throw new StrategySourceError(`a strategy module file (${EXTENSIONS.join(', ')}) or a folder with an index file`, found);
  }
  return file;
}

/**
 * In a checkout: the compiled example `spec` (`<compiledRoot>/<spec>/index.js`) when every example
 * source under `sourceRoot` (the examples share files) has its compiled twin at least as new, that
 * is when the build holds what the sources say. The compiled example imports the compiled
 * framework (dist/src, already loaded by the CLI), while its source imports `../../src/index`,
 * which jiti would transpile with the whole of perpkit's src/ tree: about a third of a second at
 * every start, and a second copy of the framework in the process. An edited example (its source
 * newer than its build) is still loaded from its source. undefined: load the source.
 */
export function compiledIfFresh(sourceRoot: string, compiledRoot: string, spec: string): string | undefined {
  const compiled = path.join(compiledRoot, spec, 'index.js');
  if (!isFile(compiled)) return undefined;
  const stack = [sourceRoot];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) {
        stack.push(p);
        continue;
      }
      // Tests and declarations are not part of the build.
      if (!d.name.endsWith('.ts') || d.name.endsWith('.test.ts') || d.name.endsWith('.d.ts')) continue;
      const twin = path.join(compiledRoot, path.relative(sourceRoot, p)).replace(/\.ts$/, '.js');
      if (!isFile(twin) || statSync(twin).mtimeMs < statSync(p).mtimeMs) return undefined;
    }
  }
  return compiled;
}

/** The example strategies shipped with this copy of perpkit. */
export function listBuiltIns(): string[] {
  const dir = path.join(CODE_ROOT, 'strategies');
  if (!isDir(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && BUILT_IN.test(d.name) && fileFor(path.join(dir, d.name)) !== undefined && d.name !== 'indicators')
    .map((d) => d.name)
    .sort();
}

function isDefinition(v: unknown): v is AnyStrategyDefinition {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return typeof d.name === 'string' && typeof d.symbols === 'function' && typeof d.params === 'function' && typeof d.create === 'function';
}

let jiti: ReturnType<typeof createJiti> | undefined;

/**
 * Requires a module file: through jiti when compiled (a user's TypeScript or ES module), the
 * runtime's own require otherwise, and for the compiled examples (this build's own CommonJS
 * output). jiti itself is loaded only when a module needs it (~20 ms at every start otherwise).
 * Every user module a config names goes through it (strategies, a sweep's objective).
 */
export function requireModule(file: string): unknown {
  if (!COMPILED || (file.startsWith(COMPILED_EXAMPLES) && file.endsWith('.js'))) {
    // The module is chosen by the config at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
  }
  if (jiti === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createJiti: create } = require('jiti') as { createJiti: typeof createJiti };
    jiti = create(__filename, { interopDefault: false, moduleCache: true });
  }
  return jiti(file);
}

/**
 * Loads one definition: the module's default export, its `strategy` export, or the module itself
 * (`module.exports = defineStrategy(...)`). Throws StrategySourceError.
 */
export function loadStrategySource(spec: string, baseDir: string): { file: string; definition: AnyStrategyDefinition } {
  const file = resolveStrategySource(spec, baseDir);
  let mod: unknown;
  try {
    mod = requireModule(file);
  } catch (e) {
    throw new StrategySourceError('a strategy module that loads', `${file}: ${moduleLoadError(e, file)}`);
  }
  const m = (typeof mod === 'object' && mod !== null ? mod : {}) as Record<string, unknown>;
  const def = m.default ?? m.strategy ?? mod;
  if (!isDefinition(def)) {
    throw new StrategySourceError('a module exporting a strategy definition (default or `strategy` export with name, symbols, params, create)', `${file} exporting ${describe(def)}`);
  }
  // Hooks beside create (a definition not made by defineStrategy, which refuses them): never called.
  const problems = definitionProblems(def as unknown as Record<string, unknown>, false);
  if (problems.length > 0) throw new StrategySourceError('a strategy definition whose hooks are in the object create(ctx) returns', `${file} exporting a definition whose ${problems.join('; ')}`);
  return { file, definition: def };
}

/**
 * A load error on one line: its first line, and where it is when the next line says so (jiti puts
 * a syntax error's `file:line:column` on a line of its own: `ParseError: Unexpected token` alone
 * does not say where).
 */
export function loadErrorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const [first, second] = e.message.split('\n');
  const at = second?.trim();
  return at !== undefined && /^\S+:\d+:\d+$/.test(at) ? `${first.trim()} at ${at}` : first;
}

/** Why `file` did not load, on one line: the error, and where or what to do (below). */
export function moduleLoadError(e: unknown, file: string): string {
  return `${loadErrorText(e)}${loadErrorHint(e, file)}`;
}

/**
 * Where a module that threw while loading threw (its top level, or a file it imports: the first
 * frame outside node_modules and perpkit's own code, so defineStrategy refusing a definition
 * points at the call), or what to do when it imports a package that is not installed:
 * ` (at file:line:col)`, ` (...: npm install x ...)`, or nothing. A syntax error already says
 * where (loadErrorText).
 */
function loadErrorHint(e: unknown, file: string): string {
  if (!(e instanceof Error)) return '';
  const code = (e as { code?: unknown }).code;
  if (code === 'MODULE_NOT_FOUND') {
    const spec = /^Cannot find module '([^']+)'/.exec(e.message)?.[1];
    if (spec === undefined || spec.startsWith('node:')) return '';
    if (spec.startsWith('.') || path.isAbsolute(spec)) {
      // Node's "Require stack" lists the importing file first.
      const importer = /\nRequire stack:\n- (.+)/.exec(e.message)?.[1];
      return importer === undefined || importer === file ? '' : ` (imported by ${importer})`;
    }
    const parts = spec.split('/');
    const pkg = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    return ` (a package it imports is not installed where ${path.dirname(file)} can find it: run npm install ${pkg} in that project)`;
  }
  if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' && /in \S+[/\\]perpkit[/\\]package\.json$/.test(e.message)) return ` (perpkit's entry points: ${entryPoints().join(', ')})`;
  if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return '';
  if (e.message.includes('\n')) return ''; // a syntax error: loadErrorText gave its place
  const at = (e.stack ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at '))
    .map((l) => /(?:\(|^at )((?:file:\/\/)?\/[^()]*:\d+:\d+)\)?$/.exec(l)?.[1])
    .find((f): f is string => f !== undefined && !f.includes(`${path.sep}node_modules${path.sep}`) && !f.startsWith(OWN_CODE));
  return at === undefined ? '' : ` (at ${at})`;
}

/** The import paths perpkit's package.json exports (`perpkit`, `perpkit/sdk`, ...). */
function entryPoints(): string[] {
  try {
    const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
    return Object.keys(pkg.exports ?? {})
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? 'perpkit' : `perpkit/${k.slice(2)}`));
  } catch {
    return ['perpkit'];
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'object') {
    const keys = Object.keys(v);
    const problems = keys.includes('name') || keys.includes('create') || keys.includes('params') ? definitionProblems(v as Record<string, unknown>, false) : [];
    return `an object with keys ${keys.join(', ') || '(none)'}${problems.length > 0 ? `, whose ${problems.join('; ')}` : ''}`;
  }
  return typeof v;
}
