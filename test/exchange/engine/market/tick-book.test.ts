import fc from 'fast-check';
import { ASKS, BIDS, TickBook, type TickSide } from '../../../../src/exchange/engine/market/tick-book';

/** The book as a plain map per side: what TickBook must agree with. */
class ModelBook {
  readonly sides = [new Map<number, number>(), new Map<number, number>()];
  set(side: TickSide, ticks: number, steps: number): void {
    if (steps <= 0) this.sides[side].delete(ticks);
    else this.sides[side].set(ticks, steps);
  }
  best(side: TickSide): number | undefined {
    const ps = [...this.sides[side].keys()];
    if (ps.length === 0) return undefined;
    return side === BIDS ? Math.max(...ps) : Math.min(...ps);
  }
}

describe('TickBook (the L2 tape\'s recorded book in ticks and steps)', () => {
  test('agrees with a map of levels: quantities, best prices and the prices of each side, through sets and removals', () => {
    // Prices around a mid, across page boundaries, with far-away levels (a venue's 1,000-level snapshot holds some).
    const ticks = fc.oneof(fc.integer({ min: 599_000, max: 601_000 }), fc.constantFrom(0, 1, 255, 256, 10_000, 50_000, 2 ** 40));
    const op = fc.record({ side: fc.constantFrom<TickSide>(BIDS, ASKS), ticks, steps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 })), read: fc.boolean() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const book = new TickBook();
        const model = new ModelBook();
        for (const o of ops) {
          book.set(o.side, o.ticks, o.steps);
          model.set(o.side, o.ticks, o.steps);
          expect(book.get(o.side, o.ticks)).toBe(model.sides[o.side].get(o.ticks) ?? 0);
          if (o.read) expect(book.bestOf(o.side)).toBe(model.best(o.side));
        }
        for (const side of [BIDS, ASKS] as const) {
          expect(book.bestOf(side)).toBe(model.best(side));
          expect([...book.prices(side)].sort((a, b) => a - b)).toEqual([...model.sides[side].keys()].sort((a, b) => a - b));
        }
        book.clear();
        expect(book.bestOf(BIDS)).toBeUndefined();
        expect([...book.prices(ASKS)]).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
