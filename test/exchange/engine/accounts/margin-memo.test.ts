/** The margin memo gives exactly what the arithmetic gives, whatever the order of lookups and collisions in its table. */
import { MarginMemo, frozenUnits } from '../../../../src/exchange/engine/accounts/margin-memo';
import { ceilUnits, divide, quotient, rateText, times } from '../../../../src/exchange/engine/accounts/margin-rate';
import { DEFAULT_SYMBOLS, SymbolSpec } from '../../../../src/exchange/engine/symbols';

test('required, per-step rate and frozen amounts from the memo equal the direct arithmetic', () => {
  const spec = new SymbolSpec(DEFAULT_SYMBOLS[0]);
  const memos = [new MarginMemo(spec), new MarginMemo(spec, 1), new MarginMemo(spec, 4)];
  let seed = 99;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 20_000; i++) {
    // Few distinct inputs, so entries are found again, overwritten by colliding keys and found again
    // (the tables of 1 and 4 entries make every key collide: a hit must match every input).
    const ticks = 600_000 + Math.floor(rnd() * 300);
    const qty = 1 + Math.floor(rnd() * 40);
    const opening = rnd() < 0.8 ? qty : Math.floor(rnd() * qty) + 1;
    const leverage = [1, 3, 7, 20, 125][Math.floor(rnd() * 5)];
    const required = quotient(spec.notionalUnits(ticks, opening), -spec.notionalScale, BigInt(leverage));
    const perStep = divide(required, qty);
    const steps = rnd() < 0.5 ? qty : Math.floor(rnd() * qty) + 1;
    // Compared without jest's expect per value (180,000 of them took 10 s); the first difference is shown.
    for (const [m, memo] of memos.entries()) {
      memo.lookup(ticks, opening, qty, leverage);
      const got = [rateText(memo.required), rateText(memo.perStep), frozenUnits(memo.perStep, steps)];
      const want = [rateText(required), rateText(perStep), ceilUnits(times(perStep, steps))];
      if (got.some((g, k) => g !== want[k])) {
        expect({ lookup: i, memo: m, ticks, opening, qty, leverage, steps, got }).toEqual({ lookup: i, memo: m, ticks, opening, qty, leverage, steps, got: want });
      }
    }
  }
  // Keys that differ in one input only, one after another in a one-entry table.
  const one = new MarginMemo(spec, 1);
  for (const [ticks, opening, qty, leverage] of [[600_001, 10, 10, 20], [600_001, 3, 10, 20], [600_002, 3, 10, 20], [600_002, 3, 11, 20], [600_002, 3, 11, 7], [600_002, 3, 11, 7]]) {
    one.lookup(ticks, opening, qty, leverage);
    const required = quotient(spec.notionalUnits(ticks, opening), -spec.notionalScale, BigInt(leverage));
    expect(rateText(one.required)).toBe(rateText(required));
    expect(rateText(one.perStep)).toBe(rateText(divide(required, qty)));
  }
});
