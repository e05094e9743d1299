/**
 * The parts of the config files that the bot's own settings make: the risk limits and a strategy
 * entry, shared by the bot config (perpkit run) and the backtest config.
 */
import { c } from '../core/config-schema';

export const RISK = c.object(
  {
    maxOrderNotional: c.decimal('positive', { description: 'Largest order: price (or mark) x quantity, USDT.' }),
    maxPositionNotional: c.decimal('positive', { description: 'Largest position per symbol with same-side open orders, valued at mark, USDT (reducing orders pass).' }),
    maxTotalExposure: c.decimal('positive', { description: 'Largest sum of absolute position notionals, USDT (reducing orders pass).' }),
    priceBand: c.decimal('positive', { description: 'Farthest a limit price may be from mark, as a fraction below 1 (0.05 = 5 %).' }),
    maxDailyLoss: c.decimal('positive', { description: "Equity drop below the UTC day's first reading (USDT) that turns the bot REDUCING." }),
    maxDrawdown: c.decimal('positive', { description: 'Equity drop below its peak, as a fraction below 1, that turns the bot REDUCING.' }),
    maxOpenOrders: c.int(1, 1_000_000, { description: 'Most orders live at once (pending, open or unknown).' }),
    maxOrdersPerSecond: c.int(1, 1_000_000, { description: 'Most order-sending intents (place, amend, bracket) in a second.' }),
  },
  { description: 'Limits checked before every order (docs/risk.md).' },
);

export const STRATEGY = c.object(
  {
  id: c.string({ pattern: '^[A-Za-z0-9_]{1,16}$', description: '1 to 16 letters, digits or _; prefixes every clientOrderId of the strategy.' }),
  module: c.string({ description: 'A built-in strategy (market-maker, grid, trend, carry) or a path to a strategy module, relative to this file.' }),
  params: c.anyMapping({ description: "The strategy's parameters, checked by its own schema." }),
  },
  { required: ['id', 'module'] },
);

