import fc from 'fast-check';
import { ChurnMap } from '../../src/core/churn-map';

describe('ChurnMap against Map', () => {
  test('random sets and deletes, many renewals of the table: the same entries, sizes and iteration order as a Map', () => {
    const keyArb = fc.integer({ min: 0, max: 40 }).map((k) => `k${k}`);
    const opArb = fc.tuple(fc.boolean(), keyArb, fc.nat());
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 1500 }), (ops) => {
        const m = new ChurnMap<string, number>();
        const ref = new Map<string, number>();
        for (const [isSet, k, v] of ops) {
          if (isSet) {
            m.set(k, v);
            ref.set(k, v);
          } else {
            expect(m.delete(k)).toBe(ref.delete(k));
          }
          expect(m.size).toBe(ref.size);
          expect(m.get(k)).toBe(ref.get(k));
          expect(m.has(k)).toBe(ref.has(k));
        }
        expect([...m]).toEqual([...ref]);
        expect([...m.keys()]).toEqual([...ref.keys()]);
        expect([...m.values()]).toEqual([...ref.values()]);
      }),
      { numRuns: 100 },
    );
  });

  test('through thousands of deletes (the table made afresh many times), the entries kept in placement order, with those given at construction', () => {
    const m = new ChurnMap<string, number>([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const ref = new Map<string, number>([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    for (let i = 0; i < 5000; i++) {
      m.set(`x${i}`, i);
      ref.set(`x${i}`, i);
      if (i >= 3) expect(m.delete(`x${i - 3}`)).toBe(ref.delete(`x${i - 3}`));
      if (i % 7 === 0) expect([...m]).toEqual([...ref]);
    }
    expect([...m.keys()]).toEqual(['a', 'b', 'c', 'x4997', 'x4998', 'x4999']);
  });
});
