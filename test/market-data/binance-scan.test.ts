import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { F_BOOL, F_INT, F_LEVELS, F_NONE, F_STR, scanMessage, scannedMessage, strOf } from '../../src/market-data/import/binance-scan';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';

const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-scan-'));
let n = 0;
const T = 1_723_161_255_000;

function file(lines: string[]): string {
  const f = path.join(dir, `in-${++n}.gz`);
  writeFileSync(f, gzipSync(`${lines.join('\n')}\n`));
  return f;
}

/** The output's lines after the header (the header names the input file and its sha256). */
function body(out: string): string[] {
  return gunzipSync(readFileSync(out)).toString('utf8').split('\n').slice(1);
}

/** The same lines in a form the scanner leaves to JSON.parse (a trailing space after the JSON). */
const general = (lines: string[]): string[] => lines.map((l) => `${l} `);

/** Imports the lines as they are and in the general form; both outputs (and summaries) must agree. */
async function sameBothWays(lines: string[], o: { from?: number; to?: number; symbol?: string } = {}): Promise<string[]> {
  const a = path.join(dir, `a-${++n}.jsonl.gz`);
  const b = path.join(dir, `b-${n}.jsonl.gz`);
  const sa = await importBinanceFutures({ files: [file(lines)], out: a, ...o });
  const sb = await importBinanceFutures({ files: [file(general(lines))], out: b, ...o });
  // The inputs' names differ: the line where --to stopped must not.
  const same = (x: typeof sa): object => ({ ...x, out: '', sources: [], stoppedAt: x.stoppedAt?.replace(/^.*:/, '') });
  expect(same(sa)).toEqual(same(sb));
  expect(body(a)).toEqual(body(b));
  return body(a);
}

const env = (stream: string, data: object): string => JSON.stringify({ stream, data });
const at = (t: number, json: string): string => `${t}000123 ${json}`;

describe('binance-scan: the text form it reads, and what it leaves to JSON.parse', () => {
  const m = scannedMessage();

  test('a combined-stream bookTicker: every field with its type and value', () => {
    const text = `1723161255088169167 {"stream":"btcusdt@bookTicker","data":{"e":"bookTicker","u":5123107839020,"s":"BTCUSDT","b":"61800.20","B":"2.507","a":"61800.30","A":"2.510","T":1723161256313,"E":1723161256313}}`;
    expect(scanMessage(text, 20, m)).toBe(true);
    expect(m.e.type).toBe(F_STR);
    expect(strOf(m, m.e)).toBe('bookTicker');
    expect([m.u.type, m.u.num]).toEqual([F_INT, 5123107839020]);
    expect([strOf(m, m.b), strOf(m, m.B), strOf(m, m.a), strOf(m, m.A)]).toEqual(['61800.20', '2.507', '61800.30', '2.510']);
    expect(m.m.type).toBe(F_NONE);
  });

  test('a bare trade, a depth diff with level lists (empty too), a repeated key (the last wins, as in JSON.parse)', () => {
    expect(scanMessage('{"e":"trade","E":1,"s":"X","t":7,"p":"1.5","q":"2","m":false,"X":"MARKET","m":true}', 0, m)).toBe(true);
    expect([m.m.type, m.m.bool, m.t.num]).toEqual([F_BOOL, true, 7]);
    expect(scanMessage('{"e":"depthUpdate","U":1,"u":2,"pu":0,"b":[["1.0","2"],["0.5","0.000"]],"a":[]}', 0, m)).toBe(true);
    expect([m.b.type, m.b.count, m.a.type, m.a.count]).toEqual([F_LEVELS, 2, F_LEVELS, 0]);
    expect(m.b.spans.slice(0, 8).map((x, i, s) => (i % 2 === 0 ? m.text.slice(x, s[i + 1]) : '')).filter((x) => x !== '')).toEqual(['1.0', '2', '0.5', '0.000']);
    expect(scanMessage('{}', 0, m)).toBe(true);
    expect(m.e.type).toBe(F_NONE);
  });

  test.each([
    ['an escape in a string', '{"e":"trade","s":"BT\\u0043"}'],
    ['a character outside ASCII', '{"e":"trade","s":"BTC€"}'],
    ['a fraction', '{"e":"trade","E":1.5}'],
    ['an exponent', '{"e":"trade","E":1e3}'],
    ['a negative number', '{"e":"trade","E":-1}'],
    ['a leading zero', '{"e":"trade","E":01}'],
    ['16 digits (not exact as a double in general)', '{"e":"trade","E":1234567890123456}'],
    ['null', '{"e":"trade","E":null}'],
    ['a nested object', '{"e":"trade","x":{"a":1}}'],
    ['a level of three strings', '{"e":"depthUpdate","b":[["1","2","3"]]}'],
    ['a level list of numbers', '{"e":"depthUpdate","b":[[1,2]]}'],
    ['whitespace', '{"e": "trade"}'],
    ['a trailing space', '{"e":"trade"} '],
    ['a depth snapshot', '{"lastUpdateId":1,"bids":[],"asks":[]}'],
    ['a data key in a bare event', '{"e":"trade","data":1}'],
    ['an envelope with more keys', '{"stream":"x","data":{"e":"trade"},"y":1}'],
    ['not an object', '[1,2]'],
    ['a torn line', '{"e":"trade","s":"BTC'],
  ])('%s: left to JSON.parse', (_what, text) => {
    expect(scanMessage(text, 0, m)).toBe(false);
  });
});

