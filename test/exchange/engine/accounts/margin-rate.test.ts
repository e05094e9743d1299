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

test('quotients and products next to powers of ten (where counting digits from a double can be off by one) match decimal.js', () => {
  for (let k = 1; k <= 45; k++) {
    const p = 10n ** BigInt(k);
    for (const n of [p - 1n, p, p + 1n, p * 3n - 1n, (p * 999999999n) / 1000000000n]) {
      for (const lev of [1, 3, 7, 20, 125]) {
        const r = quotient(n, -4, BigInt(lev));
        expect(rateText(r)).toBe(new Dec(n.toString()).div(new Dec(10).pow(4)).div(lev).toFixed());
        expect(rateText(divide(r, 9_999_999))).toBe(new Dec(rateText(r)).div(9_999_999).toFixed());
      }
    }
  }
  for (const m of ['9'.repeat(60), '1' + '0'.repeat(59), '9'.repeat(59), '99999999999999999', '1' + '0'.repeat(58) + '1']) {
    for (const k of [1, 2, 9, 10, 11, 99, 101, 123457]) {
      expect(rateText(times(parseRate(`0.${m}`), k))).toBe(new Dec(`0.${m}`).times(k).toFixed());
    }
  }
});
