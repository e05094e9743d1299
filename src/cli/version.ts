/** perpkit's version, from the package.json of this copy (checkout or installed package). */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export function perpkitVersion(): string {
  // src/cli (sources) or dist/src/cli (compiled): the package root is two or three folders up.
  for (const up of ['../..', '../../..']) {
    const file = path.resolve(__dirname, up, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    if (pkg.name === 'perpkit' && typeof pkg.version === 'string') return pkg.version;
  }
  throw new Error(`perpkit's package.json was not found above ${__dirname}`);
}
