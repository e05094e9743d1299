import { numericId } from '../../src/core/ids';

describe('numericId', () => {
  it('reads the ids the engine makes: 1 to 16 digits, no leading zero', () => {
    expect(numericId('1')).toBe(1);
    expect(numericId('907')).toBe(907);
    expect(numericId('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('is NaN for any other text, as the regular expression it replaced refused it', () => {
    for (const t of ['', '0', '01', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '12a', 'auto-1', '12345678901234567', '１']) {
      expect(numericId(t)).toBeNaN();
      expect(/^[1-9]\d{0,15}$/.test(t)).toBe(false);
    }
  });

  it('agrees with the regular expression and Number() on random digit strings', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let k = 0; k < 5000; k++) {
      const len = Math.floor(rnd() * 18);
      let t = '';
      for (let i = 0; i < len; i++) t += rnd() < 0.05 ? 'x' : String(Math.floor(rnd() * 10));
      const expected = /^[1-9]\d{0,15}$/.test(t) && Number(t) <= Number.MAX_SAFE_INTEGER ? Number(t) : NaN;
      if (Number.isNaN(expected)) {
        if (!/^[1-9]\d{0,15}$/.test(t)) expect(numericId(t)).toBeNaN();
      } else {
        expect(numericId(t)).toBe(expected);
      }
    }
  });
});
