'use strict';
/**
 * `perpkit`: the compiled src/index.ts. Each entry point of package.json's `exports` is a .cjs file
 * here that hands on the compiled module, rather than the module itself: `node --import
 * jiti/register` (how a `perpkit init` project runs its TypeScript tests) passes every .js file
 * Node loads through jiti's transform, and so all of perpkit's dist/ (~130 files, ~4 s of CPU on
 * the first run, before jiti's cache has them); jiti leaves a .cjs file, and what it requires, to
 * Node. `require` and `import` get the same module as before (the named exports of an ES module
 * import come from the compiled file's).
 */
module.exports = require('../dist/src/index.js');
