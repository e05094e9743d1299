/**
 * report.html: one self-contained file that opens offline in any browser. At the top, what
 * produced it (strategy, parameters, data with sha256, models, version, config hash); then what
 * went wrong or is missing, in words; the headline figures; interactive charts (price candles with
 * fills, equity with benchmark, drawdown and leverage: chart-script.ts); trade statistics, the
 * returns table, per-period and per-strategy tables and the trades. Built only from report.json,
 * with the charting library inlined from the installed package: the same run gives the same bytes.
 */
import { Dec } from '../../core/decimal';
import { CHART_LIBRARY_NOTE, CHART_SCRIPT, chartLibrary } from './chart-script';
import { chartData } from './chart-data';
import { duration, esc, iso, isoMinute, jsonForScript, num2, pct, qty, table, usd } from './format';
import { durationText, ratioText } from './ratios';
import type { BacktestReport } from './report';
import type { SilenceRow } from '../backtest/result';
import { LONG_SILENCE_MS } from '../../market-data/silence';
import { SKIPPED_BEFORE_FROM } from '../../market-data/format';
import { strategyErrorLine } from '../../bot/strategy/errors';
import { EXPIRED_UNFILLED, TRIGGERED_EXPIRED_UNFILLED, UNPLACED_AFTER_FILL } from '../../bot/execution/refusals';

/** Trades listed in the page (all of them are in report.json). */
const MAX_TRADE_ROWS = 500;

const codes = (m: Record<string, number>): string => {
  const parts = Object.entries(m).map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
};

/** What the summary says of strategy errors: none, or the count, the first and who was stopped. */
export function strategyErrorText(s: BacktestReport['summary']): string {
  const f = s.firstStrategyError;
  if (s.strategyErrors === 0 || f === null) return 'none';
  const stopped = s.strategiesStopped.length > 0 ? `; stopped for their errors: ${s.strategiesStopped.join(', ')}` : '';
  return `${s.strategyErrors}; first: ${strategyErrorLine(f)}${stopped}`;
}

/**
 * Orders that came to nothing without an error code, after the accepted count: `, 11 rejected on
 * arrival (makerOnly ...), 67 expired with nothing filled (...)`, or nothing.
 */
export function ordersRejectedText(s: Pick<BacktestReport['summary'], 'ordersRejected' | 'ordersExpiredUnfilled' | 'ordersExpiredPartial'>): string {
  const rejected = s.ordersRejected > 0 ? `, ${s.ordersRejected} rejected on arrival (makerOnly orders that would have taken liquidity)` : '';
  const unfilled = s.ordersExpiredUnfilled > 0 ? `${rejected}, ${s.ordersExpiredUnfilled} ${EXPIRED_UNFILLED}` : rejected;
  // Reports written before the count existed have none.
  const partial = s.ordersExpiredPartial ?? 0;
  return partial > 0 ? `${unfilled}, ${partial} ${EXPIRED_PARTIAL}` : unfilled;
}

/** What the summary calls an order that filled in part and expired with the rest. */
export const EXPIRED_PARTIAL = 'expired partly filled (a MARKET or IOC order that took the liquidity there was; the rest expired)';

/**
 * The first rejection of each venue code, what the venue said (`10001: [mm] amend: <message>`),
 * or with `which` the first denial of each risk code, the risk engine's reason
 * (`OFF_GRID: [g] place: <reason>`).
 */
export function firstRejectionLines(s: BacktestReport['summary'], which: 'firstRejectionByCode' | 'firstDenialByCode' = 'firstRejectionByCode'): string[] {
  return Object.entries(s[which]).map(([code, f]) => `${code}: [${f.strategyId}] ${f.intent}: ${f.message}`);
}

/** What the summary says of the bot's own unexpected exceptions: none, or the count and the first. */
export function botErrorText(s: BacktestReport['summary']): string {
  const f = s.firstBotError;
  if (s.botErrors === 0 || f === null) return 'none';
  return `${s.botErrors}; first: ${f.context}: ${f.message}${f.at === '' ? '' : ` (${f.at})`}`;
}

