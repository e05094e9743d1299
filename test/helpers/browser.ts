/**
 * Headless Chromium for tests: Debian's /usr/bin/chromium driven by playwright-core (which
 * downloads no browser), and the browser pages built once per test file into a temp dir by the
 * same build the package uses (tools/build-web.cjs), so a test never depends on a stale dist/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** `extraArgs`: more Chromium switches, e.g. `--host-resolver-rules=MAP name 127.0.0.1` for a page under another host name. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!CHROMIUM) throw new Error('this test needs Chromium at /usr/bin/chromium: apt-get install -y chromium (.ci/run installs it)');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', ...extraArgs],
  });
}

/** Builds the web pages into a fresh temp dir; returns the dir holding `<page>/index.html`. */
export function buildWebPages(): string {
  const out = mkdtempSync(path.join(tmpdir(), 'perpkit-web-'));
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'tools', 'build-web.cjs'), '--out', out], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`web build failed (${r.status}): ${r.stderr}`);
  return out;
}

/** Console errors and uncaught page errors, collected for a "no console error" assertion. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return errors;
}
