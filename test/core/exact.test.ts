import { Dec, formatDec } from '../../src/core/decimal';
import { compare, div, divInt, formatExact, minus, parseExact, plus, roundToInteger, times, type Exact } from '../../src/core/exact';

/** A random plain decimal of up to `digits` significant digits and `scale` fraction digits, signed. */
function randomDecimal(rnd: () => number, maxDigits: number): string {
  const digits = 1 + Math.floor(rnd() * maxDigits);
  let s = '';
  for (let i = 0; i < digits; i++) s += String(Math.floor(rnd() * 10));
  s = s.replace(/^0+(?=\d)/, '');
  const scale = Math.floor(rnd() * (digits + 4));
  const padded = s.padStart(scale + 1, '0');
  const text = scale === 0 ? padded : `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  const norm = new Dec(text).toFixed();
  return rnd() < 0.4 && norm !== '0' ? `-${norm}` : norm;
}

const text = (a: Exact): string => formatExact(a, Math.max(0, -a.e));

describe('exact decimals on bigint give the digits Dec (decimal.js, 60 significant digits, half-even) gives', () => {
  let seed = 987654321;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };

  it('sums, differences, products, quotients, comparisons and rounding on random values (incl. results past 60 digits)', () => {
    for (let i = 0; i < 4000; i++) {
      const maxDigits = i % 4 === 0 ? 70 : 25;
      const as = randomDecimal(rnd, maxDigits);
      const bs = randomDecimal(rnd, maxDigits);
      const a = parseExact(as);
      const b = parseExact(bs);
      const A = new Dec(as);
      const B = new Dec(bs);
      expect(text(plus(a, b))).toBe(A.plus(B).toFixed());
      expect(text(minus(a, b))).toBe(A.minus(B).toFixed());
      expect(text(times(a, b))).toBe(A.times(B).toFixed());
      if (!B.isZero()) expect(text(div(a, b))).toBe(A.div(B).toFixed());
      const k = 1 + Math.floor(rnd() * 125);
      expect(text(divInt(a, k))).toBe(A.div(k).toFixed());
      expect(compare(a, b)).toBe(A.comparedTo(B));
      const dp = Math.floor(rnd() * 10);
      expect(formatExact(a, dp)).toBe(formatDec(A, dp));
      expect(roundToInteger(a, 'down').toString()).toBe(A.toDecimalPlaces(0, Dec.ROUND_DOWN).toFixed());
      expect(roundToInteger(a, 'up').toString()).toBe(A.toDecimalPlaces(0, Dec.ROUND_UP).toFixed());
      expect(roundToInteger(a, 'half-even').toString()).toBe(A.toDecimalPlaces(0, Dec.ROUND_HALF_EVEN).toFixed());
    }
  });

  it('quotients by small integers (leverages) and ties in rounding', () => {
    for (const s of ['1', '-1', '2.5', '-2.5', '3.5', '0.000000015', '-0.000000025', '123456789.123456789', '1' + '0'.repeat(59), '9'.repeat(61)]) {
      const a = parseExact(s);
      for (const k of [1, 2, 3, 7, 20, 125]) expect(text(divInt(a, k))).toBe(new Dec(s).div(k).toFixed());
      for (const dp of [0, 1, 8]) expect(formatExact(a, dp)).toBe(formatDec(new Dec(s), dp));
    }
  });
});
