'use strict';
/**
 * Builds the browser pages shipped in the package (dist/web/<page>/): the TypeScript + Preact
 * sources of web/<page>/ bundled by esbuild with their libraries (Preact, lightweight-charts), so
 * nothing is fetched when the page runs. `npm run build` runs it after tsc.
 *
 *   node tools/build-web.cjs [--out <dir>]     (default dist/web)
 */
const path = require('node:path');
const fs = require('node:fs');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const PAGES = ['dashboard', 'exchange'];

async function buildWeb(outRoot = path.join(ROOT, 'dist', 'web')) {
  const sizes = {};
  for (const page of PAGES) {
    const src = path.join(ROOT, 'web', page);
    const out = path.join(outRoot, page);
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
    await esbuild.build({
      entryPoints: { main: path.join(src, 'main.tsx'), style: path.join(src, 'style.css') },
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['es2020'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: path.join(out, 'assets'),
      entryNames: '[name]',
      tsconfig: path.join(ROOT, 'web', 'tsconfig.json'),
      logLevel: 'warning',
      legalComments: 'linked',
    });
    fs.renameSync(path.join(out, 'assets', 'style.css'), path.join(out, 'assets', 'main.css'));
    fs.copyFileSync(path.join(src, 'index.html'), path.join(out, 'index.html'));
    sizes[page] = fs.statSync(path.join(out, 'assets', 'main.js')).size;
  }
  return sizes;
}

module.exports = { buildWeb };

if (require.main === module) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? path.resolve(process.argv[i + 1]) : undefined;
  buildWeb(out).then(
    (sizes) => {
      for (const [page, bytes] of Object.entries(sizes)) process.stdout.write(`web: ${page} built (${Math.round(bytes / 1024)} KiB of script)\n`);
    },
    (e) => {
      process.stderr.write(`web build failed: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
