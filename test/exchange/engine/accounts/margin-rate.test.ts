import { Dec } from '../../../../src/core/decimal';
import { quotient, divide, times, ceilUnits, rateText, parseRate, compareUnits } from '../../../../src/exchange/engine/accounts/margin-rate';
test('frozen-margin rates in bigint give the very digits decimal.js gives (quotients, products, rounding up, comparison)', () => {
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 5000; i++) {
    const ticks = 1 + Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 9)));
    const steps = 1 + Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 7)));
    const sc = Math.floor(rnd() * 9);
    const lev = 1 + Math.floor(rnd() * 125);
    const qty = steps + Math.floor(rnd() * 50);
    const n = BigInt(ticks) * BigInt(steps);
    const notional = new Dec(n.toString()).div(new Dec(10).pow(sc));
    const req = notional.div(lev);
    const r = quotient(n, -sc, BigInt(lev));
    expect(rateText(r)).toBe(req.toFixed());
    const per = req.div(qty);
    const p = divide(r, qty);
    expect(rateText(p)).toBe(per.toFixed());
    const k = 1 + Math.floor(rnd() * qty);
    const f = per.times(k);
    const t = times(p, k);
    expect(rateText(t)).toBe(f.toFixed());
    const up = f.toDecimalPlaces(8, Dec.ROUND_UP);
    expect(ceilUnits(t).toString()).toBe(up.times(1e8).toFixed());
    expect(rateText(parseRate(rateText(t)))).toBe(rateText(t));
    const u = BigInt(up.times(1e8).toFixed()) - BigInt(Math.floor(rnd() * 3) - 1);
    expect(compareUnits(r, u)).toBe(req.comparedTo(new Dec(u.toString()).div(1e8)));
  }
});
