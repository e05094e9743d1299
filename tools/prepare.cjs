'use strict';
/**
 * `npm run prepare` (every `npm install`/`npm ci` in a checkout, git installs) and `prepack`
 * (`npm pack`, `npm publish`, with --clean): compiles TypeScript to dist/, bundles the web
 * pages (tools/build-web.cjs: the dashboard and the exchange page) into dist/web/, and TypeBox and
 * yaml into dist/src/vendor/ (tools/build-vendor.cjs: one file loads faster than their modules).
 *
 * TypeScript is a dev dependency. Without it (`npm ci --omit=dev`) nothing is compiled and the
 * install still succeeds: an existing dist/ is used as it is, and a missing one is said plainly.
 * Installs from the registry or a tarball never run this: the package ships dist/, and its
 * package.json has none of the scripts that run this file (prepack takes them out of the
 * package.json being packed; `--restore`, postpack, puts the checkout's back).
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
const PKG = path.join(ROOT, 'package.json');
/** package.json as the checkout has it, while `npm pack` packs the one without these scripts. */
const SAVED = path.join(ROOT, '.package.json.prepack');
/** Scripts that run this file, which the package does not ship: a user's npm would list them as install scripts. */
const CHECKOUT_SCRIPTS = ['prepare', 'prepack', 'postpack'];

// postpack (`npm pack`, `npm publish`): the checkout's package.json back.
if (process.argv.includes('--restore')) {
  if (existsSync(SAVED)) renameSync(SAVED, PKG);
  process.exit(0);
}

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
} catch {
  tsc = undefined;
}

/** prepack: the package.json packed has no script that runs this file (see the end). */
function stripCheckoutScripts() {
  // npm lists a dependency's `prepare` among the install scripts a user must approve ("perpkit@x
  // (prepare: node tools/prepare.cjs)" on every install of the tarball), and the file is not
  // shipped. postpack (--restore) puts the checkout's package.json back.
  const text = readFileSync(PKG, 'utf8');
  if (!existsSync(SAVED)) writeFileSync(SAVED, text);
  const pkg = JSON.parse(text);
  for (const k of CHECKOUT_SCRIPTS) delete pkg.scripts[k];
  writeFileSync(PKG, `${JSON.stringify(pkg, null, 2)}\n`);
}

if (tsc === undefined) {
  if (existsSync(MAIN)) {
    process.stderr.write('perpkit prepare: TypeScript is not installed (dev dependencies omitted): using the existing build in dist/\n');
  } else {
    process.stderr.write(
      'perpkit prepare: TypeScript is not installed (dev dependencies omitted) and dist/ has no build: the perpkit command will not run.\n' +
        '  Build first with dev dependencies (npm ci && npm run build), then npm prune --omit=dev; or install the published package, which ships dist/ (docs/running.md).\n',
    );
  }
  if (process.argv.includes('--clean')) stripCheckoutScripts();
  process.exit(0);
}

if (process.argv.includes('--clean')) rmSync(path.join(ROOT, 'dist'), { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status === null ? 1 : r.status);
const web = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build-web.cjs')], { cwd: ROOT, stdio: 'inherit' });
if (web.status !== 0) process.exit(web.status === null ? 1 : web.status);
const vendor = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build-vendor.cjs')], { cwd: ROOT, stdio: 'inherit' });
if (vendor.status !== 0) process.exit(vendor.status === null ? 1 : vendor.status);
if (process.argv.includes('--clean')) stripCheckoutScripts();
process.exit(0);
