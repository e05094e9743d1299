#!/usr/bin/env node
'use strict';
const path = require('node:path');
const main = path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
let cli;
try {
  cli = require(main);
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && err.message.includes(main)) {
    process.stderr.write(`perpkit: ${main} is missing: this checkout is not built (run npm run build; it needs the dev dependencies)\n`);
    process.exit(1);
  }
  throw err;
}
cli.runAsProcess(process.argv.slice(2));
