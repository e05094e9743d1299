/** Funding: settlement between longs and shorts, and its schedule (src/exchange/engine/funding). */
import { Dec } from '../../../../src/core/decimal';
import { limit, world } from '../helpers';

describe('funding', () => {
  it('longs pay shorts Q * mark * rate at settlement, logged as FUNDING_FEE', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    const before = [w.engine.asset('a').walletBalance, w.engine.asset('b').walletBalance];
    w.engine.settleFunding('BTCUSDT', '0.0001');
    expect(new Dec(w.engine.asset('b').walletBalance).minus(before[1]).toString()).toBe('-5');
    expect(new Dec(w.engine.asset('a').walletBalance).minus(before[0]).toString()).toBe('5');
    expect(w.engine.accountChanges('b', { changeType: 'FUNDING_FEE' }).list[0].amount).toBe('-5');
    expect(w.engine.positions('b')[0].fundingFeeAccum).toBe('-5');
    w.engine.settleFunding('BTCUSDT', '-0.0002');
    expect(w.engine.positions('a')[0].fundingFeeAccum).toBe('-5'); // +5 then -10
  });

  it('the schedule: funding falls due every 8 hours', () => {
    const w = world();
    const next = w.engine.marketState('BTCUSDT').nextFundingTime;
    expect(next % (8 * 3600 * 1000)).toBe(0);
    expect(w.engine.fundingDue(next - 1)).toEqual([]);
    expect(w.engine.fundingDue(next)).toEqual(['BTCUSDT', 'ETHUSDT']);
    w.clock.set(next);
    w.engine.settleFunding('BTCUSDT');
    expect(w.engine.marketState('BTCUSDT').nextFundingTime).toBe(next + 8 * 3600 * 1000);
  });

  it("a round's funding time, in its payments' referenceId and in what settleFunding answers: its scheduled time once come, else now", () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    const slot = w.engine.marketState('BTCUSDT').nextFundingTime;
    const refs = (): string[] => w.engine.accountChanges('b', { changeType: 'FUNDING_FEE' }).list.map((c) => c.referenceId);
    // Before its slot (the admin API's "now"): the round of now, not of the slot still ahead.
    const now = w.clock.now();
    expect(now).toBeLessThan(slot);
    expect(w.engine.settleFunding('BTCUSDT', '0.0001')).toEqual({ fundingRate: '0.0001', fundingTime: now });
    expect(refs()).toEqual([`funding-${now}`]);
    // The schedule moved on; settled a little after that slot came: the round of the slot.
    const next = w.engine.marketState('BTCUSDT').nextFundingTime;
    expect(next).toBe(slot + 8 * 3600 * 1000);
    w.clock.set(next + 1500);
    expect(w.engine.settleFunding('BTCUSDT')).toEqual({ fundingRate: '0.0001', fundingTime: next });
    expect(refs()).toEqual([`funding-${next}`, `funding-${now}`]);
  });
});
