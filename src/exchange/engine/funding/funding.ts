/** Funding: the rate of each symbol, its schedule, and settlement of a round at mark price. */
import { Dec, formatDec } from '../../../core/decimal';
import { ErrorCodes } from '../../../core/errors';
import { scaledRateOf, unitsTimesRate } from '../../../core/money-units';
import type { Ledger } from '../accounts/ledger';
import { INSURANCE_ACCOUNT, fail, type EngineState } from '../state';

export class Funding {
  constructor(
    private readonly s: EngineState,
    private readonly ledger: Ledger,
  ) {}

  setRate(symbol: string, rate: string): void {
    this.s.sym(symbol).market.fundingRate = parseRate(rate);
  }

  /** Symbols whose scheduled funding time has come. */
  due(now: number): string[] {
    return [...this.s.symbols.values()].filter((x) => x.market.nextFundingTime <= now).map((x) => x.spec.name);
  }

  /**
   * Settles one funding round at mark price: each position pays Q * mark * rate (longs pay when
   * the rate is positive). Payments pass through the insurance fund, which also keeps the rounding.
   * The round's funding time (its payments' referenceId `funding-<time>`, and what this answers) is
   * its scheduled time once that has come, else now: a round settled before its time (the admin
   * API's "now") is a round of now, not of the time still ahead.
   */
  settle(symbol: string, rate?: string): { fundingRate: string; fundingTime: number } {
    const s = this.s;
    const st = s.sym(symbol);
    const r = rate === undefined ? st.market.fundingRate : parseRate(rate);
    if (rate !== undefined) st.market.fundingRate = r;
    const scaled = scaledRateOf(r);
    const insurance = s.owner(INSURANCE_ACCOUNT);
    const now = s.clock.now();
    const fundingTime = Math.min(st.market.nextFundingTime, now);
    for (const acct of s.holdersInOrder(st)) {
      for (const p of acct.positions.values()) {
        if (p.symbol !== st.spec) continue;
        // Q x mark x rate, rounded half-even to the unit (longs pay a positive rate).
        const notional = st.spec.notionalMoney(st.market.mark, Math.abs(p.qty));
        const pay = unitsTimesRate(p.qty < 0 ? -notional : notional, scaled);
        if (pay === 0n) continue;
        p.fundingAccum -= pay;
        this.ledger.changeWallet(acct, -pay, 'FUNDING_FEE', `funding-${fundingTime}`, st.spec.name);
        insurance.wallet += pay;
      }
    }
    const interval = st.spec.config.fundingIntervalMs;
    st.market.nextFundingTime = Math.max(st.market.nextFundingTime + interval, (Math.floor(now / interval) + 1) * interval);
    const fundingRate = formatDec(r);
    s.out.push({ kind: 'funding', symbol: st.spec.name, time: now, fundingRate, markPrice: st.spec.tick.fromUnits(st.market.mark) });
    s.follow.marginMoved(st);
    return { fundingRate, fundingTime };
  }
}

function parseRate(rate: string): Dec {
  if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(rate)) fail(ErrorCodes.INVALID_PARAMETER, `fundingRate must be a plain decimal string, got "${rate}"`, 'fundingRate');
  const d = new Dec(rate);
  if (d.abs().gt('0.05')) fail(ErrorCodes.INVALID_PARAMETER, `fundingRate must be within -0.05..0.05, got ${rate}`, 'fundingRate');
  return d;
}
