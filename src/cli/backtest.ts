/**
 * `perpkit backtest <config.yaml>`: replays a recording through the strategies and the engine and
 * writes report.json, report.html and run.json (wall-clock figures, kept out of the report so the
 * report is byte-identical between runs).
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { backtest } from '../backtest/backtest/backtest';
import { BacktestConfigError, loadBacktestConfig } from '../backtest/backtest/config';
import { ReplayCacheDamaged } from '../backtest/backtest/cache-format';
import { reportFailure } from './failure';
import { missingOutDir, outDirProblem, removeMadeDir } from './out-dir';
import { outContents, outRefusal } from './backtest-out';
import { signalExit, stopOnSignals } from './stop-signal';
import { progressLine } from '../backtest/backtest/progress';
import { botErrorText, firstRejectionLines, l2UnknownText, ordersRejectedText, reportNotices, renderHtml, strategyErrorText } from '../backtest/report/html';
import { StrategyCreateError, strategyErrorsText } from '../bot/strategy/errors';
import { num2, pct, usd } from '../backtest/report/format';
import { durationText, ratioText } from '../backtest/report/ratios';
import { createRuntimeLogger } from '../runtime/logger';
import { reportJson, type BacktestReport } from '../backtest/report/report';
import type { BacktestResult } from '../backtest/backtest/result';
import { argsMessage, usageFailure } from './usage';
import { BACKTEST_USAGE } from './usage-texts';
import { makeDirSync } from '../core/dirs';
import { EXIT_STRATEGY_ERRORS } from './exit-codes';

const byCodeText = (m: Record<string, number>): string => {
  const parts = Object.entries(m).map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
};

/** What the summary must say about the data: events the fill model did not use, an L2 book from partial depth, derived marks. */
function dataNotes(r: BacktestResult): string {
  let out = '';
  if (r.events.unused > 0) out += `  data: ${r.events.unused} L2 book/snapshot events read but not used (the tape fill model trades against quote events; fill.book: l2 uses them)\n`;
  const l2 = r.tape.l2;
  if (l2 !== undefined) {
    const of = [...(l2.depthLines > 0 ? [`${l2.depthLines} of them depth lines`] : []), ...(r.booksAtFrom > 0 ? [`${r.booksAtFrom} the book as recorded up to data.from`] : [])];
    out += `  fill: l2 book, queue ${l2.queue}: ${l2.snapshots} snapshots${of.length > 0 ? ` (${of.join(', ')})` : ''} and ${l2.deltas} deltas applied, ${l2.queueFills} trades reached resting orders, ${l2.takers} taking orders took from ${l2.levelsTaken} levels beyond the best (of ${l2.levelsPlaced} put in the book for them)\n`;
    if (l2.deltasSkipped > 0) out += `  data: ${l2.deltasSkipped} L2 deltas skipped while a book was unknown after a gap or at a file's start (until its next snapshot)\n`;
    if (l2.snapshots > 0 && r.l2Unknown.length > 0) out += `  data: ${l2UnknownText(r.l2Unknown)}: only the quotes' best levels stood in the book there\n`;
    if (l2.unfillable > 0) out += `  fill: ${l2.unfillable} queue fills below the symbol's minimum quantity or notional could not be placed\n`;
    if (l2.depthLines > 0) out += `  data: the recorded L2 book comes from depth lines, each a snapshot of the top levels (at most ${l2.depthLineLevels} a side): deeper levels are unknown\n`;
    if (r.partialDepth !== undefined) out += `  data: the recorded L2 book comes from partial book depth, each message a snapshot of the top levels (${r.partialDepth}): deeper levels are unknown\n`;
  }
  for (const [sym, m] of Object.entries(r.marks)) if (m.source === 'derived') out += `  data: ${sym} marks are derived, not recorded: ${m.method}\n`;
  return out;
}

/** The events of the run: those replayed, and those read, when a configured range left some out. */
function eventsText(e: BacktestResult['events']): string {
  return e.applied < e.read ? `${e.applied} events in the configured range (${e.read} read)` : `${e.read} events`;
}

/** Sharpe, Sortino and Calmar on one line; one note when all three are n/a for the same reason. */
function ratiosLine(s: BacktestReport['summary']): string {
  const n = s.ratioNotes;
  if (s.sharpe === null && s.sortino === null && s.calmar === null && n.sharpe === n.sortino && n.sharpe === n.calmar) return `sharpe/sortino/calmar ${n.sharpe ?? 'n/a'}`;
  return `sharpe ${ratioText(s.sharpe, n.sharpe)}; sortino ${ratioText(s.sortino, n.sortino)}; calmar ${ratioText(s.calmar, n.calmar)}`;
}

