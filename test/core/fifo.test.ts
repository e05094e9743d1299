import { Fifo } from '../../src/core/fifo';
import { mulberry32 } from '../../src/core/random';

describe('Fifo', () => {
  it('gives items back in the order they were pushed, across compactions', () => {
    const q = new Fifo<number>();
    const model: number[] = [];
    const rnd = mulberry32(3);
    let next = 0;
    // Checked at every step without jest's expect (150,000 of them took 7 s); the first difference is shown.
    for (let step = 0; step < 50_000; step++) {
      let shifted: [number | undefined, number | undefined] = [undefined, undefined];
      if (rnd() < 0.55) {
        q.push(next);
        model.push(next++);
      } else {
        shifted = [q.shift(), model.shift()];
      }
      if (shifted[0] !== shifted[1] || q.length !== model.length || q.peek() !== model[0]) {
        expect({ step, shifted: shifted[0], length: q.length, peek: q.peek() }).toEqual({ step, shifted: shifted[1], length: model.length, peek: model[0] });
      }
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
