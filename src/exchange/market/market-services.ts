/**
 * The services that drive an exchange's market, by its `market` mode: the simulator (synthetic),
 * the replay of a recording, and the funding schedule. `perpkit exchange`, `perpkit demo` and
 * `startExchange` all build them here, so code gets the exchange the CLI runs.
 */
import { existsSync, statSync } from 'node:fs';
import { recordingFiles } from '../../market-data/reader';
import type { MarketMode } from '../service/config';
import type { ExchangeCore } from '../service/exchange-core';
import { FundingScheduler, type FundingLogger } from './funding-scheduler';
import { ReplayService, type ReplayServiceOptions } from './replay-service';
import { MarketSimulator, type MarketSimulatorOptions } from './simulator';

export interface MarketServicesOptions {
  core: ExchangeCore;
  market: MarketMode;
  seed: number;
  logger?: MarketSimulatorOptions['logger'] & ReplayServiceOptions['logger'] & FundingLogger;
  /** Synthetic only: the simulator's pace and sizes (the demo trades more than the default). */
  simulator?: Omit<MarketSimulatorOptions, 'core' | 'seed' | 'logger'>;
  /** Replay only: speed (default 1, recorded time) and fill model (default top of book). */
  replaySpeed?: ReplayServiceOptions['speed'];
  replayFill?: ReplayServiceOptions['fill'];
  /**
   * Whether an `off` market settles funding on schedule (default false). `perpkit exchange` does;
   * `startExchange` does not, so code and tests on a manual clock settle funding when they choose
   * (admin API).
   */
  fundingWhenOff?: boolean;
}

export interface MarketServices {
  /** To start with the server (ServerService). */
  services: Array<{ start(): void; stop(): Promise<void> | void }>;
  /** Run once the core has recovered and before the server starts: the market's opening state. */
  init(): Promise<void>;
}

/** Throws when a replay's recording cannot be found or read (before anything starts). */
export async function marketServices(o: MarketServicesOptions): Promise<MarketServices> {
  const { core, logger } = o;
  if (o.market === 'synthetic') {
    const sim = new MarketSimulator({ ...o.simulator, core, seed: o.seed, logger });
    // The synthetic rate follows the premium of mark over index.
    return { services: [sim, new FundingScheduler({ core, premium: true, logger })], init: () => sim.init() };
  }
  if (o.market.startsWith('replay:')) {
    const file = o.market.slice('replay:'.length);
    if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`market ${o.market}: no such recording file`);
    // The recorded funding lines are the settlements: no schedule of our own.
    const replay = new ReplayService({ core, files: await recordingFiles(file), speed: o.replaySpeed ?? 1, logger, fill: o.replayFill });
    return { services: [replay], init: () => replay.init() };
  }
  return { services: o.fundingWhenOff === true ? [new FundingScheduler({ core, premium: false, logger })] : [], init: () => Promise.resolve() };
}
