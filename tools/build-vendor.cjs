'use strict';
/**
 * Bundles TypeBox (the config and strategy parameter schemas) into one file of the build,
 * dist/src/vendor/typebox.js, from the installed package: the package is ~200 modules, and
 * resolving and compiling them took ~120 ms of every process and worker thread that reads a
 * config or loads a strategy (`perpkit backtest`, `run`, `sweep` and each sweep thread); the one
 * file loads in ~40 ms. src/core/typebox.ts loads it, and the package itself where it is missing
 * (running from the sources: jest). `npm run build` runs this after tsc, as prepare does.
 *
 *   node tools/build-vendor.cjs [--out <file>]     (default dist/src/vendor/typebox.js)
 */
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');

function buildVendor(outfile = path.join(ROOT, 'dist', 'src', 'vendor', 'typebox.js')) {
  esbuild.buildSync({
    stdin: {
      // What src/core/typebox.ts takes: the builders and the value functions, one module graph.
      contents: "const t = require('@sinclair/typebox'); const v = require('@sinclair/typebox/value'); module.exports = { Type: t.Type, Value: v.Value, TransformDecodeError: v.TransformDecodeError };",
      resolveDir: ROOT,
      sourcefile: 'typebox-entry.cjs',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: ['node20'],
    outfile,
    logLevel: 'error',
    legalComments: 'inline',
  });
  return outfile;
}

module.exports = { buildVendor };

if (require.main === module) {
  const i = process.argv.indexOf('--out');
  const out = buildVendor(i > 0 ? path.resolve(process.argv[i + 1]) : undefined);
  process.stdout.write(`vendor: TypeBox bundled into ${path.relative(ROOT, out)}\n`);
}
