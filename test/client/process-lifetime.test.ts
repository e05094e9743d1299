/**
 * The SDK in a process of its own (the compiled package, as a user runs it): a script that only
 * listens on a stream must stay alive while the stream reconnects after the venue went away,
 * not end with exit 0 at the first drop because the reconnect timer was all that was left.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ROOT, ensureBuilt } from '../cli/exchange-proc';
import { startClientEnv, waitFor } from './support/env';

beforeAll(() => ensureBuilt(), 120_000);

test('a script listening on the public stream keeps running and reconnecting when the venue stops', async () => {
  const env = await startClientEnv();
  const script = `
    const { PerpClient } = require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'client'))});
    const pub = new PerpClient({ baseUrl: process.argv[1] }).publicStream({ reconnectBackoff: { baseMs: 200, maxMs: 200 } });
    pub.notices$.subscribe((n) => { if (n.type === 'reconnecting') console.log('reconnecting ' + n.attempt); });
    pub.start().then(() => pub.subscribe(['trade:BTCUSDT'])).then(() => console.log('subscribed'));
  `;
  const child = spawn(process.execPath, ['-e', script, env.ex.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let exitCode: number | null | undefined;
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.on('exit', (code) => (exitCode = code));
  try {
    await waitFor(() => out.includes('subscribed') || exitCode !== undefined, 10_000, 'the script to subscribe');
    expect(out).toContain('subscribed');
    await env.stop();
    await waitFor(() => out.includes('reconnecting 3') || exitCode !== undefined, 10_000, 'reconnect attempts or an exit');
    expect({ exitCode, out }).toEqual({ exitCode: undefined, out: expect.stringContaining('reconnecting 3') });
  } finally {
    child.kill('SIGKILL');
    await env.stop().catch(() => undefined);
  }
}, 60_000);
