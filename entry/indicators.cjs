'use strict';
// perpkit/indicators: the compiled src/indicators/index.ts (why a .cjs file in front of it: entry/index.cjs).
module.exports = require('../dist/src/indicators/index.js');