/** What the tape could not replay, in words ("3 trades off the tick or step grid were skipped, ..."); undefined when it replayed everything. */
function tapeSkipsText(t: BacktestReport['data']['tape']): string | undefined {
  const parts: string[] = [];
  const add = (n: number, what: string): void => {
    if (n > 0) parts.push(`${n} ${what}`);
  };
  add(t.skipped.offGrid, 'trade(s) off the tick or step grid were skipped');
  add(t.skipped.belowMinimum, 'trade(s) below the minimum quantity or notional were skipped');
  add(t.skipped.refused, 'trade(s) were refused by the engine');
  add(t.skipped.otherSymbol, "trade(s) of a symbol the recording's header does not list were skipped");
  add(t.quotes.skipped, 'book quote(s) off the grid or below the minimum were skipped');
  add(t.refusals, 'mark, funding or cancel call(s) were refused');
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** What a reader must know before reading the figures, in words (also printed by the CLI). */
/**
 * A configured time range (`data.from`, `data.to`) the data covers only in part: the run is that
 * of the part, and nothing else would say that most of the range held no events. Gaps under a
 * second, or under 5 % of the range (the last event falls just before `to`; sparse data), are not
 * worth a word.
 */
function coverageNotice(range: BacktestReport['identity']['range']): string | undefined {
  const { start, end, from, to } = range;
  if (from === null && to === null) return undefined;
  const lo = from ?? start;
  const hi = to ?? end;
  const span = hi - lo;
  const empty = Math.max(0, start - lo) + Math.max(0, hi - end);
  if (span <= 0 || empty < 1000 || empty < 0.05 * span) return undefined;
  return `The data covers only part of the configured time range: ${iso(lo)} to ${iso(hi)} (${durationText(span)}) was configured, and the events run from ${iso(start)} to ${iso(end)} (${durationText(end - start)}); ${durationText(empty)} of the range held no data.`;
}

/** The recording's gap events in the range, in words: how many, and the first. */
function gapsNotice(gaps: BacktestReport['data']['gaps'], l2: boolean): string | undefined {
  const g = gaps.first[0];
  if (gaps.count === 0 || g === undefined) return undefined;
  const what = g.symbol === null ? `the ${g.stream} stream` : `${g.symbol} (${g.stream} stream)`;
  const book = l2 && g.stream === 'public' && !g.reason.includes('snapshot') ? '; after a gap of a book, the L2 book is unknown until its next snapshot' : '';
  return `The recording has ${gaps.count} gap(s) in the replayed range, where its stream was lost and data may be missing (report data.gaps); the first: ${what} from ${iso(g.from)} to ${iso(g.time)}, ${g.reason}${book}. Fills and marks around a gap are not those of the recorded market.`;
}

/** Silences named in the notice (report.json data.silences lists up to 20, and the longest). */
const SILENCES_NOTED = 3;

/** A silence in words: its length and where it lies, in a file or between two. */
export function silenceText(x: SilenceRow): string {
  if (x.nextFile === null) return `${durationText(x.ms)} in ${x.file} from ${iso(x.from)} to ${iso(x.to)}`;
  return `${durationText(x.ms)} between ${x.file} (its last event at ${iso(x.from)}) and ${x.nextFile} (its first at ${iso(x.to)})`;
}

/**
 * The range's silences longer than a minute, in words: the time the data holds nothing of (a
 * recorder that was down, a hole between two files), which the figures would otherwise present as
 * watched. The first few, and the longest when it is not among them.
 */
function silencesNotice(s: BacktestReport['data']['silences'], span: number): string | undefined {
  if (s.count === 0) return undefined;
  const noted = s.first.slice(0, SILENCES_NOTED);
  const parts = noted.map(silenceText);
  const longest = s.longest;
  const longestNoted = longest === null || noted.some((x) => x.from === longest.from && x.to === longest.to);
  if (s.count > noted.length) parts.push(`${s.count - noted.length} more${longestNoted ? '' : `, the longest ${silenceText(longest)}`}`);
  const share = span > 0 ? ` (${pct(s.ms / span)} of the run)` : '';
  return `The data holds nothing for ${durationText(s.ms)}${share}: ${s.count} silence(s) longer than ${durationText(LONG_SILENCE_MS)} (report summary.silences, data.silences): ${parts.join('; ')}. There the strategies saw no mark or trade, their stops could not trigger and any funding settlement is missing: PnL, drawdown and fills are those of a market watched only in part.`;
}

/**
 * What the import of the recording left out (its header's `skipped`), in words. The messages an
 * import read before its --from are the range its user chose, not data left out: said apart, and
 * no notice of their own (a file of the run that holds them has them out of the count already).
 */
function importSkippedNotice(skipped: BacktestReport['data']['importSkipped']): string | undefined {
  const rows = Object.entries(skipped).filter(([why, n]) => n > 0 && why !== SKIPPED_BEFORE_FROM);
  if (rows.length === 0) return undefined;
  const total = rows.reduce((n, [, k]) => n + k, 0);
  const beforeFrom = skipped[SKIPPED_BEFORE_FROM] ?? 0;
  const apart = beforeFrom > 0 ? ` Not among them: ${beforeFrom} message(s) before the --from of the import, outside the range it was asked for.` : '';
  return `The import of the recording left out ${total} input message(s) (report data.importSkipped): ${rows.map(([why, n]) => `${why} ${n}`).join(', ')}.${apart}`;
}

export function reportNotices(r: BacktestReport): string[] {
  const s = r.summary;
  const out: string[] = [];
  const span = r.data.endTime - r.data.startTime;
  const coverage = coverageNotice(r.identity.range);
  if (coverage !== undefined) out.push(coverage);
  const gaps = gapsNotice(r.data.gaps, r.data.tape.l2 !== undefined);
  if (gaps !== undefined) out.push(gaps);
  const silences = silencesNotice(r.data.silences, span);
  if (silences !== undefined) out.push(silences);
  const importSkipped = importSkippedNotice(r.data.importSkipped);
  if (importSkipped !== undefined) out.push(importSkipped);
  if (s.fills === 0) out.push(`No fills: the strategies placed ${s.ordersAccepted} accepted order(s) and none traded, so there are no trades, and PnL, fees and win rate describe an idle account.`);
  else if (s.trades === 0) out.push(`No closed trade: the position was still open at the end (${s.fills} fill(s)); trade statistics need a round trip.`);
  else {
    // PnL counts the open positions' unrealized PnL; the trade statistics only closed trades: say so,
    // or a losing run can show a 100 % win rate and nothing to explain it.
    // The positions as the engine ends them, and the account's unrealized PnL (an open trade's size
    // is its largest, and its pnl holds the realized PnL of its partial closes too).
    const open = r.trades.filter((t) => t.exitTime === null);
    const held = r.finalPositions.filter((p) => !new Dec(p.quantity).isZero());
    const side = (p: BacktestReport['finalPositions'][number]): string => (p.positionSide !== 'BOTH' ? p.positionSide : new Dec(p.quantity).isNegative() ? 'SHORT' : 'LONG');
    if (open.length > 0 && held.length > 0) {
      out.push(`${held.length === 1 ? 'A position was' : `${held.length} positions were`} still open at the end (${held.map((p) => `${p.symbol} ${side(p)} ${new Dec(p.quantity).abs().toFixed()}`).join(', ')}; unrealized ${usd(s.unrealizedPnl)}): the PnL counts it, the trade statistics only the ${s.trades} closed trade(s).`);
    }
  }
  if (s.wallClockReads > 0) {
    const who = Object.entries(s.wallClockReaders).map(([id, first]) => `${id} (first in ${first})`).join(', ');
    out.push(`Strategies read the wall clock ${s.wallClockReads} time(s): ${who}. A backtest runs on the replay's time, hours of it in seconds of wall time, so what they timed by it (throttles, cool-downs, time of day) did not happen as written: read ctx.clock.now().`);
  }
  if (s.triggeredExpiredUnfilled > 0) {
    out.push(`${s.triggeredExpiredUnfilled} order(s) ${TRIGGERED_EXPIRED_UNFILLED}: the stop or take-profit triggered when the tape had no quote on the side it takes (a recorded trade had gone through the last one, and no depth or quote line had come since). The PnL holds the losses of staying in, not those of the exit the strategy asked for.`);
  }
  const rejected = s.firstConditionRejection;
  if ((s.conditionsRejected ?? 0) > 0 && rejected !== null && rejected !== undefined) {
    const why = rejected.code === 0 ? 'the venue did not say why' : `${rejected.code} ${rejected.message}`;
    out.push(`${s.conditionsRejected} condition order(s) fired and the venue refused the order each placed (REJECTED): the position it was to open or close stayed as it was. First: ${rejected.symbol} ${rejected.type} ${rejected.conditionId} at ${new Date(rejected.time).toISOString()}: ${why}.`);
  }
  const leg = s.firstLegRejection;
  if ((s.legsRejected ?? 0) > 0 && leg !== null && leg !== undefined) {
    const why = leg.code === 0 ? 'the venue did not say why' : `${leg.code} ${leg.message}`;
    out.push(`${s.legsRejected} leg(s) of strategy orders ended REJECTED: the order or stop each was to place never stood (a bracket's exit among them leaves its position unprotected). First: ${leg.symbol} ${leg.strategyType} ${leg.strategyId} leg ${leg.strategySubId} (${leg.type}) at ${new Date(leg.time).toISOString()}: ${why}.`);
  }
  const unplaced = s.firstLegUnplaced;
  if ((s.legsUnplaced ?? 0) > 0 && unplaced !== null && unplaced !== undefined) {
    out.push(`${s.legsUnplaced} leg(s) of strategy orders ${UNPLACED_AFTER_FILL}. First: ${unplaced.symbol} ${unplaced.strategyType} ${unplaced.strategyId} leg ${unplaced.strategySubId} (${unplaced.type}) at ${new Date(unplaced.time).toISOString()}.`);
  }
  if (s.sharpe === null && s.ratioNotes.sharpe !== null && s.ratioNotes.sharpe.includes('needs')) out.push(`Risk ratios (Sharpe, Sortino, Calmar) are not shown: ${s.ratioNotes.sharpe.replace(/^n\/a: /, '')}. A ratio from ${durationText(span)} of returns says nothing about a year.`);
  if (s.strategyErrors > 0) out.push(`Strategies threw ${s.strategyErrors} time(s): ${strategyErrorText(s)}. The figures are those of failing strategies.`);
  if (s.botErrors > 0) out.push(`The bot's own pipeline threw ${s.botErrors} time(s): ${botErrorText(s)}. This is a bug, not a strategy's error; the figures are in doubt.`);
  if (s.liquidations > 0) out.push(`The account was liquidated ${s.liquidations} time(s).`);
  for (const [sym, m] of Object.entries(r.data.marks)) if (m.source === 'derived') out.push(`${sym} marks are derived, not recorded: ${m.method}.`);
  const l2 = r.data.tape.l2;
  if (l2 !== undefined && r.data.partialDepth !== undefined) out.push(`The recorded L2 book comes from partial book depth, each message a snapshot of the top levels (${r.data.partialDepth}): levels deeper than that are unknown, so an order walking past them finds no recorded liquidity there.`);
  if (l2 !== undefined && l2.depthLines > 0) out.push(`The recorded L2 book comes from ${l2.depthLines} depth lines, each a snapshot of the top levels (at most ${l2.depthLineLevels} a side) that replaced the book: levels deeper than that are unknown, so an order walking past them finds no recorded liquidity there, and the book between two lines is the earlier one.`);
  if (l2 !== undefined && l2.snapshots > 0 && r.data.l2Unknown.length > 0) out.push(`fill.book is l2, but ${l2UnknownText(r.data.l2Unknown)}: there only the quotes' best levels stood in the book; queue positions and walks through deeper levels are not those of the recorded market (the import reports why a file has no snapshot).`);
  if (l2 !== undefined && l2.snapshots === 0) out.push(`fill.book is l2, but the data has no L2 snapshot: the recorded book was never known, so only the quotes' best levels stood in it${l2.deltasSkipped > 0 ? ` and ${l2.deltasSkipped} L2 deltas were skipped` : ''}; queue positions and walks through deeper levels are not those of the recorded market (the import reports why it has no snapshot).`);
  const skipped = tapeSkipsText(r.data.tape);
  if (skipped !== undefined) out.push(`The recording does not fit the symbols' grids and limits everywhere: ${skipped} (report data.tape); fills and marks around them are not those of the recorded market.`);
  if (r.data.events.unused > 0) {
    // The top-of-book model: without quote or depth events nothing stood in the book for takers.
    const why = r.data.tape.quotes.depths === 0 ? '; the data has no quote or depth events either, so no recorded liquidity stood in the book for market, IOC or crossing orders: set fill.book: l2 to replay the recorded book' : ': set fill.book: l2 to replay the recorded book from them';
    out.push(`${r.data.events.unused} L2 book/snapshot events were read but not used by the tape fill model (fill.book is top)${why}.`);
  }
  return out;
}

/** The files of a run in which no recorded L2 book was known, for the notes (report data.l2Unknown). */
export function l2UnknownText(files: readonly string[]): string {
  const named = files.slice(0, 5).join(', ');
  const more = files.length > 5 ? ` and ${files.length - 5} more` : '';
  return `${files.length === 1 ? 'a file holds' : `${files.length} files hold`} no L2 snapshot (${named}${more}; report data.l2Unknown), and a recorded book does not carry over from the file before`;
}

function identityTable(r: BacktestReport): string {
  const id = r.identity;
  const rows: Array<[string, string | { html: string }]> = [
    ...id.strategies.map((s): [string, string | { html: string }] => [`Strategy ${s.id}`, { html: `<b>${esc(s.module)}</b> <code>${esc(JSON.stringify(s.params))}</code>${s.code === undefined ? '' : ` <code class="hash">code sha256 ${esc(s.code.sha256)} (${esc(s.code.files.join(', '))})</code>`}` }]),
    ...id.data.map((d, i): [string, string | { html: string }] => [i === 0 ? 'Data' : '', { html: `${esc(d.file)} (${(d.bytes / 1e6).toFixed(1)} MB) <code class="hash">sha256 ${esc(d.sha256)}</code>` }]),
    ['Time range', `${iso(id.range.start)} to ${iso(id.range.end)} (${durationText(id.range.end - id.range.start)})${id.range.from !== null || id.range.to !== null ? `; configured ${id.range.from === null ? 'start' : iso(id.range.from)} to ${id.range.to === null ? 'end' : iso(id.range.to)}` : ''}`],
    ['Mark prices', id.marks.join('; ')],
    ['Fill model', id.fillModel],
    ['Latency model', id.latencyModel],
    ['Fees', id.fees],
    ['Initial balance', `${usd(r.config.balance)} USDT`],
    ['perpkit', id.perpkitVersion],
    ['Config hash', { html: `<code>${esc(id.configHash)}</code>` }],
  ];
  return `<table class="identity" id="identity"><tbody>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${typeof v === 'string' ? esc(v) : v.html}</td></tr>`).join('')}</tbody></table>`;
}

function headline(r: BacktestReport): string {
  const s = r.summary;
  const cards: Array<[string, string, string?]> = [
    ['Total PnL', `${usd(s.totalPnl)} USDT`, Number(s.totalPnl) < 0 ? 'neg' : 'pos'],
    ['Return', pct(s.return)],
    ['Buy & hold', pct(s.benchmarkReturn)],
    ['Max drawdown', `${pct(s.maxDrawdown)} (${usd(s.maxDrawdownAmount)})`],
    ['Sharpe', ratioText(s.sharpe, s.ratioNotes.sharpe)],
    ['Sortino', ratioText(s.sortino, s.ratioNotes.sortino)],
    ['Calmar', ratioText(s.calmar, s.ratioNotes.calmar)],
    ['Trades', `${s.trades} closed${r.tradeStats.open > 0 ? `, ${r.tradeStats.open} open` : ''}`],
    ['Win rate', pct(s.winRate, s.trades === 0 ? 'n/a: no closed trade' : 'n/a')],
    ['Profit factor', num2(s.profitFactor, s.trades === 0 ? 'n/a: no closed trade' : 'n/a: no losing trade')],
    ['Expectancy', s.expectancy === null ? 'n/a: no closed trade' : `${usd(s.expectancy)} per trade`],
    ['Exposure', `${pct(s.exposure)} of the time; avg gross leverage ${num2(s.avgGrossLeverage)}`],
    ['Fees', `${usd(s.fees)} (${pct(s.feesShare, 'n/a: gross PnL 0')} of |gross PnL|)`],
    ['Funding', `${usd(s.funding)} (${pct(s.fundingShare, 'n/a: gross PnL 0')} of |gross PnL| paid)`],
    ['Turnover', s.turnover === null ? 'n/a' : `${num2(s.turnover)}x the initial balance (${usd(s.volume)})`],
  ];
  return `<div class="cards" id="headline">${cards.map(([k, v, c]) => `<div class="card"><div class="k">${esc(k)}</div><div class="v${c ? ` ${c}` : ''}">${esc(v)}</div></div>`).join('')}</div>`;
}

function tradeStatsTable(r: BacktestReport): string {
  const t = r.tradeStats;
  const side = (x: typeof t.long): string => `${x.trades} trades, ${pct(x.winRate, 'n/a')} won, net ${usd(x.netPnl)}`;
  const rows: Array<[string, string]> = [
    ['Closed / open trades', `${t.closed} / ${t.open}`],
    ['Won / lost', `${t.wins} / ${t.losses}`],
    ['Average win / loss', `${usd(t.avgWin)} / ${usd(t.avgLoss)}`],
    ['Largest win / loss', `${usd(t.largestWin)} / ${usd(t.largestLoss)}`],
    ['Longest losing streak', `${t.longestLosingStreak} trades`],
    ['Average duration', duration(t.avgDurationMs)],
    ['Long', side(t.long)],
    ['Short', side(t.short)],
    ['Gross PnL (realized + unrealized)', usd(r.summary.grossPnl)],
    ['Fills / closing fills', `${r.summary.fills} / ${r.summary.closingFills}`],
  ];
  return table(['Trade statistics', ''], rows);
}

function tradesTable(r: BacktestReport): string {
  const ts = r.trades.slice(0, MAX_TRADE_ROWS);
  const note = r.trades.length > MAX_TRADE_ROWS ? `<p class="note">The first ${MAX_TRADE_ROWS} of ${r.trades.length} trades; all are in report.json.</p>` : '';
  if (r.trades.length === 0) return '<p class="note">No trades.</p>';
  return `${note}${table(
    ['Entry', 'Exit', 'Symbol', 'Side', 'Size', 'Entry price', 'Exit price', 'PnL', 'Fees', 'Funding', 'Net', 'MAE', 'MFE', 'Duration'],
    ts.map((t) => [isoMinute(t.entryTime), t.exitTime === null ? 'open' : isoMinute(t.exitTime), t.symbol, t.side, qty(t.size), qty(t.entryPrice), qty(t.exitPrice), usd(t.pnl), usd(t.fees), usd(t.funding), usd(t.netPnl), usd(t.mae), usd(t.mfe), durationText(t.durationMs)]),
    ' id="trades"',
  )}`;
}

function periodTable(rows: BacktestReport['periods'], id: string): string {
  if (rows.length === 0) return '<p class="note">No equity samples: the strategies never started.</p>';
  return table(['Start', 'End', 'Start equity', 'PnL', 'Return', 'Fees', 'Funding', 'Realized', 'Fills'], rows.map((p) => [isoMinute(p.start), isoMinute(p.end), usd(p.startEquity), usd(p.pnl), pct(p.return), usd(p.fees), usd(p.funding), usd(p.realizedPnl), String(p.fills)]), ` id="${id}"`);
}

export function renderHtml(r: BacktestReport): string {
  const s = r.summary;
  const notices = reportNotices(r);
  const errorBanner = s.strategyErrors === 0 ? '' : `<p class="alert" id="strategy-errors"><strong>Strategies threw ${s.strategyErrors} times.</strong> ${esc(strategyErrorText(s))}. The figures below are those of strategies that failed.</p>`;
  const noticeList = notices.length === 0 ? '' : `<ul class="notices" id="notices">${notices.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`;
  const data = chartData(r);
  const priceCharts = r.data.symbols
    .map((sym, k) => `<section><h2>${esc(sym)} mark price, ${durationText(data.candleSec * 1000)} candles, with fills (${r.fills.filter((f) => f.symbol === sym).length}); position below</h2><div class="legend" id="price-legend-${k}">${esc(sym)}: hover a candle for its OHLC and fills</div><div class="chart price" id="price-${k}"></div><p class="note" id="price-note-${k}"></p></section>`)
    .join('\n');
  const stratTable = table(
    ['Strategy', 'Fills', 'Volume', 'Fees', 'Realized PnL', 'Closing fills won', 'Accepted', 'Rejected on arrival', 'Expired unfilled', 'Expired partly filled', 'Cancels', 'Rejections', 'Denials', 'Errors'],
    Object.entries(r.strategies).map(([id, x]) => [id, String(x.fills), usd(x.volume), usd(x.fees), usd(x.realizedPnl), pct(x.fillWinRate, 'n/a'), String(x.ordersAccepted), String(x.ordersRejected), String(x.ordersExpiredUnfilled), String(x.ordersExpiredPartial ?? 0), String(x.cancels), String(x.rejections), String(x.denials), x.stopped === null ? String(x.errors) : `${x.errors} (stopped: ${x.stopped.reason})`]),
  );
  const counters: Array<[string, string]> = [
    ['Orders accepted / rejected on arrival / expired unfilled / expired partly filled / cancels / rejections / denials', `${s.ordersAccepted} / ${s.ordersRejected} / ${s.ordersExpiredUnfilled} / ${s.ordersExpiredPartial ?? 0} / ${s.cancels} / ${s.rejections} / ${s.denials}`],
    ['Denials by risk code', codes(s.denialsByCode)],
    ['First denial of each code', firstRejectionLines(s, 'firstDenialByCode').join(' | ') || 'none'],
    ['Rejections by venue code', codes(s.rejectionsByCode)],
    ['First rejection of each code', firstRejectionLines(s).join(' | ') || 'none'],
    ['Strategy errors', strategyErrorText(s)],
    ['Bot errors', botErrorText(s)],
    ['Liquidations', String(s.liquidations)],
    ['Final equity / realized / unrealized', `${usd(s.finalEquity)} / ${usd(s.realizedPnl)} / ${usd(s.unrealizedPnl)}`],
    ['Events', `${r.data.events.applied} applied of ${r.data.events.read} read`],
    ['Ratio convention', `daily returns (${s.ratioDays}) x sqrt(365), risk-free 0; Calmar = annualised return / max drawdown`],
  ];
  const names = r.config.strategies.map((x) => x.id).join(', ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpkit backtest ${esc(names)} (${esc(r.identity.configHash)})</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:20px auto;max-width:1100px;padding:0 12px;color:#222}
h1{font-size:20px;margin-bottom:4px}h2{font-size:15px;margin:20px 0 4px}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
table.identity th{text-align:left;background:#f7f7f7;font-weight:600;white-space:nowrap}table.identity td{text-align:left}
code{font-size:12px}.hash{color:#555;word-break:break-all}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:8px;margin:12px 0}
.card{border:1px solid #e3e3e3;border-radius:4px;padding:6px 10px}.card .k{font-size:12px;color:#666}.card .v{font-size:15px;font-weight:600;font-variant-numeric:tabular-nums}.v.neg{color:#b71c1c}.v.pos{color:#1b5e20}
.chart{position:relative;width:100%;height:440px;border:1px solid #eee}.chart.equity{height:520px}
.chart td,.chart th{border:none;padding:0;max-width:none;overflow-wrap:normal}
.legend{font:12px/1.5 ui-monospace,monospace;color:#444;min-height:18px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.note{color:#666;font-size:12px;margin:2px 0}.alert{background:#fdecea;border:1px solid #c62828;padding:8px}
.notices{background:#fff8e1;border:1px solid #f9a825;padding:8px 8px 8px 28px}
footer{margin-top:24px;color:#777;font-size:12px}
</style></head><body>
<h1>Backtest report: ${esc(names)}</h1>
${identityTable(r)}
${errorBanner}
${noticeList}
${headline(r)}
${priceCharts}
<section><h2>Equity (USDT) and buy &amp; hold; drawdown from peak (%); gross leverage</h2><div class="legend" id="equity-legend">hover the chart for values</div><div class="chart equity" id="equity-chart"></div></section>
<h2>Trades</h2>${tradeStatsTable(r)}
<h2>Returns by ${r.returns.period}</h2>${periodTable(r.returns.rows, 'returns')}
<h2>Per period (report.periodMs = ${durationText(r.config.periodMs)})</h2>${periodTable(r.periods, 'periods')}
<h2>Per strategy</h2>${stratTable}
<h2>Orders and engine</h2>${table(['', ''], counters)}
<h2>Round trips</h2>${tradesTable(r)}
<footer>perpkit ${esc(r.identity.perpkitVersion)}. ${CHART_LIBRARY_NOTE}</footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${chartLibrary()}</script>
<script>${CHART_SCRIPT}</script>
</body></html>
`;
}
