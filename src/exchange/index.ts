/**
 * `perpkit/exchange`: the local exchange from code, as `perpkit exchange` runs it (the matching
 * engine, the service with its REST and WebSocket transports, the market simulator and replay;
 * docs/local-exchange.md).
 */
export { startExchange, mergeConfig, ExchangeServer, type ExchangeServerOptions } from './transport/server';
/** What startExchange throws for a config it refuses (an unknown key, a value out of range, a user login would refuse). */
export { ConfigError } from '../core/config-errors';
export { DEFAULT_CONFIG, type ExchangeConfig, type ExchangeConfigOverrides, type SymbolConfigOverride, type MarketMode, type ConfiguredUser, type ConfiguredApiKey } from './service/config';
export { ExchangeCore, type ExchangeCoreOptions } from './service/exchange-core';
export { Engine } from './engine/engine';
export { DEFAULT_SYMBOLS } from './engine/symbols';
export { MarketSimulator, type MarketSimulatorOptions } from './market/simulator';
export { ReplayService, type ReplayServiceOptions } from './market/replay-service';
export { HeapWatch, HEAP_WARN_LEVELS, type HeapWatchOptions, type HeapReading } from './service/heap-watch';
