/**
 * The symbol side of a strategy's context: its symbols' specs with rounding onto their grids, and
 * its position, so strategies do not repeat lookups, throws and `tick.fromUnits(tick.unitsOfDec(...))`.
 */
import { Dec, DecOfText } from '../../core/decimal';
import { Grid } from '../../core/values';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { StateView } from '../state/cache';
import type { GridRounding, Market, Rounding, StrategyContext, SymbolInfo } from './api';

function rounding(grid: Grid, fallback: Rounding): GridRounding {
  return {
    grid,
    round: (x, mode = fallback) => grid.fromUnits(grid.unitsOfDec(x instanceof Dec ? x : new Dec(x), mode)),
  };
}

type SymbolPart = Pick<StrategyContext, 'symbol' | 'market' | 'price' | 'quantity' | 'position'>;

/** `symbol`, `market()`, `price`, `quantity` and `position()` for a strategy trading `symbols`. */
export function symbolAccess(strategyId: string, symbols: readonly string[], infos: ReadonlyMap<string, SymbolInfo>, state: StateView): SymbolPart {
  const markets = new Map<string, Market>();
  for (const s of symbols) {
    const info = infos.get(s);
    if (info) markets.set(s, { ...info, price: rounding(info.tick, 'nearest'), quantity: rounding(info.step, 'down') });
  }
  const first = symbols[0];
  /** Each symbol's position quantity as a Dec, parsed when it changes (a strategy asks on every event). */
  const positions = new Map<string, DecOfText>();
  const market = (symbol: string | undefined = first): Market => {
    const m = symbol === undefined ? undefined : markets.get(symbol);
    if (m === undefined) {
      throw new Error(symbol === undefined ? `strategy ${strategyId} declares no symbols: name one (ctx.market('BTCUSDT'))` : `strategy ${strategyId}: '${symbol}' is not one of its symbols (${[...markets.keys()].join(', ') || 'none'}); list it in the definition's symbols()`);
    }
    return m;
  };
  const lazy = (which: 'price' | 'quantity'): GridRounding => ({
    get grid() {
      return market()[which].grid;
    },
    round: (x, mode) => market()[which].round(x, mode),
  });
  return {
    symbol: first ?? '',
    market,
    price: lazy('price'),
    quantity: lazy('quantity'),
    position: (symbol = first) => {
      if (symbol === undefined) return new Dec(0);
      let text = positions.get(symbol);
      if (text === undefined) {
        text = new DecOfText();
        positions.set(symbol, text);
      }
      return text.of(state.position(symbol)?.quantity ?? '0');
    },
  };
}

/** A symbol as strategies see it: its spec with the price and quantity grids. */
export function toSymbolInfo(s: SymbolSpec): SymbolInfo {
  return {
    symbol: s.symbol,
    tickSize: s.tickSize,
    stepSize: s.stepSize,
    minQty: s.minQty,
    maxQty: s.maxQty,
    minNotional: s.minNotional,
    maxLeverage: s.maxLeverage,
    tick: new Grid(s.tickSize),
    step: new Grid(s.stepSize),
  };
}
