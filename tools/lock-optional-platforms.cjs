'use strict';
/**
 * The npm registry these machines reach serves only the linux builds of some native packages, so
 * `npm install` writes a lock without the other platforms' optional bindings, and `npm ci` then
 * refuses the lock as out of sync. This adds lock entries (version, os, cpu, libc; no tarball)
 * for every optional platform binding a locked package declares but the lock lacks. `npm ci`
 * skips them on this platform, as it would skip any foreign-platform binding.
 * Run after `npm install` changes the lock: node tools/lock-optional-platforms.cjs
 */
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const pkgs = lock.packages;

/** os / cpu / libc from a binding's name suffix, e.g. linux-arm-musleabihf. */
function platformOf(name) {
  const m = /-(android|darwin|freebsd|linux|openharmony|win32|wasm32)-([a-z0-9]+)(?:-([a-z0-9]+))?$/.exec(name);
  if (!m) return undefined;
  const [, os, cpu, abi] = m;
  const out = { os: [os], cpu: [cpu] };
  if (os === 'linux' && abi) out.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
  return out;
}

let added = 0;
for (const [key, entry] of Object.entries(pkgs)) {
  if (!entry.optionalDependencies) continue;
  const base = key.includes('node_modules/') ? key.slice(0, key.lastIndexOf('node_modules/')) : '';
  for (const [dep, version] of Object.entries(entry.optionalDependencies)) {
    const target = `${base}node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (pkgs[target] || pkgs[top]) continue;
    const plat = platformOf(dep);
    if (!plat) continue;
    pkgs[top] = { version: String(version).replace(/^[\^~]/, ''), ...plat, dev: entry.dev === true ? true : undefined, license: entry.license, optional: true };
    if (pkgs[top].dev === undefined) delete pkgs[top].dev;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`added ${added} optional platform entries to package-lock.json\n`);
