/**
 * Loads every suite. Add `import './<suite>';` here for new suites (exchange-http, sdk, latency,
 * backtest are planned).
 */
import './engine';

export { registerSuite, getSuite, suiteNames } from './registry';
