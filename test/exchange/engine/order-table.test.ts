import fc from 'fast-check';
import { OrderTable } from '../../../src/exchange/engine/order-table';

describe('OrderTable (orders by id, in pages)', () => {
  test('agrees with a map through sets and deletes across pages, freed pages reused empty', () => {
    // Ids within a few pages of 1,024, so that pages empty out, are freed and are made again.
    const id = fc.integer({ min: 1, max: 5 * 1024 });
    const op = fc.oneof(fc.record({ kind: fc.constant<'set'>('set'), id, value: fc.integer() }), fc.record({ kind: fc.constant<'delete'>('delete'), id }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const table = new OrderTable<number>();
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            table.set(o.id, o.value);
            model.set(o.id, o.value);
          } else {
            expect(table.delete(o.id)).toBe(model.delete(o.id));
          }
          expect(table.get(o.id)).toBe(model.get(o.id));
          expect(table.size).toBe(model.size);
        }
        expect([...table.values()]).toEqual([...model.keys()].sort((a, b) => a - b).map((k) => model.get(k)));
      }),
      { numRuns: 300 },
    );
  });

  test('a page freed and made again for other ids holds none of the old orders', () => {
    const t = new OrderTable<string>();
    t.set(5, 'a');
    t.set(6, 'b');
    t.delete(5);
    t.delete(6);
    // The freed page comes back for ids of another page: every slot empty.
    t.set(3 * 1024 + 5, 'c');
    expect(t.get(3 * 1024 + 6)).toBeUndefined();
    expect(t.get(5)).toBeUndefined();
    expect([...t.values()]).toEqual(['c']);
    expect(t.size).toBe(1);
  });
});
