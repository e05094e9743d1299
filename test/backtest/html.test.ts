/**
 * report.html in a real browser: headless Chromium loads it from a file URL (offline: no network
 * flags), and a probe script appended to a copy measures what the browser laid out: each chart's
 * SVG paths must have a length and a box, and the price chart must hold fill markers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { renderHtml } from '../../src/backtest/report/html';
import { recording, writeConfig } from './fixtures';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

const PROBE = `<script>
window.addEventListener('load', () => {
  const out = {};
  for (const svg of document.querySelectorAll('svg')) {
    let length = 0, paths = 0, width = 0, height = 0;
    for (const p of svg.querySelectorAll('path')) {
      paths++;
      length += p.getTotalLength();
      const b = p.getBBox();
      width = Math.max(width, b.width);
      height = Math.max(height, b.height);
    }
    out[svg.id] = { paths, length: Math.round(length), width: Math.round(width), height: Math.round(height), fills: svg.querySelectorAll('path.fill').length };
  }
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script></body>`;

test('report.html draws equity, drawdown and price with fills in headless Chromium', async () => {
  if (!CHROMIUM) throw new Error('this test needs Chromium at /usr/bin/chromium: apt-get install -y chromium (.ci/run installs it)');
  const { dir } = await recording(6, 5);
  const cfg = loadBacktestConfig(writeConfig(dir, 'h.yaml', {}));
  const { report } = await backtest(cfg, { cache: false });
  const html = renderHtml(report);
  expect(html).not.toMatch(/<script|https?:\/\//); // self-contained: no script, nothing fetched
  const file = path.join(dir, 'report.html');
  writeFileSync(file, html);
  const probed = path.join(dir, 'probe.html');
  writeFileSync(probed, readFileSync(file, 'utf8').replace('</body>', PROBE));
  const r = spawnSync(
    CHROMIUM as string,
    ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--user-data-dir=${path.join(dir, 'chrome')}`, '--virtual-time-budget=5000', '--dump-dom', pathToFileURL(probed).href],
    { encoding: 'utf8', timeout: 45_000 },
  );
  const m = /<pre id="probe">([^<]*)<\/pre>/.exec(r.stdout);
  if (!m) throw new Error(`chromium gave no probe output (status ${r.status}): ${r.stderr.slice(0, 500)}`);
  const charts = JSON.parse(m[1].replace(/&quot;/g, '"')) as Record<string, { paths: number; length: number; width: number; height: number; fills: number }>;
  for (const id of ['equity', 'drawdown', 'price-0']) {
    expect(charts[id]).toBeDefined();
    expect(charts[id].length).toBeGreaterThan(100);
    expect(charts[id].width).toBeGreaterThan(500);
  }
  expect(charts['price-0'].fills).toBe(report.fills.length);
}, 60_000);
