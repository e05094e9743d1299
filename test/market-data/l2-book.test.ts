import { L2Book } from '../../src/market-data/l2-book';
import type { Level } from '../../src/market-data/format';
import { mulberry32 } from '../../src/core/random';

/** The best levels by brute force, to check the book's incremental tracking against. */
function bruteTop(book: L2Book): [string | undefined, string | undefined] {
  const bids = [...book.bids.keys()].map(Number);
  const asks = [...book.asks.keys()].map(Number);
  return [bids.length ? Math.max(...bids).toFixed(1) : undefined, asks.length ? Math.min(...asks).toFixed(1) : undefined];
}

describe('L2Book', () => {
  test('keeps the best levels right through sets, removals of the best and resets', () => {
    const rnd = mulberry32(11);
    const book = new L2Book();
    const level = (): Level => [(90 + Math.floor(rnd() * 200) / 10).toFixed(1), rnd() < 0.4 ? '0.000' : (1 + Math.floor(rnd() * 5)).toFixed(3)];
    book.reset([['99.0', '1.000']], [['101.0', '1.000']], 1);
    for (let i = 0; i < 3000; i++) {
      if (i % 1000 === 999) book.reset([level(), level()], [level()], i);
      else book.apply([level(), level()], [level()], i);
      const t = book.top();
      expect([t.bid?.[0], t.ask?.[0]]).toEqual(bruteTop(book));
      if (t.bid) expect(book.bids.get(t.bid[0])).toBe(t.bid[1]);
    }
  });

  test('levels() lists both sides best first; zero quantities remove', () => {
    const book = new L2Book();
    book.reset([['99.0', '1'], ['100.0', '2']], [['101.0', '3'], ['100.5', '0']], 7);
    book.apply([['98.5', '4'], ['100.0', '0.000']], [['102.0', '1']], 8);
    expect(book.levels()).toEqual({ bids: [['99.0', '1'], ['98.5', '4']], asks: [['101.0', '3'], ['102.0', '1']] });
    expect(book.lastUpdateId).toBe(8);
  });
});
