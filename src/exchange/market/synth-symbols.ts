/**
 * The local exchange's symbols as input to synthetic recordings (src/market-data/synth.ts), so a
 * recording made by `perpkit synth` starts where `--market synthetic` starts: same specs, mark
 * price, funding rate and interval. The engine's SymbolConfig stays in the exchange layer;
 * market-data sees only the wire spec.
 */
import type { SynthSymbol } from '../../market-data/synth';
import { DEFAULT_SYMBOLS, wireSpecOf, type SymbolConfig } from '../engine/symbols';

export function synthSymbolsOf(configs: readonly SymbolConfig[] = DEFAULT_SYMBOLS): SynthSymbol[] {
  return configs.map((c) => ({ spec: wireSpecOf(c), markPrice: c.markPrice, fundingRate: c.fundingRate, fundingIntervalMs: c.fundingIntervalMs }));
}
