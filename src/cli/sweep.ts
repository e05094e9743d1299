/**
 * `perpkit sweep <config.yaml>`: runs the config's backtest over the grid or random points of its
 * `sweep` block on worker threads and writes the ranked table (sweep.json, sweep.csv, sweep.md).
 * The table is the same for any number of workers, and the same when the jobs run on a queue
 * (`--queue redis://…`, served by `perpkit worker` on any number of machines).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { BacktestConfigError, loadBacktestConfig, type BacktestConfig } from '../backtest/backtest/config';
import { codeChange, sweepCode, type SweepCode } from '../backtest/sweep/code';
import { strategyCodes, type DefinitionCache } from '../backtest/backtest/strategy-module';
import { attemptsOf, type JobResult } from '../backtest/sweep/job';
import { preparedSweep, runSweep, sweepId, type SweepOutcome } from '../backtest/sweep/sweep';
import { runHalving } from '../backtest/sweep/halving';
import type { JobRetry, QueueProgress } from '../backtest/sweep/coordinator';
import { checkQueueUrl, QueueUnavailableError, redactUrl } from '../backtest/sweep/queue';
import { metricOf, naNotes, toCsv, toMarkdown } from '../backtest/sweep/table';
import { searchOf } from '../backtest/sweep/options';
import { runPool, SweepStopped } from '../backtest/sweep/pool';
import { sha256File } from '../backtest/sweep/files';
import { rangeWithoutEvents, recordingHasEvents, recordingSpan } from '../backtest/backtest/open-source';
import { annualizedText, runWalkForward, walkForwardRange, walkForwardMarkdown, type JobRunner, type WalkForwardOutcome } from '../backtest/sweep/walkforward';
import { renderSweepHtml } from '../backtest/report/sweep-html';
import { reportFailure } from './failure';
import { intRange } from '../core/config-schema';
import { SWEEP_KEYS } from '../backtest/backtest/config-schema';
import { outDirProblem } from './out-dir';
import { argsMessage, usageFailure } from './usage';
import { signalExit, stopOnSignals } from './stop-signal';
import { SWEEP_USAGE } from './usage-texts';
import { makeDirSync } from '../core/dirs';
import { LockHeldError, PidLock } from '../core/pid-lock';
import type { Logger } from 'pino';
import { envLogLevel } from './log-level';

const RESULTS = 'results.jsonl';
/** The lock of a sweep's output folder while a sweep writes there (core/pid-lock.ts). */
const LOCK = 'sweep.lock';

/** --resume over rows of other strategy code: refused (exit 2) with this one line. */
class SweepCodeChanged extends Error {}
/** A local sweep with no job finishing for this long prints a progress line. */
const HEARTBEAT_MS = 10_000;

/**
 * The rows of an earlier run of this sweep; another sweep's file is refused, not mixed in. With
 * `ignore` (a run that was not asked to resume), such a file is no rows, and `ignore` says why.
 */
function resumeRows(file: string, sweep: { id: string; code: SweepCode; cfg: BacktestConfig }, ignore: ((why: string) => void) | undefined, notice: (m: string) => void): JobResult[] {
  const { id } = sweep;
  if (!existsSync(file)) return [];
  const out: JobResult[] = [];
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    let row: { sweep?: unknown; code?: unknown; result?: JobResult };
    try {
      row = JSON.parse(line) as typeof row;
    } catch {
      // Every row is appended whole with its newline: a last line without one is a write the
      // sweep was killed in. Its job simply runs again; refusing the file would lose the others.
      if (i === lines.length - 1 && !text.endsWith('\n')) {
        notice(`perpkit sweep: ${file}: line ${i + 1} is torn (the sweep was stopped while writing it); dropped, its job runs again`);
        continue;
      }
      if (ignore !== undefined) {
        ignore(`line ${i + 1} is not a JSON line written by perpkit sweep`);
        return [];
      }
      throw new BacktestConfigError(file, `line ${i + 1}`, 'a JSON line written by perpkit sweep', line.slice(0, 60));
    }
    // Rows of other strategy code: said as such (their id differs too), naming the strategy.
    const changed = row.sweep === id ? undefined : codeChange(sweep.cfg, row.code, sweep.code);
    if (changed !== undefined) {
      if (ignore !== undefined) {
        ignore(`its rows were computed with other code: ${changed}`);
        return [];
      }
      throw new SweepCodeChanged(`cannot resume from ${file}: its rows were computed with other code: ${changed}; --resume does not mix two versions of the code: --overwrite starts afresh and drops them, or give another --out`);
    }
    if (row.sweep !== id) {
      if (ignore !== undefined) {
        ignore(`it holds rows of another sweep (${String(row.sweep)}; this one is ${id})`);
        return [];
      }
      throw new BacktestConfigError(file, `line ${i + 1}`, `a row of this sweep (${id}; the config, its points or its recordings changed since, so --resume cannot reuse it: move the file away)`, `sweep ${String(row.sweep)}`);
    }
    if (row.result !== undefined) out.push(row.result);
  }
  return out;
}


