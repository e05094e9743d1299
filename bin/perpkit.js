#!/usr/bin/env node
'use strict';
require('../dist/src/cli/main.js').main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`perpkit: ${err && err.stack ? err.stack : String(err)}\n`); process.exitCode = 1; },
);
