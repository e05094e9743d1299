import { Fifo } from '../../src/core/fifo';
import { mulberry32 } from '../../src/core/random';

describe('Fifo', () => {
  it('gives items back in the order they were pushed, across compactions', () => {
    const q = new Fifo<number>();
    const model: number[] = [];
    const rnd = mulberry32(3);
    let next = 0;
    for (let step = 0; step < 50_000; step++) {
      if (rnd() < 0.55) {
        q.push(next);
        model.push(next++);
      } else {
        expect(q.shift()).toBe(model.shift());
      }
      expect(q.length).toBe(model.length);
      expect(q.peek()).toBe(model[0]);
    }
    while (model.length > 0) expect(q.shift()).toBe(model.shift());
    expect(q.shift()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
    expect(q.length).toBe(0);
  });

  it('clear empties it', () => {
    const q = new Fifo<string>();
    q.push('a');
    q.push('b');
    q.clear();
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
    q.push('c');
    expect(q.shift()).toBe('c');
  });
});
