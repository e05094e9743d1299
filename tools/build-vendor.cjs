'use strict';
/**
 * Bundles libraries that every backtest, run and sweep process and thread loads into one file each
 * of the build, dist/src/vendor/<name>.js, from the installed packages: TypeBox (the config and
 * parameter schemas, ~200 modules: ~140 ms of resolving and compiling, one file ~30 ms) and yaml
 * (the config files, ~75 modules: ~40 ms, one file ~12 ms). src/core/vendor.ts loads them, and the
 * packages themselves where they are missing (running from the sources: jest). `npm run build`
 * runs this after tsc, as prepare does.
 *
 *   node tools/build-vendor.cjs [--out <dir>]     (default dist/src/vendor)
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** Each bundle: what src/core/vendor.ts takes of the package, one module graph. */
const BUNDLES = {
  typebox: "const t = require('@sinclair/typebox'); const v = require('@sinclair/typebox/value'); module.exports = { Type: t.Type, Value: v.Value, TransformDecodeError: v.TransformDecodeError };",
  yaml: "const y = require('yaml'); module.exports = { LineCounter: y.LineCounter, parseDocument: y.parseDocument, isMap: y.isMap, isScalar: y.isScalar, isSeq: y.isSeq };",
};

function buildVendor(outDir = path.join(ROOT, 'dist', 'src', 'vendor')) {
  // Here, not at the top: the test helpers read VENDOR_BUNDLES without loading esbuild.
  const esbuild = require('esbuild');
  const out = [];
  for (const [name, contents] of Object.entries(BUNDLES)) {
    const outfile = path.join(outDir, `${name}.js`);
    esbuild.buildSync({
      stdin: { contents, resolveDir: ROOT, sourcefile: `${name}-entry.cjs`, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: ['node20'],
      outfile,
      logLevel: 'error',
      legalComments: 'inline',
    });
    out.push(outfile);
  }
  return out;
}

module.exports = { buildVendor, VENDOR_BUNDLES: Object.keys(BUNDLES) };

if (require.main === module) {
  const i = process.argv.indexOf('--out');
  const out = buildVendor(i > 0 ? path.resolve(process.argv[i + 1]) : undefined);
  process.stdout.write(`vendor: ${out.map((f) => path.relative(ROOT, f)).join(', ')} bundled\n`);
}
