import { Dec, formatDec } from '../../src/core/decimal';
import { mismatches } from '../helpers/mismatches';
import { compare, div, divInt, formatExact, formatQuotient, formatScaled, minus, parseExact, plus, quotientAt, roundToInteger, times, type Exact } from '../../src/core/exact';

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
    const m = mismatches();
    for (let i = 0; i < 4000; i++) {
      const maxDigits = i % 4 === 0 ? 70 : 25;
      const as = randomDecimal(rnd, maxDigits);
      const bs = randomDecimal(rnd, maxDigits);
      const a = parseExact(as);
      const b = parseExact(bs);
      const A = new Dec(as);
      const B = new Dec(bs);
      m.same(() => `${as} + ${bs}`, text(plus(a, b)), A.plus(B).toFixed());
      m.same(() => `${as} - ${bs}`, text(minus(a, b)), A.minus(B).toFixed());
      m.same(() => `${as} x ${bs}`, text(times(a, b)), A.times(B).toFixed());
      if (!B.isZero()) m.same(() => `${as} / ${bs}`, text(div(a, b)), A.div(B).toFixed());
      const k = 1 + Math.floor(rnd() * 125);
      m.same(() => `${as} / ${k} (divInt)`, text(divInt(a, k)), A.div(k).toFixed());
      m.same(() => `compare(${as}, ${bs})`, compare(a, b), A.comparedTo(B));
      const dp = Math.floor(rnd() * 10);
      m.same(() => `formatExact(${as}, ${dp})`, formatExact(a, dp), formatDec(A, dp));
      m.same(() => `roundToInteger(${as}, down)`, roundToInteger(a, 'down').toString(), A.toDecimalPlaces(0, Dec.ROUND_DOWN).toFixed());
      m.same(() => `roundToInteger(${as}, up)`, roundToInteger(a, 'up').toString(), A.toDecimalPlaces(0, Dec.ROUND_UP).toFixed());
      m.same(() => `roundToInteger(${as}, half-even)`, roundToInteger(a, 'half-even').toString(), A.toDecimalPlaces(0, Dec.ROUND_HALF_EVEN).toFixed());
    }
    m.expectNone();
  });

  it('prints scaled integers as Dec prints them: every count of trailing zeros, values below one, any sign and scale', () => {
    for (let i = 0; i < 3000; i++) {
      const digits = 1 + Math.floor(rnd() * 30);
      let s = String(1 + Math.floor(rnd() * 9));
      for (let k = 1; k < digits; k++) s += rnd() < 0.4 ? '0' : String(Math.floor(rnd() * 10));
      const u = rnd() < 0.5 ? -BigInt(s) : BigInt(s);
      const dp = Math.floor(rnd() * 24);
      expect(formatScaled(u, dp)).toBe(formatScaledText(u, dp));
    }
    expect(formatScaled(0n, 8)).toBe('0');
    expect(formatScaled(100n, 2)).toBe('1');
    expect(formatScaled(-100n, 3)).toBe('-0.1');
    expect(formatScaled(5n, 0)).toBe('5');
    expect(formatScaled(-1n, 8)).toBe('-0.00000001');
  });

  it('parses plain decimals as the definition reads them (sign, digits, point and digits), refuses the rest', () => {
    const byDefinition = (s: string): Exact | undefined => {
      const r = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
      if (!r) return undefined;
      const m = BigInt(r[2] + (r[3] ?? ''));
      return { m: r[1] === '-' ? -m : m, e: r[3] === undefined ? 0 : -r[3].length };
    };
    const alphabet = ['0', '1', '5', '9', '.', '-', 'e', '+', ' '];
    const cases = ['', '-', '.', '5.', '.5', '-.5', '1.2.3', '-0', '-0.0', '007', '0.00000001', '999999999999999', '1000000000000000', '1234567890123456.5', '1e5', ' 1', '+1', '12a', '--1', '1-'];
    for (let i = 0; i < 3000; i++) {
      const len = Math.floor(rnd() * 22);
      let t = '';
      for (let j = 0; j < len; j++) t += rnd() < 0.85 ? String(Math.floor(rnd() * 10)) : alphabet[Math.floor(rnd() * alphabet.length)];
      cases.push(t, randomDecimal(rnd, 25));
    }
    for (const s of cases) {
      const want = byDefinition(s);
      if (want === undefined) expect(() => parseExact(s)).toThrow(RangeError);
      else expect(parseExact(s)).toEqual(want);
    }
  });

  it('quotients by small integers (leverages) and ties in rounding', () => {
    for (const s of ['1', '-1', '2.5', '-2.5', '3.5', '0.000000015', '-0.000000025', '123456789.123456789', '1' + '0'.repeat(59), '9'.repeat(61)]) {
      const a = parseExact(s);
      for (const k of [1, 2, 3, 7, 20, 125]) expect(text(divInt(a, k))).toBe(new Dec(s).div(k).toFixed());
      for (const dp of [0, 1, 8]) expect(formatExact(a, dp)).toBe(formatDec(new Dec(s), dp));
    }
  });

  describe('a quotient rounded to dp places in one step (formatQuotient) prints what Dec prints for div then round', () => {
    const viaDec = (a: Exact, b: Exact, dp: number): string => formatDec(new Dec(text(a)).div(new Dec(text(b))), dp);

    it('on random operands, short ones (the one-step path) and past 60 digits (the two-step path)', () => {
      const m = mismatches();
      for (let i = 0; i < 4000; i++) {
        const a = parseExact(randomDecimal(rnd, i % 4 === 0 ? 70 : 25));
        const b = parseExact(randomDecimal(rnd, i % 4 === 1 ? 70 : 25));
        if (b.m === 0n) continue;
        const dp = Math.floor(rnd() * 12);
        m.same(() => `formatQuotient(${text(a)}, ${text(b)}, ${dp}) against Dec`, formatQuotient(a, b, dp), viaDec(a, b, dp));
        m.same(() => `formatQuotient(${text(a)}, ${text(b)}, ${dp}) against formatExact(div)`, formatQuotient(a, b, dp), formatExact(div(a, b), dp));
      }
      m.expectNone();
    });

    it('on quotients at and a hair beside a half-way point of the last place', () => {
      for (let i = 0; i < 2000; i++) {
        const dp = Math.floor(rnd() * 9);
        const den = BigInt(1 + Math.floor(rnd() * 1e9)) * 2n;
        const k = BigInt(Math.floor(rnd() * 1e6));
        // num / den = k + 1/2 + off / den, in units of 10^-dp.
        const off = BigInt(Math.floor(rnd() * 5) - 2);
        const num = k * den + den / 2n + off;
        const sign = rnd() < 0.5 ? -1n : 1n;
        const a: Exact = { m: sign * num, e: -dp };
        const b: Exact = { m: den, e: 0 };
        expect(formatQuotient(a, b, dp)).toBe(viaDec(a, b, dp));
      }
    });

    it('rounded down and up (toward and away from zero) as Dec rounds its quotient', () => {
      const modes = [
        ['down', Dec.ROUND_DOWN],
        ['up', Dec.ROUND_UP],
      ] as const;
      for (let i = 0; i < 3000; i++) {
        const a = parseExact(randomDecimal(rnd, i % 4 === 0 ? 70 : 25));
        const b = parseExact(randomDecimal(rnd, i % 4 === 1 ? 70 : 25));
        if (b.m === 0n) continue;
        const dp = Math.floor(rnd() * 10);
        for (const [mode, decMode] of modes) {
          const want = new Dec(text(a)).div(new Dec(text(b))).times(new Dec(10).pow(dp)).toDecimalPlaces(0, decMode).toFixed();
          expect(quotientAt(a, b, dp, mode).toString()).toBe(want);
        }
      }
      // k - 1/den with den ~ 10^65: Dec's quotient is k, so down gives k where the exact quotient gives k - 1.
      const den = 10n ** 65n + 7n;
      for (const k of [1n, 42n]) {
        const a: Exact = { m: k * den - 1n, e: -2 };
        const b: Exact = { m: den, e: 0 };
        expect(quotientAt(a, b, 2, 'down')).toBe(k);
        expect(quotientAt(a, b, 2, 'up')).toBe(k);
      }
    });

    it('where rounding to 60 digits first lands on a half-way point the exact quotient is not on', () => {
      // num / den = k + 1/2 - 1/den with den ~ 10^65: Dec's 60-digit quotient is k + 1/2, which
      // half-even rounds to the even neighbour (k + 1 for odd k), while the exact quotient rounds
      // down to k. The one-step division must not be taken here.
      for (const k of [1n, 3n, 12345n]) {
        const den = 2n * (10n ** 65n + 3n);
        const num = k * den + den / 2n - 1n;
        for (const dp of [0, 2, 8]) {
          const a: Exact = { m: num, e: -dp };
          const b: Exact = { m: den, e: 0 };
          expect(formatQuotient(a, b, dp)).toBe(viaDec(a, b, dp));
          expect(formatQuotient(a, b, dp)).toBe(formatScaledText(k + 1n, dp));
        }
      }
    });
  });
});

/** Text of u x 10^-dp with trailing zeros dropped. */
function formatScaledText(u: bigint, dp: number): string {
  return formatDec(new Dec(u.toString()).div(new Dec(10).pow(dp)), dp);
}
