/**
 * What an operator can do to one running strategy (the dashboard's buttons): pause it, resume it,
 * cancel all of its orders.
 *
 * A paused strategy keeps hearing about its own orders and fills (its bookkeeping must stay true
 * to the venue, or it would quote from a wrong inventory when resumed), but gets no market data
 * and no timers; anything it still asks for other than a cancel is denied with the stable code
 * `STRATEGY_PAUSED`, counted like every other denial. Its working orders stay where they are:
 * cancelling them is a separate, explicit action. A strategy stopped for its errors can be neither
 * paused nor resumed: the error says so instead of pretending to have done something.
 */
import type { BotEventType } from '../bus/events';
import type { OrderExecutor } from '../execution/executor';
import type { OrderTracker } from '../execution/order-tracker';
import { deny, type Decision } from '../risk/decision';

export type StrategyAction = 'pause' | 'resume' | 'cancelOrders';
export const STRATEGY_ACTIONS: readonly StrategyAction[] = ['pause', 'resume', 'cancelOrders'];

export interface StrategyActionResult {
  strategyId: string;
  action: StrategyAction;
  /** The strategy's status after the action. */
  status: 'running' | 'paused';
  /** Orders of the strategy that were live when a cancel was asked (cancelOrders only). */
  cancelled: number;
}

/** Why a control action could not be done; `code` is stable, the message is for people. */
export class StrategyControlError extends Error {
  constructor(
    readonly code: 'UNKNOWN_STRATEGY' | 'STRATEGY_STOPPED' | 'BOT_NOT_RUNNING' | 'ALREADY_PAUSED' | 'NOT_PAUSED',
    message: string,
  ) {
    super(message);
    this.name = 'StrategyControlError';
  }
}

/** The part of the bot's per-strategy record the controls read and write. */
export interface ControlledStrategy {
  slot: { id: string };
  stopped: string | undefined;
  paused: string | undefined;
}

export interface ControlDeps {
  executor: Pick<OrderExecutor, 'enqueue' | 'idle'>;
  tracker: Pick<OrderTracker, 'live'>;
  kick(): void;
  /** Started and not stopped. */
  active: boolean;
}

/** Events a paused strategy still receives: the ones about its own orders. */
const WHILE_PAUSED: ReadonlySet<BotEventType> = new Set<BotEventType>(['order', 'fill', 'denial', 'rejection', 'riskState', 'reconciled', 'position', 'account']);

export function deliveredWhilePaused(type: BotEventType): boolean {
  return WHILE_PAUSED.has(type);
}

export function pausedDenial(strategyId: string, why: string): Decision {
  return deny('STRATEGY_PAUSED', `strategy ${strategyId} is paused (${why}); only cancels go out until it is resumed`);
}

export function stoppingDenial(): Decision {
  return deny('BOT_STOPPING', 'the bot is stopping: only cancels go out');
}

/**
 * Whether a denial counts among a run's denials: not the stop's (a grid re-placing the levels its
 * stop cancels is refused by the stop, not a trouble of the run). The bot's count and a backtest's.
 */
export const countsAsDenial = (code: string): boolean => code !== 'BOT_STOPPING';

export async function controlStrategy(deps: ControlDeps, r: ControlledStrategy | undefined, strategyId: string, action: StrategyAction, reason: string, known: readonly string[]): Promise<StrategyActionResult> {
  if (!deps.active) throw new StrategyControlError('BOT_NOT_RUNNING', `the bot is not running, so strategy ${strategyId} cannot be changed`);
  if (r === undefined) throw new StrategyControlError('UNKNOWN_STRATEGY', `no strategy '${strategyId}' in this bot; its strategies are ${known.join(', ')}`);
  if (r.stopped !== undefined) {
    throw new StrategyControlError('STRATEGY_STOPPED', `strategy ${strategyId} was stopped for its errors (${r.stopped}); it gets no events and has no orders, so it cannot be ${action === 'cancelOrders' ? 'asked to cancel' : `${action}d`}. Restart the bot to run it again`);
  }
  switch (action) {
    case 'pause':
      if (r.paused !== undefined) throw new StrategyControlError('ALREADY_PAUSED', `strategy ${strategyId} is already paused (${r.paused})`);
      r.paused = reason;
      return { strategyId, action, status: 'paused', cancelled: 0 };
    case 'resume':
      if (r.paused === undefined) throw new StrategyControlError('NOT_PAUSED', `strategy ${strategyId} is not paused`);
      r.paused = undefined;
      return { strategyId, action, status: 'running', cancelled: 0 };
    case 'cancelOrders': {
      const cancelled = deps.tracker.live(strategyId).length;
      deps.executor.enqueue(strategyId, { kind: 'cancelAll' });
      deps.kick();
      await deps.executor.idle();
      return { strategyId, action, status: r.paused === undefined ? 'running' : 'paused', cancelled };
    }
  }
}
