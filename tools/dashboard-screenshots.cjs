'use strict';
/**
 * Takes the dashboard screenshots of docs/running.md: runs `perpkit demo` (built: npm run build),
 * lets the market maker trade for a while, and photographs the page in Debian's headless Chromium
 * (playwright-core), then the kill switch's confirmation, then the exchange's read-only page.
 *
 *   node tools/dashboard-screenshots.cjs [--seconds 25]
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { setInterval, clearInterval, setTimeout } = require('node:timers');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '..');
const i = process.argv.indexOf('--seconds');
const seconds = i > 0 ? Number(process.argv[i + 1]) : 25;

async function main() {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'demo', '--duration', String(seconds + 30)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  const url = await new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = /^dashboard at (\S+)$/m.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]);
      }
    }, 100);
    child.on('exit', (code) => reject(new Error(`the demo exited (${code}) before printing its dashboard URL:\n${out}`)));
  });
  process.stdout.write(`demo dashboard at ${url}; trading for ${seconds} s\n`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.addInitScript({ content: "localStorage.setItem('perpkit.dashboard.operator', 'alice')" });
    await page.goto(url);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const main = path.join(ROOT, 'docs', 'dashboard.png');
    await page.screenshot({ path: main });
    await page.getByTestId('kill-button').click();
    await page.getByTestId('kill-dialog').waitFor();
    const kill = path.join(ROOT, 'docs', 'dashboard-kill.png');
    await page.screenshot({ path: kill, clip: { x: 0, y: 0, width: 1400, height: 700 } });
    const exUrl = /^exchange page at (\S+)$/m.exec(out);
    if (!exUrl) throw new Error(`the demo printed no exchange page URL:\n${out}`);
    await page.goto(exUrl[1]);
    await page.getByTestId('trade').first().waitFor();
    const ex = path.join(ROOT, 'docs', 'exchange-page.png');
    await page.screenshot({ path: ex, clip: { x: 0, y: 0, width: 1400, height: 760 } });
    process.stdout.write(`wrote ${path.relative(ROOT, main)}, ${path.relative(ROOT, kill)} and ${path.relative(ROOT, ex)}\n`);
  } finally {
    await browser.close();
    child.kill('SIGINT');
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
