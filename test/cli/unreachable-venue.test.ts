/**
 * `perpkit run` and `perpkit record` as processes, started against a venue that does not answer
 * (a loopback port nothing listens on): the start fails with exit 1 and a line saying why, never
 * exit 0 in the middle of the SDK's retries (systemd's Restart=on-failure restarts only a failure).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from '../helpers/ports';
import { ROOT, ensureBuilt } from './exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => ensureBuilt(), 120_000);

describe('a venue that does not answer at start', () => {
  it('perpkit run with API-key auth (whose first calls are retried reads) exits 1, not 0', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-unreachable-'));
    const file = path.join(dir, 'bot.yaml');
    writeFileSync(file, JSON.stringify({ venue: { baseUrl: `http://127.0.0.1:${port}`, auth: { apiKeyEnv: 'PK_KEY', secretEnv: 'PK_SECRET' } }, strategies: [{ id: 'mm', module: 'market-maker' }] }));
    const r = await run(['run', file, '--log-level', 'silent'], { PK_KEY: 'k', PK_SECRET: 's' });
    expect(r.code).toBe(1);
  }, 40_000);

  it('perpkit record exits 1 saying it cannot start, and names the venue', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-unreachable-'));
    const file = path.join(dir, 'record.yaml');
    writeFileSync(file, `venue:\n  baseUrl: http://127.0.0.1:${port}\nsymbols: [BTCUSDT]\n`);
    const r = await run(['record', '--config', file, '--out', path.join(dir, 'rec.jsonl.gz')], { PERPKIT_LOG_LEVEL: 'silent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`perpkit record: cannot start recording from http://127.0.0.1:${port}:`);
    expect(r.stdout).toBe('');
  }, 40_000);
});
