'use strict';
/**
 * `npm run prepare` (every `npm install`/`npm ci` in a checkout, git installs) and `prepack`
 * (`npm pack`, `npm publish`, with --clean): compiles TypeScript to dist/ and bundles the web
 * pages (tools/build-web.cjs: the dashboard and the exchange page) into dist/web/.
 *
 * TypeScript is a dev dependency. Without it (`npm ci --omit=dev`) nothing is compiled and the
 * install still succeeds: an existing dist/ is used as it is, and a missing one is said plainly.
 * Installs from the registry or a tarball never run this: the package ships dist/.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, rmSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
} catch {
  tsc = undefined;
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
  process.exit(0);
}

if (process.argv.includes('--clean')) rmSync(path.join(ROOT, 'dist'), { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status === null ? 1 : r.status);
const web = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build-web.cjs')], { cwd: ROOT, stdio: 'inherit' });
process.exit(web.status === null ? 1 : web.status);