describe('import binance-futures: lines read by the scanner and by JSON.parse give the same bytes', () => {
  const ticker = (t: number, u: number | undefined, b: string, a: string): string =>
    at(t, env('btcusdt@bookTicker', { e: 'bookTicker', ...(u !== undefined ? { u } : {}), s: 'BTCUSDT', b, B: '1.000', a, A: '2.000', T: t + 1270, E: t + 1270 }));
  const trade = (t: number, id: number, p: string, m: boolean, e = 'trade'): string =>
    at(t, env(`btcusdt@${e}`, { e, E: t + 1270, T: t + 1269, s: 'BTCUSDT', ...(e === 'trade' ? { t: id } : { a: id }), p, q: '0.010', X: 'MARKET', m }));
  const depth = (t: number, U: number, u: number, pu: number, b: Array<[string, string]>, a: Array<[string, string]> = []): string =>
    at(t, env('btcusdt@depth@0ms', { e: 'depthUpdate', E: t + 1270, T: t + 1269, s: 'BTCUSDT', U, u, pu, b, a }));
  const snapshot = (t: number, L: number): string => at(t, JSON.stringify({ lastUpdateId: L, E: t + 1270, T: t + 1269, bids: [['100.00', '1.000'], ['99.90', '2.000']], asks: [['100.10', '1.500']] }));

  const lines = [
    depth(T, 90, 95, 89, [['100.00', '0.500']]), // before the snapshot: buffered, then too old
    snapshot(T + 5, 100),
    depth(T + 10, 95, 105, 94, [['100.00', '1.100']]),
    depth(T + 20, 106, 110, 105, [['99.90', '0']], []),
    trade(T + 25, 11, '100.10', true),
    ticker(T + 30, 110, '100.00', '100.10'),
    ticker(T + 1030, undefined, '100.00', '100.20'),
    depth(T + 1040, 111, 120, 110, [['100.00', '2.000']], [['100.20', '1.000'], ['100.10', '0.000']]),
    trade(T + 1050, 12, '100.20', false),
    trade(T + 1060, 13, '100.20', false, 'aggTrade'), // the trade stream is imported: skipped
    depth(T + 1070, 130, 135, 129, [['100.00', '3.000']]), // pu break: a gap
    at(T + 1080, env('btcusdt@markPrice', { e: 'markPriceUpdate', E: T + 2350, s: 'BTCUSDT', p: '100.05000000', i: '100.04000000', P: '100.1', r: '0.00010000', T: 1_723_190_400_000 })),
    `{"e":"trade","E":${T + 2000},"T":${T + 2000},"s":"BTCUSDT","t":14,"p":"100.30","q":"0.002","m":false}`, // a bare event: t from E
    at(T + 2100, env('ethusdt@trade', { e: 'trade', E: T + 3370, T: T + 3370, s: 'ETHUSDT', t: 1, p: '3000.01', q: '0.1', m: true })),
  ];

  test('every kind, with a gap, skips, a bare event and two symbols', async () => {
    const out = await sameBothWays(lines);
    expect(out.filter((l) => l.includes('"k":"book"'))).toHaveLength(3);
  });

  test('--symbol, --from (books rebuilt as snapshots) and --to', async () => {
    await sameBothWays(lines, { symbol: 'BTCUSDT' });
    await sameBothWays(lines, { from: T + 1035, to: T + 2050 });
  });

  test('the grid inferred as prices and quantities refine it, past and off powers of ten', async () => {
    const q = (t: number, b: string, bq: string): string => at(t, env('btcusdt@bookTicker', { e: 'bookTicker', s: 'BTCUSDT', b, B: bq, a: '200', A: '1', E: t }));
    const input = [q(T, '100.0', '1.000'), q(T + 1, '100.10', '0.500'), q(T + 2, '100.20', '0.010'), q(T + 3, '100.25', '0.0150'), q(T + 4, '100.30', '2')];
    const out = path.join(dir, `grid-${++n}.jsonl.gz`);
    const s = await importBinanceFutures({ files: [file(input)], out });
    expect(s.symbols[0]).toMatchObject({ tickSize: '0.05', stepSize: '0.005' });
    await sameBothWays(input);
  });

  test('without bookTicker the marks come from the rebuilt book in both ways', async () => {
    const out = await sameBothWays(lines.filter((l) => !l.includes('bookTicker')));
    expect(out.filter((l) => l.includes('"k":"mark"')).length).toBeGreaterThan(0);
  });
});

describeWithSharedData('import binance-futures: the scanner on the shared capture', BINANCE_BTCUSDT, (input) => {
  test('the first 20,000 lines give the same bytes read by the scanner and by JSON.parse', async () => {
    const lines = gunzipSync(readFileSync(input)).toString('utf8').split('\n').slice(0, 20_000);
    const out = await sameBothWays(lines.filter((l) => l.length > 0));
    expect(out.length).toBeGreaterThan(20_000);
  }, 60_000);
});
