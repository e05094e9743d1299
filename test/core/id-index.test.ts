import fc from 'fast-check';
import { IdIndex } from '../../src/core/id-index';

describe('IdIndex against Map', () => {
  test('random inserts and deletes, small and near-2^53 ids, through several growths', () => {
    const idArb = fc.oneof(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 0, max: 40 }).map((k) => Number.MAX_SAFE_INTEGER - k * 4294967296),
      fc.integer({ min: 0, max: 40 }).map((k) => 2 ** 31 + k * 65536),
    );
    const opArb = fc.tuple(fc.boolean(), idArb);
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        const index = new IdIndex(2);
        const ref = new Map<number, number>();
        ops.forEach(([isInsert, id], slot) => {
          if (isInsert) {
            expect(index.insert(id, slot)).toBe(!ref.has(id));
            if (!ref.has(id)) ref.set(id, slot);
          } else {
            expect(index.delete(id)).toBe(ref.get(id) ?? -1);
            ref.delete(id);
          }
          expect(index.size).toBe(ref.size);
        });
        for (const [id, slot] of ref) expect(index.get(id)).toBe(slot);
        expect(index.get(123456789)).toBe(ref.get(123456789) ?? -1);
      }),
      { numRuns: 300 },
    );
  });

  test('update changes the slot of an id present and nothing for one absent', () => {
    const index = new IdIndex(2);
    for (let id = 1; id <= 40; id++) index.insert(id * 7919, id);
    for (let id = 1; id <= 40; id += 3) expect(index.update(id * 7919, -id)).toBe(true);
    expect(index.update(5, 1)).toBe(false);
    expect(index.get(5)).toBe(-1);
    expect(index.size).toBe(40);
    for (let id = 1; id <= 40; id++) expect(index.get(id * 7919)).toBe((id - 1) % 3 === 0 ? -id : id);
  });
});
