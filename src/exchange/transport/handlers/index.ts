/** Every endpoint's handler; the type makes a missing one a compile error. */
import { adminHandlers } from './admin';
import type { HandlerMap } from './context';
import { marketHandlers } from './market';
import { orderHandlers } from './orders';
import { positionHandlers } from './positions';
import { publicHandlers } from './public';
import { userHandlers } from './user';

export const HANDLERS: HandlerMap = {
  ...orderHandlers,
  ...positionHandlers,
  ...userHandlers,
  ...publicHandlers,
  ...marketHandlers,
  ...adminHandlers,
};
