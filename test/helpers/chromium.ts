/**
 * Opens an HTML file in headless Chromium (Debian's /usr/bin/chromium) with every host name
 * resolving to nothing, and reports what the page did: console errors and uncaught exceptions,
 * resources it tried to load, and per canvas how many pixels differ from the canvas's first one
 * (a drawn chart has many). A probe script goes first in <head> (to catch errors from the start)
 * and runs `extra` (page JavaScript returning JSON-able data) once the charts had time to draw
 * (2.5 s after load, and while a chart's canvases are all blank, every 250 ms to 6 s).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export interface PageProbe {
  errors: string[];
  resources: string[];
  /** Per canvas: pixels unlike its first one, in all and in its right 40% (a chart drawn across its width). */
  canvases: Array<{ id: string; width: number; height: number; inked: number; inkedRight: number }>;
  extra: unknown;
  /** How many times the probe looked at the canvases before it reported (more than 1: a chart was blank at first). */
  looks: number;
}

const probe = (extra: string, act: string): string => `<script>
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push('error: ' + (e.message || String(e))); });
  window.addEventListener('unhandledrejection', function (e) { errors.push('rejection: ' + String(e.reason)); });
  var ce = console.error;
  console.error = function () { errors.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); };
  window.addEventListener('load', function () {
    setTimeout(function () { try { (function () { ${act} })(); } catch (e) { errors.push('probe act: ' + e); } }, 1000);
    var looks = 0;
    function report() {
      looks++;
      var out = { errors: errors, resources: performance.getEntriesByType('resource').map(function (r) { return r.name; }), canvases: [], extra: null, looks: 0 };
      document.querySelectorAll('canvas').forEach(function (c) {
        var inked = 0, right = 0;
        try {
          var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          for (var i = 4; i < d.length; i += 4 * 7) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2] || d[i + 3] !== d[3]) { inked++; if ((i / 4) % c.width > c.width * 0.6) right++; }
        } catch (e) { errors.push('probe: ' + e); }
        var host = c.closest('[id]');
        out.canvases.push({ id: host ? host.id : '', width: c.width, height: c.height, inked: inked, inkedRight: right });
      });
      // A chart not drawn yet (every canvas of its element blank): look again 250 ms later, up to
      // 6 s after load. Under load a chart once had nothing drawn at the first look.
      var drawn = {};
      out.canvases.forEach(function (c) { drawn[c.id] = drawn[c.id] || c.inked > 0; });
      if (Object.keys(drawn).some(function (id) { return !drawn[id]; }) && looks < 15) { setTimeout(report, 250); return; }
      out.looks = looks;
      try { out.extra = (function () { ${extra} })(); } catch (e) { errors.push('probe extra: ' + e); }
      var pre = document.createElement('pre');
      pre.id = 'probe';
      pre.textContent = JSON.stringify(out);
      document.body.appendChild(pre);
    }
    setTimeout(report, 2500);
  });
})();
</script>`;

/**
 * Loads `file` (a copy with the probe) and returns what the probe saw. `dir` holds the copy and
 * Chromium's profile. `act` runs 1 s after load, `extra` 1.5 s later (or up to 3.5 s later while a
 * chart is still blank); `hash` is appended to the URL.
 */
export function probePage(file: string, dir: string, extra = 'return null;', act = '', hash = '', size = '1200,900'): PageProbe {
  if (!CHROMIUM) throw new Error('this test needs Chromium at /usr/bin/chromium: apt-get install -y chromium (.ci/run installs it)');
  const html = readFileSync(file, 'utf8');
  const at = html.indexOf('<head>');
  if (at < 0) throw new Error(`${file}: no <head>`);
  const probed = path.join(dir, `probe-${path.basename(file)}`);
  writeFileSync(probed, html.slice(0, at + 6) + probe(extra, act) + html.slice(at + 6));
  const r = spawnSync(
    CHROMIUM,
    [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND', `--window-size=${size}`, `--user-data-dir=${path.join(dir, 'chrome')}`, '--virtual-time-budget=8000', '--dump-dom', pathToFileURL(probed).href + hash,
    ],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
  );
  const m = /<pre id="probe">([^<]*)<\/pre>/.exec(r.stdout);
  if (!m) throw new Error(`chromium gave no probe output (status ${r.status}): ${r.stderr.slice(0, 500)}`);
  return JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>')) as PageProbe;
}

/** Writes a PNG screenshot of `file` (for docs/). */
export function screenshot(file: string, png: string, dir: string, size = '1200,1800'): void {
  if (!CHROMIUM) throw new Error('screenshots need Chromium at /usr/bin/chromium');
  spawnSync(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--host-resolver-rules=MAP * ~NOTFOUND', `--window-size=${size}`, `--user-data-dir=${path.join(dir, 'chrome-shot')}`, '--virtual-time-budget=5000', `--screenshot=${png}`, pathToFileURL(file).href], { encoding: 'utf8', timeout: 60_000 });
  if (!existsSync(png)) throw new Error(`chromium wrote no screenshot ${png}`);
}
