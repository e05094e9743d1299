'use strict';
// perpkit/backtest: the compiled src/backtest/index.ts (why a .cjs file in front of it: entry/index.cjs).
module.exports = require('../dist/src/backtest/index.js');
