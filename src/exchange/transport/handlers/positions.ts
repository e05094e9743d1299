/** Positions resource. */
import type { SetLeverageResult, SetMarginModeResult } from '../../../protocol/rest/positions';
import { userOf, type HandlerMap } from './context';

export const positionHandlers = {
  setLeverage: (ctx, req) => ctx.deps.core.execute<SetLeverageResult>({ k: 'setLeverage', userId: userOf(ctx), input: req }),
  setMarginMode: (ctx, req) => ctx.deps.core.execute<SetMarginModeResult>({ k: 'setMarginMode', userId: userOf(ctx), input: req }),
  getPositionSettings: (ctx, req) => ctx.deps.core.engine.positionSettings(userOf(ctx), req.symbol),
  getPositions: (ctx, req) => ({ positions: ctx.deps.core.engine.positions(userOf(ctx), req.symbol) }),
  getPositionHistory: (ctx, req) => ctx.deps.core.engine.positionHistory(userOf(ctx), req),
} satisfies Partial<HandlerMap>;
