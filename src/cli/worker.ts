/**
 * `perpkit worker --queue redis://host:port`: runs sweep jobs from the queue until stopped
 * (SIGINT/SIGTERM finish the running jobs first). Start any number, on any machine that sees the
 * same config and data files at the same paths (docs/backtesting.md).
 */
import { availableParallelism, hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { checkQueueUrl, redactUrl } from '../backtest/sweep/queue';
import { startQueueWorker } from '../backtest/sweep/queue-worker';
import { reportFailure } from './failure';
import { stopOnSignals } from './stop-signal';
import { whenAborted } from '../backtest/sweep/pool';
import { intRange } from '../core/config-schema';
import { SWEEP_KEYS } from '../backtest/backtest/config-schema';
import { argsMessage, usageFailure } from './usage';
import { WORKER_USAGE } from './usage-texts';
import { envLogLevel } from './log-level';
import { createRuntimeLogger } from '../runtime/logger';

const whole = (v: string | undefined, name: string, min: number, max = Number.MAX_SAFE_INTEGER): string | undefined =>
  v === undefined || (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max) ? undefined : `--${name} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got '${v}'`;

export async function runWorkerCli(argv: string[]): Promise<number> {
  let values: { queue?: string; concurrency?: string; 'lock-ms'?: string; 'grace-ms'?: string; quiet?: boolean; debug?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { queue: { type: 'string' }, concurrency: { type: 'string' }, 'lock-ms': { type: 'string' }, 'grace-ms': { type: 'string' }, quiet: { type: 'boolean' }, debug: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    return usageFailure('worker', argsMessage(e));
  }
  if (values.help === true) {
    process.stdout.write(WORKER_USAGE);
    return 0;
  }
  const bad = values.queue === undefined ? '--queue is required (redis://host:port)' : (checkQueueUrl(values.queue) ?? whole(values.concurrency, 'concurrency', 1, intRange(SWEEP_KEYS.workers).max) ?? whole(values['lock-ms'], 'lock-ms', 500) ?? whole(values['grace-ms'], 'grace-ms', 0));
  if (bad !== undefined || values.queue === undefined) {
    return usageFailure('worker', bad ?? '');
  }
  // Its log on stderr (level from PERPKIT_LOG_LEVEL): a job run again here after the worker that
  // had it stopped is said at warn.
  const level = envLogLevel();
  if ('error' in level) return usageFailure('worker', level.error);
  const log = createRuntimeLogger({ level: level.level, fd: 2, singleLine: true, base: { name: 'perpkit-worker' } });
  const quiet = values.quiet === true;
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : availableParallelism();
  let jobs = 0;
  let failed = 0;
  let refused = 0;
  try {
    const w = await startQueueWorker({
      url: values.queue,
      concurrency,
      lockMs: values['lock-ms'] !== undefined ? Number(values['lock-ms']) : 30_000,
      graceMs: values['grace-ms'] !== undefined ? Number(values['grace-ms']) : 15_000,
      onNotice: quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
      onJob: (e) => {
        jobs++;
        if (e.result.error !== undefined) failed++;
        if (!quiet) process.stderr.write(`job ${e.id} ${e.result.error === undefined ? 'done' : `FAILED: ${e.result.error}`} in ${(e.ms / 1000).toFixed(2)} s\n`);
      },
      onRetry: (e) => log.warn({ job: e.id, sweep: e.sweep, index: e.index, attempt: e.attempt, stalled: e.stalled }, `job ${e.id} runs again here (attempt ${e.attempt}): the worker that had it stopped holding it (killed, or lost its lock)`),
      onRefused: (e) => {
        refused++;
        process.stderr.write(`job ${e.id} REFUSED: ${e.reason}\n`);
      },
    });
    process.stdout.write(`worker ${hostname()}:${process.pid} on ${redactUrl(values.queue)}, ${concurrency} job(s) at a time; waiting for sweep jobs\n`);
    // The first signal lets the running jobs finish; a second (a job that never ends, one that
    // has no sweep.jobTimeoutMs) quits at once, saying what happens to the jobs cut short.
    const stop = stopOnSignals(undefined, (sig) =>
      process.stderr.write(`perpkit worker: stopped at once by ${sig}; ${w.running()} job(s) cut short run again on another worker once their lock lapses (--lock-ms); ${jobs} job(s) run, ${failed} failed, ${refused} refused\n`),
    );
    const why = await Promise.race([whenAborted(stop.signal).promise.then(() => 'signal' as const), w.gone]);
    const counts = `${jobs} job(s) run, ${failed} failed, ${refused} refused`;
    if (why === 'signal') {
      const n = w.running();
      process.stderr.write(`stopping: waiting for the running jobs${n > 0 ? ` (${n}; Ctrl+C again to quit at once, and they run again on another worker)` : ''}\n`);
      await w.close();
      process.stdout.write(`worker stopped: ${counts}\n`);
      return 0;
    }
    process.stderr.write(`perpkit worker: ${why.message}; ${counts}\n`);
    return 1;
  } catch (e) {
    return reportFailure('worker', e, values.debug === true);
  }
}
