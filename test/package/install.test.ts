/**
 * The package as a user gets it, from `npm pack`: installed into an empty folder (production
 * dependencies only), `npx perpkit --version`, ESM and CommonJS consumers of every entry point,
 * then `npx perpkit init my-bot` with its perpkit dependency pointed at the same tarball, where
 * `npm install && npm test` passes and `npm run backtest` prints a result for the scaffolded
 * TypeScript strategy, with no build step.
 *
 * `npm pack` runs in a copy of the checkout (its prepack script cleans and rebuilds dist/, which
 * other tests running at the same time read in the checkout). Dependencies come from the npm
 * registry or npm's cache; perpkit only from the tarball. Slow by nature (installs, a clean
 * build): about a minute or two on an idle machine.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The environment of a user's shell: without the npm_* variables of the npm running this test. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', PERPKIT_LOG_LEVEL: 'warn', ...extra };
}

/** Copies the checkout's files (tracked and new, as git sees them; no node_modules or dist) to `dest`. */
function copyCheckout(dest: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const rel of listed.stdout.split('\0').filter((f) => f !== '')) {
    if (!existsSync(path.join(ROOT, rel))) continue; // deleted in the work tree
    mkdirSync(path.dirname(path.join(dest, rel)), { recursive: true });
    cpSync(path.join(ROOT, rel), path.join(dest, rel));
  }
}

interface Ran {
  code: number | null;
  out: string;
}

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Ran {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000, env: userEnv(env) });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

