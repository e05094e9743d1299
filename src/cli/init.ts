/**
 * `perpkit init <folder>`: scaffolds a project for your own strategies (init-files.ts has what).
 * Exit codes: 0 written, 2 usage error or a folder that is not empty (nothing written).
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { initFiles } from './init-files';
import { perpkitVersion } from './version';
import { argsMessage, usageFailure } from './usage';
import { INIT_USAGE } from './usage-texts';
import { makeDirSync } from '../core/dirs';

class InitUsageError extends Error {}

const NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** A folder name made into an npm package name (lowercase, safe characters). */
function packageName(folder: string): string {
  const n = path
    .basename(path.resolve(folder))
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[._]+/, '');
  return n === '' ? 'my-bot' : n;
}

/** The dependency spec: a range as given, or a path written as file:<path relative to the project>. */
function dependencySpec(spec: string | undefined, projectDir: string): string {
  if (spec === undefined) return `^${perpkitVersion()}`;
  // npm reads an empty range as '*': any perpkit at all, the opposite of pinning one.
  if (spec.trim() === '') throw new InitUsageError("--perpkit must be a version range or a path, got ''");
  const looksLikePath = spec.startsWith('.') || spec.startsWith('/') || spec.endsWith('.tgz') || spec.startsWith('file:');
  if (!looksLikePath) return spec;
  const target = path.resolve(spec.replace(/^file:/, ''));
  if (!existsSync(target)) throw new InitUsageError(`--perpkit: ${target} does not exist (expected a version range, a perpkit tarball or a checkout)`);
  const rel = path.relative(projectDir, target).split(path.sep).join('/');
  return `file:${rel.startsWith('.') ? rel : `./${rel}`}`;
}

export function runInit(argv: string[]): number {
  try {
    const parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { name: { type: 'string' }, perpkit: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (parsed.values.help) {
      process.stdout.write(INIT_USAGE);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new InitUsageError(`expected one folder, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.join(' ')}`);
    const folder = parsed.positionals[0];
    const dir = path.resolve(folder);
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new InitUsageError(`${dir} exists and is not a folder`);
      const entries = readdirSync(dir);
      if (entries.length > 0) throw new InitUsageError(`${dir} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, e.g. ${entries.sort()[0]}): init writes only into a new or empty folder`);
    }
    const name = parsed.values.name ?? packageName(folder);
    if (!NAME.test(name)) throw new InitUsageError(`--name must be a valid npm package name (lowercase letters, digits, - . _ ~), got '${name}'`);
    const files = initFiles({ name, perpkitSpec: dependencySpec(parsed.values.perpkit, dir) });
    for (const [rel, text] of files) {
      const file = path.join(dir, rel);
      makeDirSync(path.dirname(file));
      writeFileSync(file, text, { flag: 'wx' });
    }
    const cd = path.relative(process.cwd(), dir) || '.';
    process.stdout.write(
      `created ${name} in ${dir}: ${[...files.keys()].join(', ')}\n\nNext:\n  cd ${cd}\n  npm install\n  npm test              # the strategy's tests\n  npm run backtest      # synthetic data, then a backtest of src/strategy.ts\n\nThen edit src/strategy.ts (docs: README.md there, and node_modules/perpkit/docs/strategies.md).\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof InitUsageError || (e instanceof Error && 'code' in e && String((e as { code: unknown }).code).startsWith('ERR_PARSE_ARGS'))) {
      return usageFailure('init', argsMessage(e));
    }
    throw e;
  }
}
