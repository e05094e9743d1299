'use strict';
/**
 * `npm test`'s first step: `npm run lint` and `npm run typecheck` at the same time, each on its own
 * core (eslint and tsc are single-threaded: one after the other they took ~55 s of the run, side
 * by side the time of the longer, the type-check). Each one's output is printed whole when it
 * ends, under its name; the exit code is non-zero when either failed, and jest does not start.
 */
const { spawn } = require('node:child_process');

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(NPM, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (err) => (out += `${err.message}\n`));
    child.on('close', (code, signal) => {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'ok' : `FAILED (${signal ?? `exit ${code}`})`;
      process.stdout.write(`npm run ${script}: ${status} in ${secs} s\n${out}${out === '' || out.endsWith('\n') ? '' : '\n'}`);
      resolve(code === 0);
    });
  });
}

Promise.all([run('lint'), run('typecheck')]).then((ok) => {
  process.exitCode = ok.every(Boolean) ? 0 : 1;
});