/** Runs and expects exit 0, showing the output when not. */
function ok(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const r = sh(cmd, args, cwd, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.code}:\n${r.out}`);
  return r.out;
}

describe('the packed package, installed and used from an empty folder', () => {
  let tmp: string;
  let tarball: string;
  let app: string;
  let bot: string;

  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'perpkit-package-'));
    // A copy of the checkout sharing node_modules.
    const copy = path.join(tmp, 'checkout');
    copyCheckout(copy);
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const packs = path.join(tmp, 'packs');
    mkdirSync(packs);
    const before = readFileSync(path.join(copy, 'package.json'), 'utf8');
    ok(NPM, ['pack', '--pack-destination', packs], copy);
    const tgz = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    expect(tgz).toEqual([`perpkit-${VERSION}.tgz`]);
    tarball = path.join(packs, tgz[0]);
    // The pack leaves the checkout's package.json as it was (prepack takes scripts out of the one it packs).
    expect(readFileSync(path.join(copy, 'package.json'), 'utf8')).toBe(before);
    expect(existsSync(path.join(copy, '.package.json.prepack'))).toBe(false);
    app = path.join(tmp, 'app');
    mkdirSync(app);
    bot = path.join(app, 'my-bot');
  }, 600_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('ships the build and docs, and no tests, benches, CI, maps or build info', () => {
    const listed = ok('tar', ['-tzf', tarball], tmp).split('\n').filter((l) => l !== '');
    for (const f of ['package/bin/perpkit.js', 'package/dist/src/index.js', 'package/dist/src/index.d.ts', 'package/dist/src/testing/index.js', 'package/entry/index.cjs', 'package/entry/testing.cjs', 'package/dist/strategies/market-maker/index.js', 'package/LICENSE', 'package/CHANGELOG.md', 'package/README.md', 'package/deploy/perpkit.service', 'package/docs/running.md']) {
      expect(listed).toContain(f);
    }
    const unwanted = listed.filter((f) => /\.test\.|\/test\/|\/bench\/|\.ci\/|tsbuildinfo|\.map$|^package\/src\/|\/tools\//.test(f));
    expect(unwanted).toEqual([]);
    // No script that runs tools/prepare.cjs, which is not shipped: npm listed `perpkit@x
    // (prepare: node tools/prepare.cjs)` among the install scripts on every install of the tarball.
    const pkg = JSON.parse(ok('tar', ['-xzOf', tarball, 'package/package.json'], tmp)) as { scripts: Record<string, string> };
    expect(Object.entries(pkg.scripts).filter(([, v]) => v.includes('tools/prepare.cjs'))).toEqual([]);
    expect(Object.keys(pkg.scripts)).not.toEqual(expect.arrayContaining(['prepare']));
  });

  it('installs without dev dependencies; npx perpkit --version prints the version', () => {
    writeFileSync(path.join(app, 'package.json'), '{ "name": "app", "version": "1.0.0", "private": true }\n');
    // As docs/getting-started.md section 1 does: the tarball in the folder, installed from there.
    cpSync(tarball, path.join(app, path.basename(tarball)));
    const installed = ok(NPM, ['install', `./${path.basename(tarball)}`], app);
    // perpkit brings no install script of its own to approve (npm said `perpkit@x (prepare: ...)`).
    expect(installed).not.toMatch(/perpkit@\S+ \((prepare|install|postinstall|preinstall):/);
    expect(existsSync(path.join(app, 'node_modules', 'perpkit', 'dist', 'src', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(ok(NPX, ['perpkit', '--version'], app).trim()).toBe(VERSION);
    expect(ok(NPX, ['perpkit', '-v'], app).trim()).toBe(VERSION);
  }, 300_000);

  it('serves ESM and CommonJS consumers on every entry point', () => {
    const names = "defineStrategy, Dec } from 'perpkit'; import { PerpClient } from 'perpkit/sdk'; import { strategyWorld } from 'perpkit/testing'; import { backtest } from 'perpkit/backtest'; import { startExchange } from 'perpkit/exchange'";
    writeFileSync(path.join(app, 'esm.mjs'), `import { ${names};\nconsole.log([defineStrategy, Dec, PerpClient, strategyWorld, backtest, startExchange].map((f) => typeof f).join(' '));\n`);
    writeFileSync(
      path.join(app, 'cjs.cjs'),
      "const { defineStrategy, Dec } = require('perpkit');\nconst { PerpClient } = require('perpkit/sdk');\nconst { strategyWorld } = require('perpkit/testing');\nconst { backtest } = require('perpkit/backtest');\nconst { startExchange } = require('perpkit/exchange');\nconsole.log([defineStrategy, Dec, PerpClient, strategyWorld, backtest, startExchange].map((f) => typeof f).join(' '));\n",
    );
    const six = 'function function function function function function';
    expect(ok(process.execPath, ['esm.mjs'], app).trim()).toBe(six);
    expect(ok(process.execPath, ['cjs.cjs'], app).trim()).toBe(six);
    // The README's "Your own project" names every entry point the package exports.
    const exported = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports).filter((k) => k.startsWith('./') && k !== './package.json');
    const own = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('## Your own project')[1].split('\n## ')[0];
    expect(exported.filter((k) => !own.includes(`\`perpkit/${k.slice(2)}\``))).toEqual([]);
    // Internals stay internal: only the exports map's entry points resolve.
    expect(sh(process.execPath, ['-e', "require('perpkit/dist/src/cli/main.js')"], app).out).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  }, 120_000);

  it('type-checks a TypeScript consumer of every entry point under node16, bundler and node10 resolution, library checks on, with no @types/node of its own', () => {
    // perpkit's declarations use Node's types (node:http, AbortSignal, pino's): the package brings them.
    // esModuleInterop (tsc --init's default) because pino's own declarations need it.
    const pkg = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(pkg)).not.toContain('@types/node');
    writeFileSync(
      path.join(app, 'consumer.ts'),
      [
        "import { defineStrategy, Dec, param, params, type Intent, type Strategy } from 'perpkit';",
        "import { PerpClient } from 'perpkit/sdk';",
        "import { strategyWorld } from 'perpkit/testing';",
        "import { backtest, loadBacktestConfig } from 'perpkit/backtest';",
        "import { startExchange } from 'perpkit/exchange';",
        "import { Ema } from 'perpkit/indicators';",
        "export const s = defineStrategy({ name: 'c', params: params({ size: param.decimal({ default: '0.01' }) }), symbols: () => ['BTCUSDT'], create: (ctx): Strategy => ({ onMark(): Intent[] { return [{ kind: 'place', symbol: ctx.symbol, side: 'BUY', type: 'MARKET', quantity: ctx.quantity.round(ctx.params.size) }]; } }) });",
        'export const all = [Dec, PerpClient, strategyWorld, backtest, loadBacktestConfig, startExchange, new Ema(3)];',
        '',
      ].join('\n'),
    );
    // One `tsc -b` over a project per resolution: it parses the declarations once for the three
    // (about 15 s against 24 s for three `tsc -p`); --verbose names the project before its errors.
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const references: Array<{ path: string }> = [];
    for (const [module, resolution] of [['node16', 'node16'], ['esnext', 'bundler'], ['commonjs', 'node10']]) {
      const config = { compilerOptions: { target: 'es2022', module, moduleResolution: resolution, strict: true, noEmit: true, skipLibCheck: false, esModuleInterop: true }, files: ['consumer.ts'] };
      writeFileSync(path.join(app, `tsconfig.${resolution}.json`), `${JSON.stringify(config)}\n`);
      references.push({ path: `./tsconfig.${resolution}.json` });
    }
    writeFileSync(path.join(app, 'tsconfig.consumers.json'), `${JSON.stringify({ files: [], references })}\n`);
    const r = sh(process.execPath, [tsc, '-b', '--verbose', 'tsconfig.consumers.json'], app);
    if (r.code !== 0) throw new Error(`tsc under node16, bundler and node10 resolution failed (the project being built names the resolution):\n${r.out}`);
    expect(r.out.match(/Building project /g)).toHaveLength(3);
  }, 120_000);

  it("type-checks every whole TypeScript sample of the docs (README, docs/*.md) that imports perpkit, as a user's ES module", () => {
    // Whole samples: they import from perpkit (or node:) only; fragments that go on from another block are left out.
    const samples = path.join(app, 'samples');
    mkdirSync(samples, { recursive: true });
    const docs = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const written: string[] = [];
    for (const doc of docs) {
      let n = 0;
      for (const m of readFileSync(path.join(ROOT, doc), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)) {
        n++;
        const sources = [...m[1].matchAll(/^import .* from '([^']+)';/gm)].map((i) => i[1]);
        if (!sources.some((f) => f === 'perpkit' || f.startsWith('perpkit/')) || !sources.every((f) => f === 'perpkit' || f.startsWith('perpkit/') || f.startsWith('node:'))) continue;
        const name = `${doc.replace(/\W+/g, '-')}-${n}.mts`;
        writeFileSync(path.join(samples, name), m[1]);
        written.push(name);
      }
    }
    // The README's strategy, the strategy API's, the indicators', backtest() from code, the SDK's, the exchange from code.
    expect(written.length).toBeGreaterThanOrEqual(7);
    expect(written).toEqual(expect.arrayContaining(['README-md-1.mts', expect.stringMatching(/^docs-local-exchange-md-/), expect.stringMatching(/^docs-sdk-md-/), expect.stringMatching(/^docs-backtesting-md-/)]));
    const config = { compilerOptions: { target: 'es2022', module: 'node16', strict: true, noEmit: true, skipLibCheck: true, noUnusedLocals: false }, include: ['samples'] };
    writeFileSync(path.join(app, 'tsconfig.json'), `${JSON.stringify(config)}\n`);
    const r = sh(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
    if (r.code !== 0) throw new Error(`the docs' samples (${written.join(', ')}) do not type-check:\n${r.out}`);
  }, 120_000);

  it('npx perpkit init my-bot scaffolds a project, and refuses a folder that is not empty', () => {
    // docs/getting-started.md section 1 shows exactly the commands this test runs.
    const doc = readFileSync(path.join(ROOT, 'docs', 'getting-started.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## 1. Your own project'), doc.indexOf('## 2.'));
    const tgz = `./perpkit-${VERSION}.tgz`;
    expect(/```sh\n([\s\S]*?)```/.exec(section)?.[1].trim().split('\n')).toEqual([`npm install ${tgz}`, `npx perpkit init my-bot --perpkit ${tgz}`, 'cd my-bot', 'npm install', 'npm test', 'npm run backtest']);
    const out = ok(NPX, ['perpkit', 'init', 'my-bot', '--perpkit', tgz], app);
    expect(out).toContain('created my-bot');
    for (const f of ['package.json', 'tsconfig.json', 'src/strategy.ts', 'test/strategy.test.ts', 'config/bot.yaml', 'config/backtest.yaml', 'README.md']) expect(existsSync(path.join(bot, f))).toBe(true);
    const pkg = JSON.parse(readFileSync(path.join(bot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.perpkit).toBe(`file:../perpkit-${VERSION}.tgz`);
    // Without --perpkit: the published version's range (npm answers 404 until it is published).
    ok(NPX, ['perpkit', 'init', 'published-bot'], app);
    expect((JSON.parse(readFileSync(path.join(app, 'published-bot', 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.perpkit).toBe(`^${VERSION}`);
    const again = sh(NPX, ['perpkit', 'init', 'my-bot'], app);
    expect(again.code).toBe(2);
    expect(again.out.trim().split('\n')).toHaveLength(1);
    expect(again.out).toMatch(/my-bot is not empty/);
    // --perpkit points the dependency at a tarball, relative to the new project.
    ok(NPX, ['perpkit', 'init', 'other-bot', '--perpkit', tarball], app);
    const other = JSON.parse(readFileSync(path.join(app, 'other-bot', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(other.dependencies.perpkit).toBe(`file:../../packs/${path.basename(tarball)}`);
  }, 120_000);

  it('in my-bot, with perpkit from the tarball: npm install && npm test pass, npm run backtest prints a result', () => {
    ok(NPM, ['install'], bot);
    // The configs' editor schema ($schema, relative to each config) is where the install put it.
    for (const f of ['bot.yaml', 'backtest.yaml']) {
      const schema = /\$schema=(\S+)/.exec(readFileSync(path.join(bot, 'config', f), 'utf8'))?.[1] ?? '';
      expect(existsSync(path.resolve(bot, 'config', schema))).toBe(true);
    }
    const test = ok(NPM, ['test'], bot);
    expect(test).toMatch(/pass 3/);
    expect(test).toMatch(/fail 0/);
    // jiti's hook (`node --import jiti/register`) transforms the project's TypeScript and leaves
    // perpkit to Node: through .js entry points it transformed all of dist/ (~4 s of CPU on a
    // first run), and jiti says each file it meets.
    const traced = ok(process.execPath, ['--import', 'jiti/register', '--test', 'test/strategy.test.ts'], bot, { JITI_DEBUG: '1' });
    expect(traced).toMatch(/\[jiti\].*strategy\.test\.ts/);
    expect(traced).toMatch(/pass 3/);
    expect(traced.split('\n').filter((l) => /node_modules[/\\]perpkit[/\\]dist/.test(l))).toEqual([]);
    const bt = ok(NPM, ['run', 'backtest'], bot);
    expect(bt).toMatch(/wrote \d+ events/); // the data script ran perpkit synth
    expect(bt).toMatch(/pnl -?\d/);
    expect(bt).toMatch(/fills [1-9]/);
    expect(bt).toMatch(/strategy errors: none/);
    expect(existsSync(path.join(bot, 'backtest-out', 'report.json'))).toBe(true);
    // perpkit run loads the same TypeScript strategy (config, module and parameters; nothing sent).
    expect(ok(NPM, ['run', 'check'], bot, { PERPKIT_PASSWORD: 'x' })).toMatch(/config[/\\]bot\.yaml: ok \(1 strategy created\)/);
  }, 600_000);

  it('runs the edited strategy at the next command, with no build', () => {
    const file = path.join(bot, 'src', 'strategy.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("name: 'dip-buyer'", "name: 'dip-buyer'\n  // edited\n").replace("return [\n        {\n          kind: 'bracket'", "throw new Error('edited strategy ran');\n      return [\n        {\n          kind: 'bracket'"));
    const r = sh(NPX, ['perpkit', 'backtest', 'config/backtest.yaml'], bot);
    expect(r.out).toMatch(/edited strategy ran/);
  }, 300_000);

  it('a checkout installs without dev dependencies (npm ci --omit=dev): no tsc, a plain message, and the CLI says it is not built', () => {
    const bare = path.join(tmp, 'omit-dev');
    copyCheckout(bare);
    const r = sh(NPM, ['ci', '--omit=dev'], bare);
    expect(r.out).not.toMatch(/tsc: not found/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/TypeScript is not installed \(dev dependencies omitted\) and dist\/ has no build/);
    expect(existsSync(path.join(bare, 'node_modules', 'typescript'))).toBe(false);
    const cli = sh(process.execPath, ['bin/perpkit.js', '--version'], bare);
    expect(cli.code).toBe(1);
    expect(cli.out.trim().split('\n')).toHaveLength(1);
    expect(cli.out).toMatch(/is missing: this checkout is not built \(run npm run build/);
  }, 300_000);
});
