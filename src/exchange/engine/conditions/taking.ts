/**
 * An order the engine places itself (a triggered condition's, a strategy order's sub-order)
 * goes in between the owner's taking hook (state.ts `TakingHook`): the `l2` replay puts the
 * recorded levels it may reach into the book before it and takes them out after, as around an
 * order a participant sends. MakerOnly orders take nothing, and no hook costs nothing.
 */
import type { PreparedOrder } from '../orders/prepare';
import type { EngineState } from '../state';

export function placedByEngine<T>(s: EngineState, p: PreparedOrder, place: () => T): T {
  const hook = s.taking;
  if (hook === undefined || p.input.makerOnly === true) return place();
  const spec = p.st.spec;
  hook.before(spec.name, p.input.side, p.input.type === 'MARKET' ? undefined : spec.tick.fromUnits(p.price), spec.step.fromUnits(p.qty));
  try {
    return place();
  } finally {
    hook.after();
  }
}
