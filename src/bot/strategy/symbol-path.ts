/**
 * Where a configured strategy names a symbol: for an error about a symbol the data or the venue
 * lacks, at the key a user wrote (the backtest's and `perpkit run`'s config errors).
 */
import type { StrategySlot } from '../bot';
import type { StrategyDefinition } from './api';

/**
 * The config path that makes a strategy trade `symbol`, for an error about it: the parameter that
 * holds the name (`strategies[0].params.symbol`, `strategies[1].params.symbols[2]`), else the
 * strategy's `params`. Slots are in the config's order.
 */
export function symbolPath(slots: StrategySlot[], symbol: string): string | undefined {
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    const def = s.definition as unknown as StrategyDefinition<unknown>;
    if (!def.symbols(def.params(s.params)).includes(symbol)) continue;
    for (const [k, v] of Object.entries(s.params)) {
      if (v === symbol) return `strategies[${i}].params.${k}`;
      if (Array.isArray(v) && v.includes(symbol)) return `strategies[${i}].params.${k}[${v.indexOf(symbol)}]`;
    }
    return `strategies[${i}].params`;
  }
  return undefined;
}
