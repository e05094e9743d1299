#!/usr/bin/env node
'use strict';
// Node 22.1 and later: V8's compiled code of the modules a command loads is kept on disk (in
// node-compile-cache under the system's temporary folder) and read at the next start instead of
// compiling them again. NODE_DISABLE_COMPILE_CACHE=1 turns it off; Node 20 has no such cache.
require('node:module').enableCompileCache?.();
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
