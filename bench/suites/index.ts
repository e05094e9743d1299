/**
 * Loads every suite. Add `import './<suite>';` here for new suites (exchange-http, sdk, latency,
 * backtest are planned).
 */
import './backtest';
import './engine';
import './import-tardis';
import './exchange-http';
import './latency';
import './market-maker';
import './real-data';
import './sdk';
import './sweep-queue';

export { registerSuite, getSuite, suiteNames } from './registry';
