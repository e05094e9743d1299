/**
 * The Chromium probe the report and dashboard tests use (test/helpers/chromium.ts) waits for a
 * chart that draws late instead of reporting it blank: under load a chart once had nothing drawn
 * at the probe's first look (2.5 s after load) and sweep-compare's test failed for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { probePage } from '../helpers/chromium';

const page = (drawAfterMs: number): string => `<!doctype html><html><head><title>late</title></head><body>
<div id="late-chart"><canvas width="200" height="100"></canvas></div>
<script>
window.addEventListener('load', function () {
  setTimeout(function () { var g = document.querySelector('canvas').getContext('2d'); g.fillStyle = '#f00'; g.fillRect(20, 20, 160, 60); }, ${drawAfterMs});
});
</script></body></html>`;

test('a chart drawn 4 s after load is seen drawn; one never drawn is reported blank after the last look', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-probe-'));
  try {
    writeFileSync(path.join(dir, 'late.html'), page(4000));
    const late = probePage(path.join(dir, 'late.html'), dir);
    expect(late.errors).toEqual([]);
    expect(late.canvases.map((c) => [c.id, c.inked > 100])).toEqual([['late-chart', true]]);
    expect(late.looks).toBeGreaterThan(1);
    writeFileSync(path.join(dir, 'never.html'), page(60_000));
    const never = probePage(path.join(dir, 'never.html'), dir);
    expect(never.canvases).toEqual([{ id: 'late-chart', width: 200, height: 100, inked: 0, inkedRight: 0 }]);
    expect(never.looks).toBe(15);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
