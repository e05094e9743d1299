import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { JournalEntry } from '../../../src/exchange/service/commands';
import { FileJournal, JournalCorruptError, segmentName } from '../../../src/exchange/service/file-journal';

const entry = (seq: number): JournalEntry => ({ seq, at: 1000 + seq, cmd: { k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: String(50000 + seq) } });

async function readAll(j: FileJournal): Promise<number[]> {
  const seqs: number[] = [];
  for await (const e of j.replay()) seqs.push(e.seq);
  return seqs;
}

describe('FileJournal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('group commit: appends of one tick share a write, resolve in order, and read back in order', async () => {
    const j = new FileJournal({ dir, fsync: true });
    await readAll(j);
    const order: number[] = [];
    const ps = Array.from({ length: 500 }, (_, i) => j.append(entry(i + 1)).then(() => order.push(i + 1)));
    await Promise.all(ps);
    expect(order).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    // The bytes are on disk when append resolves: read them back without closing.
    const lines = readFileSync(path.join(dir, segmentName(1)), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(500);
    await j.close();
    expect(await readAll(new FileJournal({ dir, fsync: false }))).toEqual(order);
  });

  it('batches while a write is in flight (far fewer writes than entries)', async () => {
    const j = new FileJournal({ dir, fsync: true });
    await readAll(j);
    const proto = Object.getPrototypeOf(j) as { writeBatch: (b: unknown[]) => Promise<void> };
    const orig = proto.writeBatch;
    let writes = 0;
    const spy = jest.spyOn(proto, 'writeBatch').mockImplementation(function (this: FileJournal, b: unknown[]) {
      writes++;
      return orig.call(this, b);
    });
    const ps: Array<Promise<void>> = [];
    for (let i = 1; i <= 200; i++) {
      ps.push(j.append(entry(i)));
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(ps);
    spy.mockRestore();
    expect(writes).toBeLessThan(200);
    await j.close();
  });

  it('cuts off a torn last line and carries on appending after it', async () => {
    const j = new FileJournal({ dir, fsync: false });
    await readAll(j);
    for (let i = 1; i <= 5; i++) await j.append(entry(i));
    await j.close();
    const file = path.join(dir, segmentName(1));
    appendFileSync(file, '{"seq":6,"at":1006,"cmd":{"k":"setMa');
    const j2 = new FileJournal({ dir, fsync: false });
    expect(await readAll(j2)).toEqual([1, 2, 3, 4, 5]);
    await j2.append(entry(6));
    await j2.close();
    expect(await readAll(new FileJournal({ dir, fsync: false }))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps a whole last entry whose newline was lost', async () => {
    const file = path.join(dir, segmentName(1));
    writeFileSync(file, JSON.stringify(entry(1)) + '\n' + JSON.stringify(entry(2)));
    const j = new FileJournal({ dir, fsync: false });
    expect(await readAll(j)).toEqual([1, 2]);
    await j.append(entry(3));
    await j.close();
    expect(await readAll(new FileJournal({ dir, fsync: false }))).toEqual([1, 2, 3]);
  });

  it('refuses corruption in the middle, naming file and line', async () => {
    const file = path.join(dir, segmentName(1));
    writeFileSync(file, [entry(1), entry(2)].map((e) => JSON.stringify(e)).join('\n') + '\nGARBAGE\n' + JSON.stringify(entry(3)) + '\n');
    await expect(readAll(new FileJournal({ dir, fsync: false }))).rejects.toThrow(JournalCorruptError);
    await expect(readAll(new FileJournal({ dir, fsync: false }))).rejects.toThrow(/journal-000000000001\.jsonl is corrupt at line 3/);
  });

  it('refuses a gap in seqs', async () => {
    writeFileSync(path.join(dir, segmentName(1)), [entry(1), entry(2), entry(4)].map((e) => JSON.stringify(e) + '\n').join(''));
    await expect(readAll(new FileJournal({ dir, fsync: false }))).rejects.toThrow(/expected seq 3, found seq 4/);
  });

  it('rotates after a snapshot point, skips covered segments and prunes them', async () => {
    const j = new FileJournal({ dir, fsync: false });
    await readAll(j);
    for (let i = 1; i <= 10; i++) {
      void j.append(entry(i));
      if (i === 6) j.rotateAfter(6);
    }
    await j.flush();
    expect(readdirSync(dir).sort()).toEqual([segmentName(1), segmentName(7)]);
    expect(await readAll(new FileJournal({ dir, fsync: false, afterSeq: 6 }))).toEqual([7, 8, 9, 10]);
    expect(await readAll(new FileJournal({ dir, fsync: false, afterSeq: 3 }))).toEqual([4, 5, 6, 7, 8, 9, 10]);
    await j.pruneThrough(6);
    await j.close();
    expect(readdirSync(dir)).toEqual([segmentName(7)]);
    expect(await readAll(new FileJournal({ dir, fsync: false, afterSeq: 6 }))).toEqual([7, 8, 9, 10]);
    await expect(readAll(new FileJournal({ dir, fsync: false, afterSeq: 2 }))).rejects.toThrow(/snapshot ends at seq 2/);
  });
});
