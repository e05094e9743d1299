/**
 * Probe item 12: sweep.html's identity table had an empty header row (two empty <th>) above its
 * rows; it is rows of a name and its value, as report.html's.
 */
import { renderSweepHtml } from '../../src/backtest/report/sweep-html';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { recording, writeConfig } from './fixtures';

test("sweep.html's identity table has no empty header row: each row a name (th) and its value", async () => {
  const { dir } = await recording(1, 4);
  const cfg = loadBacktestConfig(writeConfig(dir, 'id.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2'] } } }));
  const html = renderSweepHtml({ method: 'grid', metric: 'totalPnl', order: 'desc', params: [{ key: 'mm.minSpreadBps' }], rows: [{ rank: 1, index: 0, point: { 'mm.minSpreadBps': '2' }, metric: 1, summary: null, error: null }] }, cfg);
  const ident = /<table id="identity" class="identity">(.*?)<\/table>/.exec(html)?.[1] ?? '';
  expect(ident).not.toContain('<thead>');
  expect(ident).not.toContain('<th></th>');
  expect(ident).toContain('<tr><th>Config</th><td>id.yaml</td></tr>');
});