export async function runBacktestCli(argv: string[]): Promise<number> {
  let values: { out?: string; overwrite?: boolean; 'no-cache'?: boolean; 'full-tape'?: boolean; 'allow-strategy-errors'?: boolean; 'strategy-logs'?: boolean; debug?: boolean; quiet?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        overwrite: { type: 'boolean' },
        'no-cache': { type: 'boolean' },
        'full-tape': { type: 'boolean' },
        'allow-strategy-errors': { type: 'boolean' },
        'strategy-logs': { type: 'boolean' },
        debug: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    return usageFailure('backtest', argsMessage(e));
  }
  if (values.help === true) {
    process.stdout.write(BACKTEST_USAGE);
    return 0;
  }
  // An empty --out (an unset shell variable) resolved to the current folder and wrote there.
  if (values.out === '') return usageFailure('backtest', '--out must not be empty (the folder to write into)');
  if (positionals.length !== 1) {
    return usageFailure('backtest', `expected one config file, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`);
  }
  const quiet = values.quiet === true;
  // A bar only on a terminal: CI logs get the final line, not thousands of carriage returns.
  const tty = process.stderr.isTTY === true && !quiet;
  // The output folder as far as this run makes it: taken away again when the run fails before
  // writing into it (a refused recording left an empty folder behind).
  let out: string | undefined;
  let made: string | undefined;
  // Ctrl+C (or SIGTERM) stops the replay at its next progress point, says so and writes nothing; a
  // second one quits at once. It ended the process without a word.
  const stop = stopOnSignals((sig) => process.stderr.write(`${tty ? '\n' : ''}perpkit backtest: ${sig}: stopping (again to quit at once)\n`));
  try {
    const cfg = loadBacktestConfig(positionals[0]);
    out = values.out !== undefined ? path.resolve(values.out) : cfg.report.out;
    made = missingOutDir(out);
    const outBad = outDirProblem(out);
    if (outBad !== undefined) {
      if (values.out === undefined) throw new BacktestConfigError(cfg.file, 'report.out', 'a directory (created if missing)', `${out}: ${outBad}`);
      process.stderr.write(`perpkit backtest: --out ${values.out}: expected a directory (created if missing), got ${outBad}\n`);
      return 2;
    }
    // An earlier backtest's own files are replaced (the summary says so); anything else there is
    // refused before the run without --overwrite (sweep and import refuse the same way).
    const held = outContents(out);
    if (held.others.length > 0 && values.overwrite !== true) {
      if (values.out === undefined) throw new BacktestConfigError(cfg.file, 'report.out', "a folder holding nothing but an earlier backtest's output (--overwrite writes beside other things, or give another --out)", outRefusal(out, held.others));
      process.stderr.write(`perpkit backtest: --out ${values.out}: expected a folder holding nothing but an earlier backtest's output, got ${outRefusal(out, held.others)}\n`);
      return 2;
    }
    const t0 = performance.now();
    let lastDraw = 0;
    const replay = (): ReturnType<typeof backtest> => backtest(cfg, {
      cache: values['no-cache'] === true ? false : undefined,
      fullTape: values['full-tape'] === true,
      signal: stop.signal,
      // Lines at the replay's time, not the wall clock's.
      logger: values['strategy-logs'] === true ? (replay) => createRuntimeLogger({ level: 'debug', fd: 2, pretty: false, time: () => replay.now() }) : undefined,
      onNotice: quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
      onProgress: tty
        ? (p) => {
            const now = performance.now();
            if (now - lastDraw < 200) return;
            lastDraw = now;
            process.stderr.write(`\r${progressLine(p, now - t0)}\x1b[K`);
          }
        : undefined,
    });
    let outcome: Awaited<ReturnType<typeof backtest>>;
    try {
      outcome = await replay();
    } catch (e) {
      // The reader removed the damaged cache: a second run builds it again from the recording.
      if (!(e instanceof ReplayCacheDamaged)) throw e;
      process.stderr.write(`${tty ? '\n' : ''}perpkit backtest: ${e.cache}: the replay cache is damaged (${e.problem}); removed it, building it again from ${e.recording} and running again\n`);
      outcome = await replay();
    }
    const wallMs = performance.now() - t0;
    if (tty) process.stderr.write('\n');
    makeDirSync(out);
    writeFileSync(path.join(out, 'report.json'), reportJson(outcome.report));
    writeFileSync(path.join(out, 'report.html'), renderHtml(outcome.report));
    const ev = outcome.result.events.read;
    const run = { wallMs: Math.round(wallMs), events: ev, eventsPerSecond: Math.round((ev * 1000) / Math.max(1, wallMs)), source: outcome.sourceKind, cacheBuildMs: Math.round(outcome.cacheBuildMs), rssMB: Math.round(process.memoryUsage().rss / 1e6) };
    // A run that built the replay cache says how much of its time that took: the rate is not the replay's.
    const built = outcome.cacheBuildMs > 0 ? `; building it took ${(outcome.cacheBuildMs / 1000).toFixed(1)} s of this run` : '';
    writeFileSync(path.join(out, 'run.json'), `${JSON.stringify(run, null, 1)}\n`);
    const s = outcome.report.summary;
    process.stdout.write(
      `backtest: ${eventsText(outcome.result.events)} in ${(wallMs / 1000).toFixed(1)} s (${run.eventsPerSecond} ev/s, from ${run.source}${built})\n` +
        `  pnl ${usd(s.totalPnl)} (return ${pct(s.return)}; buy & hold ${pct(s.benchmarkReturn)}), fees ${usd(s.fees)}, funding ${usd(s.funding)}, max drawdown ${pct(s.maxDrawdown)} (equity every ${durationText(cfg.report.equityIntervalMs)}), fills ${s.fills}\n` +
        `  trades ${s.trades} (win rate ${pct(s.winRate)}, profit factor ${num2(s.profitFactor)}, expectancy ${usd(s.expectancy)})\n` +
        `  ${ratiosLine(s)}\n` +
        `  orders ${s.ordersAccepted} accepted${ordersRejectedText(s)}; denials ${s.denials}${byCodeText(s.denialsByCode)}; rejections ${s.rejections}${byCodeText(s.rejectionsByCode)}\n` +
        // Why: a code alone does not say (the reason was only in --strategy-logs for a denial).
        firstRejectionLines(s, 'firstDenialByCode')
          .map((l) => `  first denial of ${l}\n`)
          .join('') +
        firstRejectionLines(s)
          .map((l) => `  first rejection of ${l}\n`)
          .join('') +
        `  strategy errors: ${strategyErrorText(s)}\n` +
        (s.botErrors > 0 ? `  bot errors: ${botErrorText(s)}\n` : '') +
        (outcome.rotatedParts.length > 0 ? `  data: read ${outcome.files.length} files: ${outcome.files.map((f) => path.relative(process.cwd(), f) || f).join(', ')} (with the rotated parts found beside data.files)\n` : '') +
        dataNotes(outcome.result) +
        reportNotices(outcome.report)
          // Those the lines above say already: strategy errors, ratios, and the data lines (derived marks, unused L2 events, an L2 book from partial depth).
          .filter((n) => !n.startsWith('Strategies threw') && !n.startsWith("The bot's own pipeline threw") && !n.startsWith('Risk ratios') && !n.includes('marks are derived') && !n.includes('L2 book/snapshot events were read') && !n.startsWith('The recorded L2 book comes from partial book depth'))
          .map((n) => `  note: ${n}\n`)
          .join('') +
        `  wrote ${path.join(out, 'report.json')}, report.html, run.json${held.own.length > 0 ? ` (replacing an earlier backtest's ${held.own.join(', ')})` : ''}\n`,
    );
    if (s.botErrors > 0) {
      process.stderr.write(`perpkit backtest: the bot's own pipeline threw ${s.botErrors} times (first: ${botErrorText(s).split('; first: ')[1] ?? ''}); this is a bug in perpkit or in a bus handler, and the results are in doubt. Exit 1\n`);
      return 1;
    }
    if (s.strategyErrors > 0 && values['allow-strategy-errors'] !== true) {
      process.stderr.write(`perpkit backtest: ${strategyErrorsText(s.strategyErrors)}; first: ${strategyErrorText(s).split('; first: ')[1] ?? ''}; the results are those of failing strategies. Exit ${EXIT_STRATEGY_ERRORS}; --allow-strategy-errors to accept them\n`);
      return EXIT_STRATEGY_ERRORS;
    }
    return 0;
  } catch (e) {
    if (tty) process.stderr.write('\n');
    if (out !== undefined) removeMadeDir(out, made);
    if (stop.signal.aborted) {
      const sig = String(stop.signal.reason);
      process.stderr.write(`perpkit backtest: stopped by ${sig}; nothing written\n`);
      return signalExit(sig);
    }
    if (e instanceof StrategyCreateError) {
      // A strategy that cannot be created is a strategy error (exit 3), with nothing to report on.
      const cfgDir = path.dirname(path.resolve(positionals[0]));
      process.stderr.write(`perpkit backtest: ${e.describe(cfgDir)}${values.debug === true ? `\n${e.thrownStack}` : ''}. Exit ${EXIT_STRATEGY_ERRORS}: the backtest cannot run without it\n`);
      return EXIT_STRATEGY_ERRORS;
    }
    return reportFailure('backtest', e, values.debug === true);
  } finally {
    stop.dispose();
  }
}