/**
 * The queue's coordinator, loaded only by a sweep that uses it: BullMQ and its Redis client are a
 * quarter of a second of every start otherwise (a sweep on worker threads, and each CLI test).
 */
function coordinator(): Promise<typeof import('../backtest/sweep/coordinator')> {
  return import('../backtest/sweep/coordinator');
}
export async function runSweepCli(argv: string[]): Promise<number> {
  let values: { workers?: string; out?: string; queue?: string; 'grace-ms'?: string; quiet?: boolean; debug?: boolean; resume?: boolean; overwrite?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { workers: { type: 'string' }, queue: { type: 'string' }, 'grace-ms': { type: 'string' }, out: { type: 'string' }, quiet: { type: 'boolean' }, debug: { type: 'boolean' }, resume: { type: 'boolean' }, overwrite: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    return usageFailure('sweep', argsMessage(e));
  }
  if (values.help === true) {
    process.stdout.write(SWEEP_USAGE);
    return 0;
  }
  // An empty --out (an unset shell variable) resolved to the current folder and wrote there.
  if (values.out === '') return usageFailure('sweep', '--out must not be empty (the folder to write into)');
  if (positionals.length !== 1) {
    return usageFailure('sweep', `expected one config file, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`);
  }
  // The bound of sweep.workers in the config (a thread each: thousands would exhaust memory first).
  const maxWorkers = intRange(SWEEP_KEYS.workers).max;
  if (values.workers !== undefined && (!/^\d+$/.test(values.workers) || Number(values.workers) > maxWorkers)) {
    return usageFailure('sweep', `--workers must be a whole number from 0 to ${maxWorkers}, got '${values.workers}'`);
  }
  // A flag for the other way of running would be ignored without a word: refused.
  if (values.queue !== undefined && values.workers !== undefined) return usageFailure('sweep', '--workers applies to a sweep on local threads, not with --queue (each perpkit worker sets its own --concurrency)');
  if (values.queue === undefined && values['grace-ms'] !== undefined) return usageFailure('sweep', '--grace-ms applies with --queue only (how long Redis may be unreachable)');
  const queueBad = values.queue === undefined ? undefined : checkQueueUrl(values.queue);
  if (queueBad !== undefined || (values['grace-ms'] !== undefined && !/^\d+$/.test(values['grace-ms']))) {
    return usageFailure('sweep', queueBad ?? `--grace-ms must be a whole number of milliseconds, got '${values['grace-ms']}'`);
  }
  // A queue sweep's log on stderr (level from PERPKIT_LOG_LEVEL): a job run again after the worker
  // that had it stopped is said there at warn, when the coordinator sees it.
  let queueLog: Logger | undefined;
  if (values.queue !== undefined) {
    const level = envLogLevel();
    if ('error' in level) return usageFailure('sweep', level.error);
    // Loaded here: pino is no part of a sweep on local threads.
    queueLog = (await import('../runtime/logger')).createRuntimeLogger({ level: level.level, fd: 2, singleLine: true, base: { name: 'perpkit-sweep' } });
  }
  let resultsFile = '';
  let doneRows = 0;
  let failedRows = 0;
  let totalJobs = 0;
  let halving = false;
  // Stopped during the walk-forward: the points are done (their rows kept), its windows are not.
  let inWalkForward = false;
  let lock: PidLock | undefined;
  // Ctrl+C (or SIGTERM) stops the sweep: no job starts, the finished results stay, the summary
  // says what to run next; a second one quits at once.
  const stop = stopOnSignals((sig) => process.stderr.write(`perpkit sweep: ${sig}: stopping (again to quit at once)\n`));
  try {
    const cfg = loadBacktestConfig(positionals[0]);
    if (!cfg.sweep) throw new BacktestConfigError(cfg.file, 'sweep', 'a sweep block (method, params, metric)', 'nothing (the key is missing)');
    // The search options are checked now: a bad objective or window is exit 2 before any job runs.
    const search = searchOf(cfg);
    halving = search.halving !== undefined;
    if (search.halving !== undefined && values.resume === true) throw new BacktestConfigError(cfg.file, 'sweep.halving', 'no --resume (a halving sweep reruns; with --queue, rerunning the command collects the jobs the queue finished)', '--resume');
    const workers = values.workers !== undefined ? Number(values.workers) : (cfg.sweep.workers ?? availableParallelism());
    const graceMs = values['grace-ms'] !== undefined ? Number(values['grace-ms']) : 15_000;
    const onProgress = values.quiet === true ? undefined : progressWriter(process.stderr);
    const out = values.out !== undefined ? path.resolve(values.out) : `${cfg.report.out}-sweep`;
    const quiet = values.quiet === true;
    const t0 = performance.now();
    // Everything the config names is checked before the output directory is touched: a config
    // error must not truncate the results.jsonl of an earlier run there.
    // Once: the points are checked here (Ctrl+C stops that), and the jobs go to the run as they are.
    // Seconds for a large grid, with nothing else to show: said, so the wait is not a hang.
    if (!quiet) process.stderr.write("sweep: checking the sweep's points before any job runs (Ctrl+C stops)\n");
    const definitions: DefinitionCache = new Map();
    const { jobs: prepared, notes } = await preparedSweep(cfg, stop.signal, definitions);
    totalJobs = prepared.length;
    const wfRange = search.walkForward !== undefined ? await walkForwardRange(cfg, search.walkForward, quiet ? undefined : (m) => void process.stderr.write(`${m}\n`)) : undefined;
    // A data.from..data.to without events failed every job (exit 1) where a backtest refuses it (exit 2).
    if (wfRange === undefined && (cfg.data.from !== undefined || cfg.data.to !== undefined)) {
      const [from, to] = [cfg.data.from ?? -Infinity, cfg.data.to ?? Infinity];
      const span = await recordingSpan(cfg.data.files, { cache: cfg.data.cache, onNotice: quiet ? undefined : (m) => void process.stderr.write(`${m}\n`) });
      if (span === undefined || span.last < from || span.first >= to) throw rangeWithoutEvents(cfg.file, cfg.data.files, from, to, span);
    } else if (wfRange === undefined && !(await recordingHasEvents(cfg.data.files))) {
      // A recording of headers only failed every job too.
      throw rangeWithoutEvents(cfg.file, cfg.data.files, -Infinity, Infinity, undefined);
    }
    const outBad = outDirProblem(out);
    if (outBad !== undefined) {
      if (values.out === undefined) throw new BacktestConfigError(cfg.file, 'report.out', 'a path whose <out>-sweep is a directory (created if missing)', `${out}: ${outBad}`);
      process.stderr.write(`perpkit sweep: --out ${values.out}: expected a directory (created if missing), got ${outBad}\n`);
      return 2;
    }
    resultsFile = path.join(out, RESULTS);
    // One sweep per folder at a time: two at once both said they wrote their tables, over one
    // results.jsonl holding the rows of both (which then refused --resume for either).
    makeDirSync(out);
    const taking = new PidLock(path.join(out, LOCK));
    try {
      await taking.acquire(Date.now());
    } catch (e) {
      if (!(e instanceof LockHeldError)) throw e;
      const h = e.holder;
      process.stderr.write(`perpkit sweep: ${out} is in use by another sweep (pid ${h.pid} on ${h.host}, since ${new Date(h.since).toISOString()}): wait for it to end, or give another --out (if no such sweep runs, remove ${e.file})\n`);
      return 2;
    }
    lock = taking;
    // Rows of an earlier run are never dropped unasked: hours of jobs went with a forgotten --resume.
    const sameCommandResumes = values.queue !== undefined && search.halving === undefined;
    if (values.resume !== true && values.overwrite !== true && !sameCommandResumes) {
      const rows = existingRows(resultsFile);
      if (rows > 0) {
        // A halving sweep refuses --resume (above): offering it sent the user from one refusal to the other.
        const ways = search.halving !== undefined ? 'a halving sweep does not resume: --overwrite runs it afresh and drops them, or give another --out' : '--resume continues that sweep (the same config and data), --overwrite starts afresh and drops them, or give another --out';
        process.stderr.write(`perpkit sweep: ${out} holds ${rows} row(s) of an earlier sweep in ${RESULTS}: ${ways}\n`);
        return 2;
      }
    }
    const data = await Promise.all(cfg.data.files.map((f) => sha256File(f)));
    // The strategies' code as this process loaded it (the points' check loaded them): in the id, every row and sweep.json.
    const codes = sweepCode(cfg, definitions);
    const id = sweepId(readFileSync(cfg.file, 'utf8'), prepared, data.map((d) => d.sha256), codes);
    // On the queue the same command resumes (docs/backtesting.md): the rows of this sweep are kept,
    // also when the Redis that held its jobs is gone; --resume also runs the failed ones again.
    const said = (m: string): void => void process.stderr.write(`${m}\n`);
    const rowsOf = { id, code: codes, cfg };
    const earlier = values.resume === true ? resumeRows(resultsFile, rowsOf, undefined, said) : sameCommandResumes ? resumeRows(resultsFile, rowsOf, (why) => said(`perpkit sweep: not resuming from ${resultsFile}: ${why}; starting this sweep afresh`), said) : [];
    const done = earlier.filter((r) => r.error === undefined || values.resume !== true);
    writeFileSync(resultsFile, done.map((r) => `${JSON.stringify({ sweep: id, code: codes, result: r })}\n`).join(''));
    const keptFailed = done.filter((r) => r.error !== undefined).length;
    if (!quiet && done.length > 0) process.stderr.write(`resuming: ${done.length} points done, kept from ${resultsFile}${keptFailed > 0 ? ` (${keptFailed} of them failed; --resume runs those again)` : ''}\n`);
    doneRows = done.length;
    failedRows = keptFailed;
    let failedSoFar = 0;
    // Jobs that ran more than once (a queue job taken back from a worker that stopped), by index:
    // every phase's, and the kept rows' (results.jsonl keeps their attempts).
    const ranAgain = new Map<number, number>();
    const noteRanAgain = (r: JobResult): void => {
      if (r.attempts !== undefined && r.attempts > 1) ranAgain.set(r.index, r.attempts);
    };
    done.forEach(noteRanAgain);
    const onNotice = quiet ? undefined : (m: string): void => void process.stderr.write(`${m}\n`);
    // Said at warn when a queue job runs again (its worker stopped).
    const onRetry = queueLog === undefined ? undefined : (e: JobRetry): void => queueLog.warn({ job: e.id, index: e.index, stalled: e.stalled, ...(e.attempts !== undefined ? { attempts: e.attempts } : {}) }, `job ${e.index} runs again: the worker that had it stopped holding it (killed, or lost its lock); its result counts once`);
    // Said even with --quiet: a limit the config sets and this run does not keep.
    if (values.queue === undefined && workers === 0 && cfg.sweep.jobTimeoutMs !== undefined) {
      said(`perpkit sweep: sweep.jobTimeoutMs (${cfg.sweep.jobTimeoutMs} ms) does not apply with --workers 0: the jobs run one after another in this thread, where none can be ended`);
    }
    let lastSaid = performance.now();
    const onResult = (r: JobResult, n: number, total: number): void => {
      lastSaid = performance.now();
      noteRanAgain(r);
      appendFileSync(resultsFile, `${JSON.stringify({ sweep: id, code: codes, result: r })}\n`);
      doneRows++;
      if (r.error !== undefined) failedSoFar++;
      if (r.error !== undefined) failedRows++;
      if (!quiet) process.stderr.write(`job ${r.index} ${r.error === undefined ? 'done' : 'FAILED'} (${n}/${total} done, ${failedSoFar} failed)${r.error ? `: ${r.error}` : ''}\n`);
    };
    const phaseResult = (phase: string) => (r: JobResult, n: number, total: number): void => {
      noteRanAgain(r);
      if (!quiet || r.error !== undefined) process.stderr.write(`${phase}: job ${r.index} ${r.error === undefined ? 'done' : `FAILED: ${r.error}`} (${n}/${total})\n`);
    };
    /** Runs a phase's jobs (walk-forward windows, halving rounds) where the sweep runs. */
    const runner = (log: (phase: string) => (r: JobResult, n: number, total: number) => void): JobRunner =>
      values.queue !== undefined
        ? async (jobs, phase) => (await (await coordinator()).runQueuedJobs(cfg, jobs, { url: values.queue as string, graceMs, onNotice, onProgress, onRetry, onResult: log(phase), signal: stop.signal })).results
        : (jobs, phase) => runPool(jobs, { workers, jobTimeoutMs: cfg.sweep?.jobTimeoutMs, onResult: log(phase), signal: stop.signal });
    // --workers 0 starts no worker: the jobs run in this process, one after another ("on 0 worker(s)" read as nothing ran).
    const where = values.queue !== undefined ? `on the queue at ${redactUrl(values.queue)}` : workers === 0 ? "in the sweep's own process (--workers 0)" : `on ${workers} worker(s)`;
    let o: SweepOutcome;
    let failedJobs: JobResult[];
    // A halving sweep's jobs of every round (its rows are the last round's only).
    let halvingJobs: { jobs: number; rounds: number } | undefined;
    if (search.halving !== undefined) {
      const jobs = prepared;
      const h = await runHalving(cfg, search.halving, search.objective, jobs, runner((phase) => (r, n, total) => {
        appendFileSync(resultsFile, `${JSON.stringify({ sweep: id, code: codes, result: r })}\n`);
        doneRows++;
        if (r.error !== undefined) failedRows++;
        phaseResult(phase)(r, n, total);
      }));
      o = { jobs, results: h.final, ranked: h.ranked, keys: cfg.sweep.params.map((x) => x.key) };
      failedJobs = h.failed;
      halvingJobs = { jobs: h.rounds.reduce((n, r) => n + r.jobs.length, 0), rounds: h.rounds.length };
      writeFileSync(path.join(out, 'halving.json'), `${JSON.stringify({ format: 'perpkit-halving', version: 1, eta: search.halving.eta, rounds: h.rounds }, null, 1)}\n`);
      process.stdout.write(`${h.rounds.map((r) => `halving round ${r.round}: ${r.points.length} points on ${((r.window.to - r.window.from) / 3_600_000).toFixed(2)} h of data${r.minTrades > 0 ? ` (minTrades ${r.minTrades})` : ''}, ${r.failed} failed, kept ${r.kept.length > 0 ? `points ${r.kept.join(', ')}` : '-'}`).join('\n')}\n`);
    } else if (values.queue !== undefined) {
      o = await (await coordinator()).runQueuedSweep(cfg, { jobs: prepared, url: values.queue, graceMs, done, rerunFailed: values.resume === true, onNotice, onResult, onProgress, onRetry, signal: stop.signal });
      failedJobs = o.results.filter((r) => r.error !== undefined);
    } else {
      // Jobs may run for minutes: a line every HEARTBEAT_MS without one says the sweep is alive.
      const kept = doneRows;
      const heartbeat = quiet
        ? undefined
        : setInterval(() => {
            const now = performance.now();
            if (now - lastSaid < HEARTBEAT_MS) return;
            lastSaid = now;
            const left = totalJobs - doneRows;
            const running = Math.min(Math.max(1, workers), left);
            const here = doneRows - kept;
            process.stderr.write(`sweep: ${doneRows}/${totalJobs} done (${failedRows} failed), ${running} running, ${left - running} waiting, ${mmss(now - t0)} elapsed, ETA ${here === 0 ? '?' : mmss(((now - t0) / here) * left)}\n`);
          }, 1000);
      try {
        o = await runSweep(cfg, { jobs: prepared, workers, done, onNotice, onResult, signal: stop.signal });
      } finally {
        clearInterval(heartbeat);
      }
      failedJobs = o.results.filter((r) => r.error !== undefined);
    }
    const objective = search.objective;
    // The walk-forward's training and test runs come before any table is written: the summary
    // line and sweep.json count them with the points' own jobs (they counted the points only).
    let wf: WalkForwardOutcome | undefined;
    if (search.walkForward !== undefined && wfRange !== undefined) {
      inWalkForward = true;
      wf = await runWalkForward(cfg, search.walkForward, wfRange, objective, o.jobs, o.results, runner(phaseResult));
    }
    const failed = [...failedJobs, ...(wf?.failed ?? [])];
    // Every job that ran (a halving sweep's rounds are in halving.json: its line counts its points).
    const jobsRan = halvingJobs?.jobs ?? o.jobs.length + (wf === undefined ? 0 : wf.jobs.inSample + wf.jobs.outOfSample);
    const wfCounts = wf === undefined ? undefined : { allData: o.jobs.length, windows: wf.jobs.windows, inSample: wf.jobs.inSample, outOfSample: wf.jobs.outOfSample, failedAllData: failedJobs.length, failedInSample: wf.jobs.failedInSample, failedOutOfSample: wf.jobs.failedOutOfSample };
    // What the summary line says, for a reader of the file: the jobs (with a walk-forward, every
    // one it ran, by part), failed jobs (of every halving round, every walk-forward part), rows
    // ranked and rows not (failed or excluded), and the notes (points that repeat another).
    const ranked = o.ranked.filter((r) => r.metric !== null).length;
    const counts = { jobs: wf === undefined && halvingJobs === undefined ? o.ranked.length : jobsRan, failed: failed.length, ranked, notRanked: o.ranked.length - ranked, ...(wfCounts === undefined ? {} : { walkForward: wfCounts }) };
    // What ranked the rows, only: with an objective, sweep.metric (its default, sharpe, when the
    // config has none) ranked nothing, and a reader of the file took it for the ranking figure.
    const byMetric = cfg.sweep.search?.objective === undefined;
    const doc = { format: 'perpkit-sweep', version: 1, method: cfg.sweep.method, seed: cfg.sweep.seed, ...(byMetric ? { metric: cfg.sweep.metric } : {}), order: objective.order, objective: objective.name, minTrades: objective.minTrades, params: cfg.sweep.params, code: Object.fromEntries(strategyCodes(cfg, definitions).map((c) => [c.id, { module: c.module, ...c.code }])), counts, ...(notes.length > 0 ? { notes } : {}), rows: o.ranked };
    writeFileSync(path.join(out, 'sweep.json'), `${JSON.stringify(doc, null, 1)}\n`);
    writeFileSync(path.join(out, 'sweep.csv'), toCsv(o.ranked, o.keys, objective.name));
    const md = toMarkdown(o.ranked, o.keys, objective.name);
    writeFileSync(path.join(out, 'sweep.md'), md);
    writeFileSync(path.join(out, 'sweep.html'), renderSweepHtml(doc, cfg));
    // The top ten rows, how many more sweep.md holds, and why any ratio is n/a.
    const shown = Math.min(10, o.ranked.length);
    const more = o.ranked.length - shown;
    process.stdout.write(`${md.split('\n').slice(0, shown + 2).join('\n')}\n${more > 0 ? `... ${more} more row(s) in sweep.md\n` : ''}${naNotes(o.ranked).map((l) => `${l}\n`).join('')}`);
    if (wf !== undefined) {
      writeFileSync(path.join(out, 'walkforward.json'), `${JSON.stringify({ format: 'perpkit-walkforward', version: 1, ...wf, failed: wf.failed.map((r) => ({ index: r.index, point: r.point, error: r.error, ...attemptsOf(r) })) }, null, 1)}\n`);
      writeFileSync(path.join(out, 'walkforward.md'), walkForwardMarkdown(wf, o.keys));
      const pct = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '-' : `${(v * 100).toFixed(3)}%`);
      process.stdout.write(`walk-forward: ${wf.windows.length} windows, ${wf.outOfSample.windows} tested; out-of-sample return ${pct(wf.outOfSample.return)} (annualized ${annualizedText(wf.outOfSample.annualized, wf.outOfSample.spanMs)}) against the in-sample optimum's ${pct(wf.inSample?.return)} (annualized ${annualizedText(wf.inSample?.annualized, wf.inSample?.spanMs)}); ratio ${wf.ratio === null ? '-' : wf.ratio.toPrecision(4)}; ${wf.failed.length} of its ${wf.jobs.inSample + wf.jobs.outOfSample} job(s) failed; wrote walkforward.json, walkforward.md\n`);
    }
    const excluded = o.ranked.filter((r) => r.excluded !== null).length;
    // Ranked by a report figure a short run does not have (a ratio under its minimum of days): say so.
    const metric = cfg.sweep.metric;
    const noMetric = search.objective.name === metric ? o.ranked.filter((r) => r.error === null && r.summary !== null && metricOf(r.summary, metric) === null) : [];
    const rankedRows = o.ranked.filter((r) => r.metric !== null).length;
    // A figure computed from no fill is no result: counted, so a table topped by one is not read as a winner.
    const idle = o.ranked.filter((r) => r.metric !== null && r.noTrades).length;
    if (noMetric.length > 0 && rankedRows > 0) process.stderr.write(`perpkit sweep: ${noMetric.length} of ${o.jobs.length} points have no ${metric} (${Object.values(noMetric[0].summary?.ratioNotes ?? {}).find((n) => n !== null) ?? 'null in the report'}); they rank last: rank short runs by totalPnl or return\n`);
    const jobsText = halvingJobs !== undefined ? `${o.jobs.length} points (${halvingJobs.jobs} jobs in ${halvingJobs.rounds} rounds)` : wfCounts === undefined ? `${o.jobs.length} jobs` : `${jobsRan} jobs (${wfCounts.allData} points on all the data, ${wfCounts.windows} windows x ${o.jobs.length} points in-sample, ${wfCounts.outOfSample} out-of-sample)`;
    const failedParts = wfCounts === undefined || failed.length === 0 ? '' : ` (${wfCounts.failedAllData} on all the data, ${wfCounts.failedInSample} in-sample, ${wfCounts.failedOutOfSample} out-of-sample)`;
    process.stdout.write(`sweep: ${jobsText} ${where} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${jobsRan - failed.length} finished, ${failed.length} failed${failedParts}${excluded > 0 ? `, ${excluded} not ranked (${o.ranked.find((r) => r.excluded !== null)?.excluded ?? ''})` : ''}${idle > 0 ? `, ${idle} never traded (0 fills; ranked after every point that traded${idle === rankedRows ? ': no ranked point traded' : ''})` : ''}${ranAgainText(ranAgain)}; ranked by ${objective.name}; wrote ${path.join(out, 'sweep.json')}, sweep.csv, sweep.md, sweep.html, ${RESULTS}\n`);
    // Said once, under the summary (and in sweep.json's and sweep.html's notes).
    for (const n of notes) process.stdout.write(`${n}\n`);
    let code = 0;
    if (failed.length > 0) {
      process.stderr.write(`perpkit sweep: ${failed.length} of ${jobsRan} jobs failed${failedParts}; first: job ${failed[0].index} ${JSON.stringify(failed[0].point)}: ${failed[0].error ?? ''}\n`);
      code = 1;
    }
    // A table with no ranked row has no best point: the sweep found nothing, and says so.
    const unranked = o.ranked.filter((r) => r.metric === null && r.error === null);
    if (rankedRows === 0 && unranked.length > 0) {
      const hint = noMetric.length > 0 ? `: rank short runs by totalPnl or return` : search.objective.minTrades > 0 && unranked.some((r) => r.summary !== null && r.summary.trades < search.objective.minTrades) ? ': lower sweep.minTrades' : '';
      process.stderr.write(`perpkit sweep: no point is ranked by ${objective.name}: ${unranked.length} of ${o.ranked.length} not ranked (first: job ${unranked[0].index}: ${unranked[0].excluded ?? ''}), so the table has no best point${hint}\n`);
      code = 1;
    }
    return code;
  } catch (e) {
    if (e instanceof SweepStopped) {
      // Stopped while the points were checked (a large grid takes seconds): nothing ran or was written.
      if (resultsFile === '') {
        process.stderr.write(`perpkit sweep: ${e.message} while checking the sweep's points, before any job ran; nothing written\n`);
        return signalExit(e.reason);
      }
      const rest = totalJobs - doneRows;
      const next = halving
        ? values.queue !== undefined
          ? 'a halving sweep does not resume from them: running the same command again collects what the queue still holds and runs the rest'
          : 'a halving sweep does not resume: run it again'
        : values.queue !== undefined
          ? `the queued jobs stay on the queue and its workers go on with them: run the same command again to collect them${rest > 0 ? ` (${rest} to go)` : ''}`
          : rest > 0 || !inWalkForward
            ? `run the same command with --resume to run the other ${rest}`
            : 'run the same command with --resume: the points are kept and the walk-forward runs again';
      // A halving sweep runs more jobs than it has points (each round its survivors again).
      const counts = halving ? `${doneRows} jobs of its rounds done` : `${doneRows} of ${totalJobs} jobs done`;
      process.stderr.write(`perpkit sweep: ${e.message}: ${counts} (${failedRows} failed), their results kept in ${resultsFile}; no table written; ${next}\n`);
      return signalExit(e.reason);
    }
    if (e instanceof QueueUnavailableError) {
      const again = halving ? 'a halving sweep does not resume from them: running the same command again collects what the queue still holds and runs the rest' : 'run the same command again to resume (they are not run again)';
      process.stderr.write(`perpkit sweep: ${e.message}; ${doneRows} job(s) done (${failedRows} failed), their results kept in ${resultsFile}; ${again}\n`);
      return 1;
    }
    if (e instanceof SweepCodeChanged) {
      process.stderr.write(`perpkit sweep: ${e.message}\n`);
      return 2;
    }
    return reportFailure('sweep', e, values.debug === true);
  } finally {
    stop.dispose();
    await lock?.release().catch(() => undefined);
  }
}

