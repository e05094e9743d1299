/**
 * Funding-aware carry: holds a position on the side that receives funding (short when the rate
 * is positive and longs pay, long when it is negative) while |rate| is at or above `enterRate`.
 * The position is capped by `maxNotional` (valued at mark) and `quantity`, and built with
 * marketable IOC limits at most `maxSlippageBps` through mark, one order at a time. It exits,
 * with a reduce-only IOC, before an adverse payment: when the next funding is less than
 * `exitBeforeMs` away and the rate now makes the position pay. It also exits when mark has moved
 * `maxLossBps` against the entry (price risk dwarfs a funding payment), and then sits out until
 * the next funding time.
 */
import { Dec, defineStrategy, param, params, type Intent, type Params, type Strategy, type StrategyContext } from '../../src/index';

const schema = params({
  symbol: param.string({ default: 'BTCUSDT' }),
  quantity: param.quantity({ default: '0.01', description: 'Largest position, base asset.' }),
  maxNotional: param.decimal({ default: '1000', description: 'Largest position, USDT at mark (the smaller of the two caps applies).' }),
  enterRate: param.decimal({ default: '0.0003', description: 'Enter when |funding rate| is at least this (0.0003 = 0.03 % per interval).' }),
  exitBeforeMs: param.integer({ min: 1000, max: 86_400_000, default: 1_800_000, description: 'Exit when the rate is against the position and funding is this close, ms.' }),
  maxSlippageBps: param.decimal({ default: '10', below: '10000', description: 'How far through mark an entry or exit IOC limit may go, bps (below 10000: a sell limit would be at zero).' }),
  maxLossBps: param.decimal({ default: '200', description: 'Exit when mark has moved this far against the entry price, bps.' }),
});
export type CarryParams = Params<typeof schema>;

const BPS = new Dec(10000);
type Side = 'BUY' | 'SELL';

export function carry(ctx: StrategyContext<CarryParams>): Strategy {
  const p = ctx.params;
  /** No entries before this time (after a stop-out: until the funding round has passed). */
  let sitOutUntil = 0;
  let active = true;

  function ioc(side: Side, quantity: Dec, mark: Dec, reduceOnly: boolean, tag: string): Intent[] {
    // Over the cap (the mark rose since the entry): nothing to add; the position is not trimmed.
    // (A negative quantity went out on every mark, each one denied.)
    if (!quantity.gt(0)) return [];
    const qty = ctx.quantity.round(quantity);
    if (new Dec(qty).isZero()) return [];
    const limit = mark.times(BPS.plus(p.maxSlippageBps.times(side === 'BUY' ? 1 : -1))).div(BPS);
    // Rounded toward mark so the slippage bound holds after rounding.
    const price = ctx.price.round(limit, side === 'BUY' ? 'down' : 'up');
    return [{ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price, quantity: qty, timeInForce: 'IOC', reduceOnly, tag }];
  }

  function decide(): Intent[] {
    const m = ctx.state.mark(p.symbol);
    // One order at a time: the next decision waits until the last order is final.
    if (m === undefined || ctx.myOrders(p.symbol).length > 0) return [];
    const [mark, rate, now] = [new Dec(m.markPrice), new Dec(m.fundingRate), ctx.clock.now()];
    const pos = ctx.position();
    const close = pos.gt(0) ? 'SELL' : 'BUY';
    if (!pos.isZero()) {
      // Longs pay when the rate is positive, shorts when it is negative.
      const pays = (pos.gt(0) && rate.gt(0)) || (pos.lt(0) && rate.lt(0));
      const entry = new Dec(ctx.state.position(p.symbol)?.entryPrice ?? mark);
      const adverse = pos.gt(0) ? entry.minus(mark) : mark.minus(entry);
      if (entry.gt(0) && adverse.div(entry).times(BPS).gte(p.maxLossBps)) {
        sitOutUntil = m.nextFundingTime;
        ctx.log.warn({ entry: entry.toString(), mark: mark.toString() }, 'carry: loss limit reached; closing and sitting out this funding round');
        return ioc(close, pos.abs(), mark, true, 'stop');
      }
      if (pays && m.nextFundingTime - now < p.exitBeforeMs) {
        ctx.log.info({ rate: rate.toString(), nextFundingTime: m.nextFundingTime }, 'carry: funding turned against the position; closing before it is charged');
        return ioc(close, pos.abs(), mark, true, 'exit');
      }
      if (pays) return [];
    }
    if (!active || now < sitOutUntil || rate.abs().lt(p.enterRate)) return [];
    const side: Side = rate.gt(0) ? 'SELL' : 'BUY';
    const have = side === 'BUY' ? pos : pos.negated();
    return ioc(side, Dec.min(p.quantity, p.maxNotional.div(mark)).minus(have), mark, false, 'enter');
  }

  return {
    onStart() {
      // Mark updates drive decisions; the timer covers a quiet feed close to a funding time.
      ctx.every('carry', 10_000);
      return decide();
    },
    onMark: decide,
    onTimer: decide,
    onRiskState(e) {
      // Outside ACTIVE no entries; exits (reduce-only) still pass the risk engine.
      active = e.state === 'ACTIVE';
    },
    saveState: () => ({ sitOutUntil }),
    restoreState(s: unknown) {
      const at = (s as { sitOutUntil?: unknown } | null)?.sitOutUntil;
      if (typeof at === 'number') sitOutUntil = at;
    },
  };
}

export default defineStrategy({
  name: 'carry',
  description: 'Holds the side that receives funding while |rate| is above a threshold, capped in size; exits before adverse funding.',
  params: schema,
  check: (p) => {
    if (p.enterRate.gte('0.05')) throw new Error(`parameter 'enterRate' must be below 0.05 (the venue's funding rate bound), got ${p.enterRate.toString()}`);
  },
  symbols: (p) => [p.symbol],
  create: carry,
});
