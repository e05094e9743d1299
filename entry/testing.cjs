'use strict';
// perpkit/testing: the compiled src/testing/index.ts (why a .cjs file in front of it: entry/index.cjs).
module.exports = require('../dist/src/testing/index.js');
