'use strict';
// perpkit/sdk: the compiled src/client/index.ts (why a .cjs file in front of it: entry/index.cjs).
module.exports = require('../dist/src/client/index.js');
