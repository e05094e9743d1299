/** Jest's globalTeardown: removes the run's temporary folder (temp-root-setup.ts). */
import { rmSync } from 'node:fs';
import { TEMP_ROOT_ENV } from './temp-root-setup';

export default function teardown(): void {
  const root = process.env[TEMP_ROOT_ENV];
  if (root !== undefined && root !== '') rmSync(root, { recursive: true, force: true });
}
