/**
 * Loads every suite. Add `import './<suite>';` here for new suites (exchange-http, sdk, latency,
 * backtest are planned).
 */
import './backtest';
import './engine';
import './exchange-http';
import './latency';
import './sdk';
import './sweep-queue';

export { registerSuite, getSuite, suiteNames } from './registry';
