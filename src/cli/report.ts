/**
 * `perpkit report compare <a> <b>`: two backtest runs side by side, from their report.json files
 * (an output directory or the file itself). Prints the figures and the differences in what
 * produced them, and writes compare.html.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CompareInputError, compareText, loadReport, renderCompareHtml } from '../backtest/report/compare';
import { argsMessage, usageFailure } from './usage';
import { REPORT_USAGE } from './usage-texts';
import { makeDirSync } from '../core/dirs';

export function runReportCli(argv: string[]): number {
  let values: { out?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    return usageFailure('report', argsMessage(e));
  }
  if (values.help === true) {
    process.stdout.write(REPORT_USAGE);
    return 0;
  }
  const [sub, ...rest] = positionals;
  if (sub !== 'compare') {
    return usageFailure('report', `expected the subcommand 'compare', got ${sub === undefined ? 'nothing' : `'${sub}'`}`);
  }
  if (rest.length !== 2) {
    return usageFailure('report compare', `expected two runs (directories or report.json files), got ${rest.length}`);
  }
  try {
    const out = path.resolve(values.out ?? 'compare.html');
    if (existsSync(out) && statSync(out).isDirectory()) throw new CompareInputError(`--out ${values.out ?? 'compare.html'}: expected the path of the HTML file to write, got a folder`);
    const a = loadReport(rest[0]);
    const b = loadReport(rest[1]);
    // Never over an input, nor over a file that is not a comparison written before (a rerun may replace its own).
    const given = values.out ?? 'compare.html';
    if (out === path.resolve(a.file) || out === path.resolve(b.file)) throw new CompareInputError(`--out ${given}: expected the path of the HTML file to write, got one of the reports compared`);
    if (existsSync(out) && !isComparePage(out)) throw new CompareInputError(`--out ${given}: expected a new file or a comparison written before, got an existing file that is not one (nothing written; give another path)`);
    const names: [string, string] = [rest[0], rest[1]];
    // Its folder is made as backtest --out makes its own (a missing one was a bare ENOENT, exit 1).
    makeDirSync(path.dirname(out));
    writeFileSync(out, renderCompareHtml(a.report, b.report, names));
    process.stdout.write(`${compareText(a.report, b.report, names)}wrote ${out}\n`);
    return 0;
  } catch (e) {
    if (e instanceof CompareInputError) {
      process.stderr.write(`perpkit report compare: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`perpkit report compare: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  }
}

/** Whether `file` is a page `report compare` wrote (its title says so). */
function isComparePage(file: string): boolean {
  const head = readFileSync(file, 'utf8').slice(0, 512);
  return head.startsWith('<!doctype html>') && head.includes('<title>perpkit compare ');
}
