/**
 * A raw capture or an archive where a recording is expected (data.files, data inspect) was refused
 * with "expected a perpkit-recording header" and nothing about the way on: the refusal now says
 * what the file looks like and which import makes a recording of it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileHeader } from '../../src/backtest/backtest/jsonl-source';
import { readRecording } from '../../src/market-data/reader';

const dir = mkdtempSync(join(tmpdir(), 'perpkit-foreign-'));
const capture = [
  `1723161255030314667 ${JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E: 1723161256300, s: 'BTCUSDT', t: 1, p: '61800.1', q: '0.010', T: 1723161256299, m: false } })}`,
  `1723161255030400000 ${JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E: 1723161256301, s: 'BTCUSDT', t: 2, p: '61800.2', q: '0.020', T: 1723161256300, m: true } })}`,
].join('\n');

async function refusal(file: string): Promise<string> {
  try {
    for await (const x of readRecording([file])) void x;
  } catch (e) {
    return (e as Error).message;
  }
  return 'read without a refusal';
}

test.each([
  ['a raw Binance capture, gzip', 'cap.gz', gzipSync(`${capture}\n`), 'it looks like a raw Binance capture (a receive time, then a stream message): `perpkit import binance-futures <files> --out <rec.jsonl.gz>` makes a recording of it'],
  ['a raw Binance capture, plain', 'cap.jsonl', Buffer.from(`${capture}\n`), 'it looks like a raw Binance capture'],
  ['stream messages without receive times', 'msgs.jsonl', Buffer.from(`${capture.split('\n').map((l) => l.slice(l.indexOf(' ') + 1)).join('\n')}\n`), 'it looks like a Binance stream message'],
  ['a Binance CSV archive', 'trades.csv', Buffer.from('agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n1,100,1,1,1,1,true\n'), 'it looks like a CSV file (a Binance archive or a Tardis.dev export): `perpkit import binance-futures <files> --out <rec.jsonl.gz>` makes a recording of it (a Tardis.dev export: perpkit import tardis)'],
])('%s: the reader and the backtest name the import that makes a recording of it', async (_what, name, bytes, hint) => {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  expect(await refusal(file)).toContain(hint);
  await expect(readFileHeader(file)).rejects.toThrow(hint);
});
