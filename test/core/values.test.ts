import { Dec, Grid, Money, Price, Quantity, compareDecimalStrings, decimalStringProblem, formatDec, fromScaledInt, isDecimalString, toScaledInt } from '../../src/core';
import fc from 'fast-check';
import { mismatches } from '../helpers/mismatches';

describe('decimal strings', () => {
  it.each([
    ['1', true],
    ['0', true],
    ['0.5', true],
    ['123.450', true],
    ['-2.5', true],
    ['1e5', false],
    ['1E-3', false],
    ['', false],
    ['01', false],
    ['.5', false],
    ['5.', false],
    ['+1', false],
    [' 1', false],
    ['NaN', false],
    ['Infinity', false],
    ['-0', false],
  ])('%j acceptable: %s', (s, ok) => {
    expect(decimalStringProblem(s) === undefined).toBe(ok);
  });

  it('isDecimalString (a character loop) accepts exactly what decimalStringProblem accepts', () => {
    for (const s of ['-0.0', '-0.000', '-0.001', '0.0', '-', '-.5', '1.2.3', '0.', '00', '-01', '9'.repeat(64), '9'.repeat(65), '1.5 ']) {
      expect([s, isDecimalString(s)]).toEqual([s, decimalStringProblem(s) === undefined]);
    }
    expect(isDecimalString(1.5)).toBe(false);
    expect(isDecimalString(undefined)).toBe(false);
    fc.assert(
      fc.property(fc.stringMatching(/^[-0-9.eE+ ]{0,9}$/), (s) => isDecimalString(s) === (decimalStringProblem(s) === undefined)),
      { numRuns: 20_000 },
    );
  });

  it('refuses a JSON number with a message saying why', () => {
    expect(decimalStringProblem(1.5)).toMatch(/not a JSON number/);
  });

  it('scales exactly, without floating point', () => {
    expect(toScaledInt('50000.1', 1)).toBe(500001);
    expect(toScaledInt('0.30', 1)).toBe(3);
    expect(toScaledInt('0.35', 1)).toBeUndefined();
    expect(fromScaledInt(500001, 1)).toBe('50000.1');
    expect(fromScaledInt(-5, 3)).toBe('-0.005');
    expect(fromScaledInt(1000, 3)).toBe('1');
    expect(toScaledInt('-12.50', 2)).toBe(-1250);
    expect(toScaledInt('9007199254740993', 0)).toBeUndefined(); // beyond 2^53
    for (const bad of ['', '-', '.', '1e5', '1.2.3', ' 1', '+1', '0x10', '1,5']) expect(toScaledInt(bad, 2)).toBeUndefined();
  });

  it('fromScaledInt agrees with exact decimal arithmetic on any safe integer and scale', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.integer({ min: 0, max: 12 }), (n, scale) => {
        expect(fromScaledInt(n, scale)).toBe(formatDec(new Dec(n).div(new Dec(10).pow(scale))));
      }),
      { numRuns: 3000 },
    );
  });

  it('toScaledInt agrees with exact decimal arithmetic on any plain decimal string', () => {
    const plain = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,18}$/), fc.option(fc.stringMatching(/^[0-9]{0,12}$/)), fc.integer({ min: 0, max: 10 }))
      .map(([neg, int, frac, scale]) => ({ s: `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}`, scale }));
    fc.assert(
      fc.property(plain, ({ s, scale }) => {
        const scaled = new Dec(s).times(new Dec(10).pow(scale));
        const expected = scaled.isInteger() && scaled.abs().lte(Number.MAX_SAFE_INTEGER) ? scaled.toNumber() : undefined;
        const got = toScaledInt(s, scale);
        expect(got === undefined ? undefined : got === 0 ? 0 : got).toBe(expected === undefined ? undefined : expected === 0 ? 0 : expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('formats Dec in plain notation without trailing zeros', () => {
    expect(formatDec(new Dec('1e-9'))).toBe('0.000000001');
    expect(formatDec(new Dec('12.3400'))).toBe('12.34');
    expect(formatDec(new Dec('0.123456789'), 8)).toBe('0.12345679');
  });
});

describe('Grid, Price, Quantity', () => {
  const tick = new Grid('0.1');
  const step = new Grid('0.001');
  const half = new Grid('0.5');

  it('maps prices to ticks exactly', () => {
    expect(Price.parse('50000.1', tick).ticks).toBe(500001);
    expect(Price.parse('50000.1', tick).toString()).toBe('50000.1');
    expect(Price.parse('100.5', half).ticks).toBe(201);
    expect(Price.parse('100.50', tick).toString()).toBe('100.5');
  });

  it.each([
    ['50000.15', /multiple of the tick size 0.1/],
    ['-1', /must not be negative/],
    ['0', /greater than zero/],
    ['1e3', /exponent/],
    ['abc', /plain decimal/],
  ])('refuses price %j', (s, msg) => {
    expect(() => Price.parse(s, tick)).toThrow(msg);
  });

  it('refuses NaN and numbers', () => {
    expect(() => Price.parse(NaN, tick)).toThrow(/JSON number/);
    expect(() => Quantity.parse(1, step)).toThrow(/JSON number/);
  });

  it('maps quantities to steps and refuses off-grid and negative', () => {
    expect(Quantity.parse('1.234', step).steps).toBe(1234);
    expect(Quantity.parse('0', step).isZero()).toBe(true);
    expect(() => Quantity.parse('0.0005', step)).toThrow(/step size 0.001/);
    expect(() => Quantity.parse('-1', step)).toThrow(/negative/);
  });

  it('value types are immutable', () => {
    const p = Price.parse('1', tick);
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('rounds Dec onto the grid in the requested direction', () => {
    expect(tick.unitsOfDec(new Dec('100.05'), 'down')).toBe(1000);
    expect(tick.unitsOfDec(new Dec('100.05'), 'up')).toBe(1001);
    expect(tick.unitsOfDec(new Dec('100.06'), 'nearest')).toBe(1001);
  });

  it('rounds onto any grid exactly as dividing by the size and rounding (random values, long quotients, ties)', () => {
    let seed = 4242;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const m = mismatches();
    for (const size of ['0.1', '0.5', '0.25', '0.001', '1', '5', '0.00000001', '0.0003', '7']) {
      const grid = new Grid(size);
      for (let i = 0; i < 300; i++) {
        const digits = 1 + Math.floor(rnd() * 14);
        const base = new Dec(Math.floor(rnd() * 10 ** digits)).div(new Dec(10).pow(Math.floor(rnd() * 10)));
        // Long quotients as a strategy makes them (mark x factor / 10,000), and exact ties.
        const d = i % 3 === 0 ? base.times(new Dec(10000).minus(new Dec(rnd() * 10))).div(10000) : i % 3 === 1 ? new Dec(size).times(Math.floor(rnd() * 1000)).plus(new Dec(size).div(2)) : base;
        for (const [mode, r] of [['down', Dec.ROUND_DOWN], ['up', Dec.ROUND_UP], ['nearest', Dec.ROUND_HALF_EVEN]] as const) {
          m.same(() => `grid ${size}: unitsOfDec(${d.toFixed()}, ${mode})`, grid.unitsOfDec(d, mode), d.div(new Dec(size)).toDecimalPlaces(0, r).toNumber());
        }
      }
    }
    m.expectNone();
  });
});

describe('Money', () => {
  it('is exact where binary floating point is not', () => {
    const a = Money.parse('0.1').plus(Money.parse('0.2'));
    expect(a.toString()).toBe('0.3');
    expect(a.eq(Money.parse('0.3'))).toBe(true);
  });

  it('rounds half-even to the money scale only when asked', () => {
    expect(Money.parse('0.000000125').rounded().toString()).toBe('0.00000012');
    expect(Money.parse('0.000000135').rounded().toString()).toBe('0.00000014');
  });

  it('refuses exponent strings', () => {
    expect(() => Money.parse('1e2')).toThrow(/exponent/);
  });
});

describe('compareDecimalStrings', () => {
  it.each([
    ['1', '1', 0],
    ['1.0', '1', 0],
    ['1.10', '1.1', 0],
    ['0.1', '0.09', 1],
    ['50000.1', '50000.09', 1],
    ['9', '10', -1],
    ['-1', '1', -1],
    ['-2', '-1', -1],
    ['-0.5', '-0.50', 0],
    ['123.456', '123.4561', -1],
    ['0', '0.0', 0],
  ])('%s vs %s is %i', (a, b, r) => {
    expect(compareDecimalStrings(a, b)).toBe(r);
    expect(compareDecimalStrings(b, a)).toBe(-r || 0);
  });

  it('agrees with exact Dec comparison on random grid prices', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const m = mismatches();
    for (let i = 0; i < 2000; i++) {
      const a = fromScaledInt(next() % 10_000_000 - 5_000_000, next() % 5);
      const b = fromScaledInt(next() % 10_000_000 - 5_000_000, next() % 5);
      m.same(() => `compareDecimalStrings(${a}, ${b})`, compareDecimalStrings(a, b), new Dec(a).comparedTo(new Dec(b)));
    }
    m.expectNone();
  });
});

describe('Grid.unitsOfEstimate: the grid rounding decided in doubles where that is certain', () => {
  const modes = ['down', 'up', 'nearest'] as const;

  it('answers as unitsOfDec of the exact value, for products of a mark and a basis-point factor on many grids', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('0.1', '0.5', '0.01', '0.0001', '1', '5', '25', '0.00000001'),
        fc.integer({ min: 1, max: 9_000_000 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: -3_000_000, max: 3_000_000 }),
        fc.constantFrom(...modes),
        fc.constantFrom(1e-15, 1e-13),
        (size, markInt, markDp, bpsMillionths, mode, relErr) => {
          const grid = new Grid(size);
          const mark = new Dec(markInt).div(new Dec(10).pow(markDp));
          // factor = 10,000 + bps, with bps given to the millionth (many land exactly on ticks)
          const bps = new Dec(bpsMillionths).div(1_000_000);
          const exactValue = mark.times(new Dec(10000).plus(bps)).div(10000);
          const approx = (mark.toNumber() * (10000 + bps.toNumber())) / 10000;
          let calls = 0;
          // three double operations: within 1e-15 of the exact value
          const got = grid.unitsOfEstimate(approx, relErr, mode, () => {
            calls++;
            return exactValue;
          });
          expect(got).toBe(grid.unitsOfDec(exactValue, mode));
          expect(calls).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('takes the exact value for an estimate on the wrong side of a tick within its bound, and for ties', () => {
    const grid = new Grid('0.1');
    const onTick = new Dec('59988');
    // the double just below and just above 59988: within 1e-15 of the exact value, across the boundary
    const below = 59988 - 59988 * Number.EPSILON;
    const above = 59988 + 59988 * Number.EPSILON;
    for (const approx of [below, 59988, above]) {
      let calls = 0;
      const exact = (): Dec => {
        calls++;
        return onTick;
      };
      expect(grid.unitsOfEstimate(approx, 1e-15, 'down', exact)).toBe(599880);
      expect(grid.unitsOfEstimate(approx, 1e-15, 'up', exact)).toBe(599880);
      expect(calls).toBe(2);
    }
    // half a tick: half-even decides, so the exact value is asked for
    let calls = 0;
    const tie = (): Dec => {
      calls++;
      return new Dec('59988.05');
    };
    expect(grid.unitsOfEstimate(59988.05, 1e-15, 'nearest', tie)).toBe(599880);
    // an estimate 1.7e-16 below the tie 59988.15 (within its bound): half-even goes up, to 599882
    const tieUp = (): Dec => {
      calls++;
      return new Dec('59988.15');
    };
    expect(grid.unitsOfEstimate(59988.15 - 1e-11, 1e-15, 'nearest', tieUp)).toBe(599882);
    expect(calls).toBe(2);
  });

  it('defers when an end of the interval falls exactly on a boundary', () => {
    // u = 1.0000000000000029 with relErr 1e-15: u - u x (relErr + 8 eps) is exactly 1 in doubles
    expect(new Grid('1').unitsOfEstimate(1.0000000000000029, 1e-15, 'up', () => new Dec(1))).toBe(1);
  });

  it('does without the exact value when the estimate sits clearly between boundaries', () => {
    const grid = new Grid('0.1');
    const never = (): Dec => {
      throw new Error('exact value asked for');
    };
    expect(grid.unitsOfEstimate(59988.04, 1e-13, 'down', never)).toBe(599880);
    expect(grid.unitsOfEstimate(59988.04, 1e-13, 'up', never)).toBe(599881);
    expect(grid.unitsOfEstimate(59988.04, 1e-13, 'nearest', never)).toBe(599880);
    expect(grid.unitsOfEstimate(59988.06, 1e-13, 'nearest', never)).toBe(599881);
  });

  it('falls back to the exact value under one unit, for non-finite estimates and for a useless bound; refuses a bound under 1e-15', () => {
    const grid = new Grid('0.1');
    for (const [approx, relErr] of [[0.05, 1e-13], [-5, 1e-13], [Number.NaN, 1e-13], [Infinity, 1e-13], [100.04, Infinity], [100.04, 0.5]] as const) {
      let calls = 0;
      expect(
        grid.unitsOfEstimate(approx, relErr, 'down', () => {
          calls++;
          return new Dec('100.04');
        }),
      ).toBe(1000);
      expect(calls).toBe(1);
    }
    for (const bad of [0, 1e-16, Number.NaN, -1]) expect(() => grid.unitsOfEstimate(100, bad, 'down', () => new Dec(100))).toThrow(/relErr must be at least 1e-15/);
  });
});
