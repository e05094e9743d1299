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
import { Dec, defineStrategy, type BotEvent, type Intent, type StrategyContext } from '../../src/index';
import { dec, int, onlyKeys, str } from '../params';

export interface CarryParams {
  symbol: string;
  /** Largest position, base asset. */
  quantity: Dec;
  /** Largest position, USDT at mark (the smaller of the two caps applies). */
  maxNotional: Dec;
  /** Enter when |funding rate| is at least this (0.0003 = 0.03 % per interval). */
  enterRate: Dec;
  /** Exit when the rate is against the position and funding is this close, ms. */
  exitBeforeMs: number;
  /** How far through mark an entry or exit IOC limit may go, bps. */
  maxSlippageBps: Dec;
  /** Exit when mark has moved this far against the entry price, bps. */
  maxLossBps: Dec;
}

const KEYS = ['symbol', 'quantity', 'maxNotional', 'enterRate', 'exitBeforeMs', 'maxSlippageBps', 'maxLossBps'] as const;
const BPS = new Dec(10000);

type Side = 'BUY' | 'SELL';

export function carry(ctx: StrategyContext<CarryParams>) {
  const p = ctx.params;
  const found = ctx.symbols.get(p.symbol);
  if (!found) throw new Error(`carry: unknown symbol ${p.symbol}`);
  const info = found;
  /** No entries before this time (after a stop-out: until the funding round has passed). */
  let sitOutUntil = 0;
  let active = true;

  const position = (): Dec => new Dec(ctx.state.position(p.symbol)?.quantity ?? '0');
  /** One order at a time: the next decision waits until the last order is final. */
  const ordering = (): boolean => ctx.myOrders(p.symbol).length > 0;

  function ioc(side: Side, quantity: Dec, mark: Dec, reduceOnly: boolean, tag: string): Intent[] {
    const units = info.step.unitsOfDec(quantity, 'down');
    if (units <= 0) return [];
    const sign = side === 'BUY' ? 1 : -1;
    const limit = mark.times(BPS.plus(p.maxSlippageBps.times(sign))).div(BPS);
    // Rounded toward mark so the slippage bound holds after rounding.
    const price = info.tick.fromUnits(info.tick.unitsOfDec(limit, side === 'BUY' ? 'down' : 'up'));
    return [{ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price, quantity: info.step.fromUnits(units), timeInForce: 'IOC', reduceOnly, tag }];
  }

  function decide(mark: Dec, rate: Dec, nextFundingTime: number, now: number): Intent[] {
    if (ordering()) return [];
    const pos = position();
    if (!pos.isZero()) {
      // Longs pay when the rate is positive, shorts when it is negative.
      const pays = (pos.gt(0) && rate.gt(0)) || (pos.lt(0) && rate.lt(0));
      const entry = new Dec(ctx.state.position(p.symbol)?.entryPrice ?? mark);
      const adverse = pos.gt(0) ? entry.minus(mark) : mark.minus(entry);
      if (entry.gt(0) && adverse.div(entry).times(BPS).gte(p.maxLossBps)) {
        sitOutUntil = nextFundingTime;
        ctx.log.warn({ entry: entry.toString(), mark: mark.toString() }, 'carry: loss limit reached; closing and sitting out this funding round');
        return ioc(pos.gt(0) ? 'SELL' : 'BUY', pos.abs(), mark, true, 'stop');
      }
      if (pays && nextFundingTime - now < p.exitBeforeMs) {
        ctx.log.info({ rate: rate.toString(), nextFundingTime }, 'carry: funding turned against the position; closing before it is charged');
        return ioc(pos.gt(0) ? 'SELL' : 'BUY', pos.abs(), mark, true, 'exit');
      }
      if (pays) return [];
    }
    if (!active || now < sitOutUntil || rate.abs().lt(p.enterRate)) return [];
    const side: Side = rate.gt(0) ? 'SELL' : 'BUY';
    const cap = Dec.min(p.quantity, p.maxNotional.div(mark));
    const have = side === 'BUY' ? pos : pos.negated();
    return ioc(side, cap.minus(have), mark, false, 'enter');
  }

  function onMark(): Intent[] {
    const m = ctx.state.mark(p.symbol);
    if (m === undefined) return [];
    return decide(new Dec(m.markPrice), new Dec(m.fundingRate), m.nextFundingTime, ctx.clock.now());
  }

  return {
    onStart(): Intent[] {
      // Mark updates drive decisions; the timer covers a quiet feed close to a funding time.
      ctx.every('carry', 10_000);
      return onMark();
    },
    onEvent(e: BotEvent): Intent[] {
      switch (e.type) {
        case 'markPrice':
          return e.symbol === p.symbol ? onMark() : [];
        case 'timer':
          return onMark();
        case 'riskState':
          // Outside ACTIVE no entries; exits (reduce-only) still pass the risk engine.
          active = e.state === 'ACTIVE';
          return [];
        default:
          return [];
      }
    },
    saveState(): unknown {
      return { sitOutUntil };
    },
    restoreState(s: unknown): void {
      if (typeof s === 'object' && s !== null && typeof (s as { sitOutUntil?: unknown }).sitOutUntil === 'number') sitOutUntil = (s as { sitOutUntil: number }).sitOutUntil;
    },
  };
}

export default defineStrategy<CarryParams>({
  name: 'carry',
  description: 'Holds the side that receives funding while |rate| is above a threshold, capped in size; exits before adverse funding.',
  symbols: (p) => [p.symbol],
  // Reads marks only (and the state cache): recorded trades and books are not handed to it.
  marketData: () => ['markPrice'],
  params: (raw) => {
    onlyKeys(raw, KEYS);
    const p: CarryParams = {
      symbol: str(raw, 'symbol', 'BTCUSDT'),
      quantity: dec(raw, 'quantity', '0.01'),
      maxNotional: dec(raw, 'maxNotional', '1000'),
      enterRate: dec(raw, 'enterRate', '0.0003'),
      exitBeforeMs: int(raw, 'exitBeforeMs', 1000, 86_400_000, 1_800_000),
      maxSlippageBps: dec(raw, 'maxSlippageBps', '10'),
      maxLossBps: dec(raw, 'maxLossBps', '200'),
    };
    if (p.enterRate.gte('0.05')) throw new Error(`parameter 'enterRate' must be below 0.05 (the venue's funding rate bound), got ${p.enterRate.toString()}`);
    return p;
  },
  create: carry,
});
