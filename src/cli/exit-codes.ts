/**
 * Exit codes that mean the same in more than one command, so that a script or a supervisor reads
 * them alike.
 */

/**
 * The command finished, but a strategy threw (or returned what the bot refuses) while it ran:
 * `perpkit backtest` (its results are those of a failing strategy), `perpkit run` and the demo
 * after a stop that finished (docs/backtesting.md, docs/running.md).
 */
export const EXIT_STRATEGY_ERRORS = 3;
