/**
 * One side of the engine A/B part (engine-ab.ts), in its own worker thread: the full-engine driver
 * on the engine of the built checkout at `root` (the base, or this checkout itself), answering each
 * message with the nanoseconds a block of ops took, and `audit` with whether quantity was conserved.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { EngineDriver, type EngineKit } from './engine-full';

export interface AbWorkerData {
  /** The built checkout whose engine this side runs (this one's too is loaded from its path, so both sides are set up alike). */
  root: string;
  crossFraction: number;
  seed: number;
  ops: number;
  block: number;
  /** The makers' ended orders not kept (Engine.forgetFinalOrders): engine-ab.ts historyCostPart. */
  forget?: boolean;
  /** A client order id on every passive placement (EngineDriver). */
  clientIds?: boolean;
}

export type AbRequest = 'block' | 'audit';

/** The engine of a built checkout (its dist/), as the driver uses it. */
function kitOf(root: string): EngineKit {
  const file = (rel: string): string => {
    const f = path.join(root, 'dist', 'src', rel);
    if (!existsSync(f)) throw new Error(`BENCH_ENGINE_BASE tree ${root} has no dist/src/${rel} (a checkout built with npm run build is needed)`);
    return f;
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another checkout's build, chosen at run time
  const load = (rel: string): Record<string, unknown> => require(file(rel)) as Record<string, unknown>;
  return {
    Engine: load(path.join('exchange', 'engine', 'engine.js')).Engine as EngineKit['Engine'],
    ManualClock: load(path.join('core', 'clock.js')).ManualClock as EngineKit['ManualClock'],
    symbols: load(path.join('exchange', 'engine', 'symbols.js')).DEFAULT_SYMBOLS as EngineKit['symbols'],
  };
}

const port = parentPort;
if (port !== null) {
  const d = workerData as AbWorkerData;
  const driver = new EngineDriver(d.crossFraction, d.seed, d.ops, kitOf(d.root), d.forget === true, d.clientIds === true);
  port.on('message', (m: AbRequest) => {
    if (m === 'audit') {
      port.postMessage(driver.engine.audit().netQtyBySymbol.BTCUSDT === 0);
      return;
    }
    const t = process.hrtime.bigint();
    for (let i = 0; i < d.block; i++) driver.next();
    port.postMessage(Number(process.hrtime.bigint() - t));
  });
}
