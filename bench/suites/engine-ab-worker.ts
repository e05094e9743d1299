/**
 * One side of the engine A/B part (engine-ab.ts), in its own worker thread: the full-engine driver
 * on this checkout's engine or on another built checkout's (`root`), answering each message with
 * the nanoseconds a block of ops took, and `audit` with whether quantity was conserved.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { EngineDriver, THIS_BUILD, type EngineKit } from './engine-full';

export interface AbWorkerData {
  /** A built checkout's root, or undefined for this build. */
  root: string | undefined;
  crossFraction: number;
  seed: number;
  ops: number;
  block: number;
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
  const driver = new EngineDriver(d.crossFraction, d.seed, d.ops, d.root === undefined ? THIS_BUILD : kitOf(d.root));
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
