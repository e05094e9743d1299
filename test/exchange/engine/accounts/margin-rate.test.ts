import { Dec } from '../../../../src/core/decimal';
import { quotient, divide, times, ceilUnits, rateText, parseRate, compareUnits } from '../../../../src/exchange/engine/accounts/margin-rate';
import { mismatches } from '../../../helpers/mismatches';
test('frozen-margin rates in bigint give the very digits decimal.js gives (quotients, products, rounding up, comparison)', () => {
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const m = mismatches();
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
    m.same(() => `case ${i}: rateText(r)`, rateText(r), req.toFixed());
    const per = req.div(qty);
    const p = divide(r, qty);
    m.same(() => `case ${i}: rateText(p)`, rateText(p), per.toFixed());
    const k = 1 + Math.floor(rnd() * qty);
    const f = per.times(k);
    const t = times(p, k);
    m.same(() => `case ${i}: rateText(t)`, rateText(t), f.toFixed());
    const up = f.toDecimalPlaces(8, Dec.ROUND_UP);
    m.same(() => `case ${i}: ceilUnits(t).toString()`, ceilUnits(t).toString(), up.times(1e8).toFixed());
    m.same(() => `case ${i}: rateText(parseRate(rateText(t)))`, rateText(parseRate(rateText(t))), rateText(t));
    const u = BigInt(up.times(1e8).toFixed()) - BigInt(Math.floor(rnd() * 3) - 1);
    m.same(() => `case ${i}: compareUnits(r, u)`, compareUnits(r, u), req.comparedTo(new Dec(u.toString()).div(1e8)));
  }
  m.expectNone();
});

test('quotients and products next to powers of ten (where counting digits from a double can be off by one) match decimal.js', () => {
  const wrong = mismatches();
  for (let k = 1; k <= 45; k++) {
    const p = 10n ** BigInt(k);
    for (const n of [p - 1n, p, p + 1n, p * 3n - 1n, (p * 999999999n) / 1000000000n]) {
      for (const lev of [1, 3, 7, 20, 125]) {
        const r = quotient(n, -4, BigInt(lev));
        wrong.same(`quotient(${n}, -4, ${lev})`, rateText(r), new Dec(n.toString()).div(new Dec(10).pow(4)).div(lev).toFixed());
        wrong.same(`divide(quotient(${n}, -4, ${lev}), 9999999)`, rateText(divide(r, 9_999_999)), new Dec(rateText(r)).div(9_999_999).toFixed());
      }
    }
  }
  for (const m of ['9'.repeat(60), '1' + '0'.repeat(59), '9'.repeat(59), '99999999999999999', '1' + '0'.repeat(58) + '1']) {
    for (const k of [1, 2, 9, 10, 11, 99, 101, 123457]) {
      wrong.same(`times(0.${m}, ${k})`, rateText(times(parseRate(`0.${m}`), k)), new Dec(`0.${m}`).times(k).toFixed());
    }
  }
  wrong.expectNone();
});