const mmss = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

/** Between two progress lines on a terminal, and into a log (stderr not a terminal); the last line always comes. */
export const PROGRESS_EVERY_MS = { tty: 5_000, log: 30_000 };

/**
 * The queue's progress, reported every second, written as a line every few seconds on a terminal
 * and every 30 s into a log, and the last one: a sweep of hours wrote thousands of lines.
 */
export function progressWriter(out: { isTTY?: boolean; write(s: string): unknown }, now: () => number = () => performance.now()): (p: QueueProgress) => void {
  const every = out.isTTY === true ? PROGRESS_EVERY_MS.tty : PROGRESS_EVERY_MS.log;
  let last = -Infinity;
  return (p) => {
    if (p.done < p.total && now() - last < every) return;
    last = now();
    out.write(`${progressLine(p)}\n`);
  };
}

export function progressLine(p: QueueProgress): string {
  return `queue: ${p.done}/${p.total} done, ${p.running} running, ${p.waiting} waiting, ${p.failed} failed, ETA ${p.etaMs === undefined ? '?' : mmss(p.etaMs)}`;
}

/** What the summary line says of jobs that ran more than once (a queue job whose worker stopped), or ''. */
export function ranAgainText(ranAgain: ReadonlyMap<number, number>): string {
  if (ranAgain.size === 0) return '';
  const jobs = [...ranAgain].sort((a, b) => a[0] - b[0]);
  const shown = jobs.slice(0, 5).map(([i, n]) => `job ${i}: ${n} attempts`).join(', ');
  return `, ${ranAgain.size} job(s) ran again after a worker stopped (${shown}${jobs.length > 5 ? ', ...' : ''}; each counted once)`;
}

/** Rows in a results file (its non-empty lines), 0 when there is none. */
function existingRows(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
}
