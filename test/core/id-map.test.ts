import fc from 'fast-check';
import { IdMap } from '../../src/core/id-map';

describe('IdMap against Map', () => {
  test('random sets, deletes and clears: the same entries, sizes and iteration order as a Map', () => {
    const idArb = fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 20 }).map((k) => Number.MAX_SAFE_INTEGER - k * 4294967296));
    const opArb = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constant('set' as const), idArb) },
      { weight: 2, arbitrary: fc.tuple(fc.constant('delete' as const), idArb) },
      // A live id, picked by position among those held: most deletes then take something out.
      { weight: 4, arbitrary: fc.tuple(fc.constant('deleteHeld' as const), fc.nat()) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('clear' as const), idArb) },
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 400 }), (ops) => {
        const m = new IdMap<string>();
        const ref = new Map<number, string>();
        ops.forEach(([op, arg], k) => {
          const held = [...ref.keys()];
          const id = op === 'deleteHeld' ? (held.length === 0 ? 1 : held[arg % held.length]) : arg;
          if (op === 'set') {
            m.set(id, `v${k}`);
            ref.set(id, `v${k}`);
          } else if (op === 'delete' || op === 'deleteHeld') {
            expect(m.delete(id)).toBe(ref.delete(id));
          } else {
            m.clear();
            ref.clear();
          }
          expect(m.size).toBe(ref.size);
          expect(m.get(id)).toBe(ref.get(id));
          expect(m.has(id)).toBe(ref.has(id));
          for (const [k, v] of ref) expect(m.get(k)).toBe(v);
        });
        expect([...m]).toEqual([...ref]);
        expect([...m.keys()]).toEqual([...ref.keys()]);
        expect([...m.values()]).toEqual([...ref.values()]);
      }),
      { numRuns: 120 },
    );
  });

  test('churn far beyond the entries held (holes squeezed out many times) keeps placement order', () => {
    const m = new IdMap<number>();
    const ref = new Map<number, number>();
    let next = 1;
    for (let i = 0; i < 100; i++) {
      m.set(next, next);
      ref.set(next, next);
      next++;
    }
    // Cancel a pseudo-random live order and place a new one, 20,000 times.
    let seed = 7;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const live = [...ref.keys()];
      const victim = live[seed % live.length];
      expect(m.delete(victim)).toBe(true);
      ref.delete(victim);
      m.set(next, next);
      ref.set(next, next);
      next++;
    }
    expect([...m.keys()]).toEqual([...ref.keys()]);
    expect(m.size).toBe(100);
  });

  test('deleting while iterating visits each remaining entry once, in order, as a Map does', () => {
    const m = IdMap.of<string>([1, 2, 3, 4, 5, 6].map((id) => [id, `o${id}`] as const));
    const ref = new Map<number, string>([1, 2, 3, 4, 5, 6].map((id) => [id, `o${id}`] as const));
    const seen: string[] = [];
    const seenRef: string[] = [];
    for (const v of m.values()) {
      seen.push(v);
      if (v === 'o2') m.delete(3);
      if (v === 'o4') m.delete(4);
      if (v === 'o5') m.delete(6);
    }
    for (const v of ref.values()) {
      seenRef.push(v);
      if (v === 'o2') ref.delete(3);
      if (v === 'o4') ref.delete(4);
      if (v === 'o5') ref.delete(6);
    }
    expect(seen).toEqual(seenRef);
    expect([...m]).toEqual([...ref]);
  });

  test('setting an id already present changes its value and keeps its place', () => {
    const m = IdMap.of<string>([
      [5, 'a'],
      [9, 'b'],
      [7, 'c'],
    ]);
    m.set(9, 'B');
    expect([...m]).toEqual([
      [5, 'a'],
      [9, 'B'],
      [7, 'c'],
    ]);
  });

  test('an id that is not a positive safe integer is refused, naming it', () => {
    const m = new IdMap<string>();
    expect(() => m.set(0, 'x')).toThrow('IdMap: an id must be a positive safe integer, got 0');
    expect(() => m.set(1.5, 'x')).toThrow('got 1.5');
    expect(() => m.set(2 ** 53, 'x')).toThrow('got 9007199254740992');
    expect(m.size).toBe(0);
  });
});
