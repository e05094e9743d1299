'use strict';
// perpkit/exchange: the compiled src/exchange/index.ts (why a .cjs file in front of it: entry/index.cjs).
module.exports = require('../dist/src/exchange/index.js');
