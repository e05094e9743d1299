/**
 * liquidationPrice against a reference written here in decimal.js from docs/engine.md's rule: the
 * candidate price of each tier in turn, the first whose notional |Q| x P lies inside that tier,
 * else the tier of the current mark; "none" unless positive. Random positions, and positions whose
 * price lands exactly on a tier's edge or whose numerator is zero (where the float screen must
 * hand over to the exact search).
 */
import fc from 'fast-check';
import { Dec } from '../../../../src/core/decimal';
import { parseExact, type Exact } from '../../../../src/core/exact';
import { liquidationPrice, type Quotient } from '../../../../src/exchange/engine/positions/position-math';
import { DEFAULT_SYMBOLS, SymbolSpec } from '../../../../src/exchange/engine/symbols';

const spec = new SymbolSpec(DEFAULT_SYMBOLS[0]);
const tiers = DEFAULT_SYMBOLS[0].tiers.map((t) => ({ cap: new Dec(t.maxNotional), mmr: new Dec(t.maintenanceMarginRate), cum: new Dec(t.maintenanceAmount) }));

function reference(q: Dec, cost: Dec, margin: Dec, mark: Dec): Dec | undefined {
  const size = q.abs();
  const candidate = (t: (typeof tiers)[number]): Dec | undefined => {
    const p = q.gt(0) ? cost.minus(margin).minus(t.cum).div(q.times(new Dec(1).minus(t.mmr))) : margin.plus(cost.abs()).plus(t.cum).div(size.times(new Dec(1).plus(t.mmr)));
    return p.gt(0) ? p : undefined;
  };
  let floor = new Dec(0);
  for (let i = 0; i < tiers.length; i++) {
    const last = i === tiers.length - 1;
    const p = candidate(tiers[i]);
    if (p !== undefined) {
      const n = size.times(p);
      if ((i === 0 || n.gt(floor)) && (last || n.lte(tiers[i].cap))) return p;
    }
    floor = tiers[i].cap;
  }
  const n = size.times(mark);
  const markTier = tiers.find((t, i) => i === tiers.length - 1 || n.lte(t.cap)) ?? tiers[tiers.length - 1];
  return candidate(markTier);
}

const ex = (d: Dec): Exact => parseExact(d.toFixed());
const value = (x: Quotient): Dec | undefined => (x === undefined ? undefined : new Dec(x.num.m.toString()).times(new Dec(10).pow(x.num.e)).div(new Dec(x.den.m.toString()).times(new Dec(10).pow(x.den.e))));

function check(q: Dec, cost: Dec, margin: Dec, mark: Dec): void {
  const want = reference(q, cost, margin, mark);
  const got = value(liquidationPrice(spec, ex(q), ex(cost), ex(margin), ex(mark)));
  expect({ q: q.toFixed(), cost: cost.toFixed(), margin: margin.toFixed(), got: got?.toFixed(), want: want?.toFixed() }).toEqual({ q: q.toFixed(), cost: cost.toFixed(), margin: margin.toFixed(), got: want?.toFixed(), want: want?.toFixed() });
}

describe('liquidationPrice against the rule written out in decimal.js', () => {
  it('random positions, long and short, small to large margins', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50_000 }), // quantity in 0.001
        fc.boolean(),
        fc.integer({ min: 10_000, max: 120_000 }), // entry price
        fc.integer({ min: -5_000_000, max: 2_000_000_000 }), // margin in 0.01 USDT
        fc.integer({ min: 20_000, max: 200_000 }), // mark
        (steps, long, entry, cents, mark) => {
          const q = new Dec(steps).div(1000).times(long ? 1 : -1);
          check(q, q.times(entry), new Dec(cents).div(100), new Dec(mark));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a price exactly on a tier edge, and a numerator exactly zero', () => {
    // Short 1 BTC whose tier-1 candidate is exactly 50,000 (the edge): (M + 50,000 + 0) / 1.004 = 50,000.
    check(new Dec(-1), new Dec(-50_000), new Dec(200), new Dec(50_000));
    // Long 5 BTC whose tier-2 price puts the notional exactly at 250,000: (C - M - 50) / (5 x 0.995) = 50,000.
    check(new Dec(5), new Dec(260_000), new Dec(260_000 - 50 - 248_750), new Dec(52_000));
    // Long with C - M - cum = 0 in tier 1: no positive price there.
    check(new Dec('0.5'), new Dec(25_000), new Dec(25_000), new Dec(50_000));
  });
});
