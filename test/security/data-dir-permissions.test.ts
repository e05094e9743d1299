/**
 * The data directory holds API secrets in clear and password hashes (journal segments and
 * snapshots): it is created owner-only and those files are written owner-only, whatever the
 * umask (docs/reliability.md, "Threat model").
 */
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SystemClock } from '../../src/core/clock';
import { hashPassword } from '../../src/exchange/transport/auth/password';
import { openDurableCore } from '../../src/exchange/service/durable-core';
import { mergeConfig } from '../../src/exchange/transport/server';

const posix = process.platform !== 'win32';

(posix ? it : it.skip)('journal segments and snapshots are readable by their owner only', async () => {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'perpkit-perm-'));
  const dataDir = path.join(root, 'data');
  // A permissive umask, as on many desktops: the modes must not depend on it.
  const umask = process.umask(0o002);
  try {
    const d = await openDurableCore(mergeConfig({ dataDir }), new SystemClock());
    await d.core.execute({ k: 'createUser', userId: '10000001', username: 'perm', passwordHash: await hashPassword('pw'), balance: '10', positionMode: 'ONE_WAY' });
    await d.core.execute({ k: 'createApiKey', userId: '10000001', apiKey: 'k', secret: 'a-secret-on-disk', permissions: ['READ'] });
    await d.snapshot();
    await d.snapshotSettled();
    await d.core.close();
    expect((await fsp.stat(dataDir)).mode & 0o777).toBe(0o700);
    const files = await fsp.readdir(dataDir);
    const holding: string[] = [];
    for (const f of files) {
      const text = await fsp.readFile(path.join(dataDir, f), 'utf8').catch(() => '');
      if (!text.includes('a-secret-on-disk')) continue;
      holding.push(f);
      expect({ file: f, mode: ((await fsp.stat(path.join(dataDir, f))).mode & 0o777).toString(8) }).toEqual({ file: f, mode: '600' });
    }
    // Both the journal and the snapshot had the secret: the check above looked at something.
    expect(holding.length).toBeGreaterThanOrEqual(2);
  } finally {
    process.umask(umask);
    await fsp.rm(root, { recursive: true, force: true });
  }
});
