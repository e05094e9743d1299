/**
 * Structure rules of strategy orders (PROTOCOL.md section 3). A request may give the driver fields
 * explicitly, or leave them all out to get the canonical wiring of its type:
 *   OTO:   2 is placed when 1 is FILLED.
 *   OCO:   1 and 2 work at once; each cancels the other when it (partially) fills.
 *   OTOCO: 2 and 3 are placed when 1 is FILLED; each cancels the other when it (partially) fills.
 */
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { DrivenOn, TriggerAction } from '../../../core/enums';
import type { PlaceStrategyInput, StrategySubOrderInput } from '../inputs';

export interface Driver {
  id: number;
  on: DrivenOn;
  action: TriggerAction;
}

export interface NormalizedSub {
  input: StrategySubOrderInput;
  first: Driver | undefined;
  second: Driver | undefined;
}

const SIZE = { OTO: 2, OCO: 2, OTOCO: 3 } as const;

function bad(message: string, field?: string): never {
  throw new VenueError(ErrorCodes.INVALID_STRATEGY, message, field);
}

function driverOf(s: StrategySubOrderInput, which: 'first' | 'second', n: number, path: string): Driver | undefined {
  const id = which === 'first' ? s.firstDrivenId : s.secondDrivenId;
  const on = which === 'first' ? s.firstDrivenOn : s.secondDrivenOn;
  const action = which === 'first' ? s.firstTrigger : s.secondTrigger;
  if (id === undefined || id === 0) {
    if (on !== undefined || action !== undefined) bad(`${path}.${which}DrivenId is required when ${which}DrivenOn or ${which}Trigger is given`, `${path}.${which}DrivenId`);
    return undefined;
  }
  if (!Number.isInteger(id) || id < 1 || id > n) bad(`${path}.${which}DrivenId must name a sub-order 1..${n}, got ${id}`, `${path}.${which}DrivenId`);
  if (id === s.strategySubId) bad(`${path}.${which}DrivenId must not name the sub-order itself`, `${path}.${which}DrivenId`);
  if (on === undefined) bad(`${path}.${which}DrivenOn is required with ${which}DrivenId`, `${path}.${which}DrivenOn`);
  if (action === undefined) bad(`${path}.${which}Trigger is required with ${which}DrivenId`, `${path}.${which}Trigger`);
  return { id, on, action };
}

function canonical(type: PlaceStrategyInput['strategyType'], subId: number): [Driver | undefined, Driver | undefined] {
  const fill: DrivenOn = 'FILLED';
  const anyFill: DrivenOn = 'PARTIALLY_FILLED_OR_FILLED';
  if (type === 'OTO') return subId === 2 ? [{ id: 1, on: fill, action: 'PLACE_ORDER' }, undefined] : [undefined, undefined];
  if (type === 'OCO') return [{ id: subId === 1 ? 2 : 1, on: anyFill, action: 'CANCEL_ORDER' }, undefined];
  if (subId === 1) return [undefined, undefined];
  return [
    { id: 1, on: fill, action: 'PLACE_ORDER' },
    { id: subId === 2 ? 3 : 2, on: anyFill, action: 'CANCEL_ORDER' },
  ];
}

const places = (s: NormalizedSub, on: number): boolean =>
  (s.first?.action === 'PLACE_ORDER' && s.first.id === on) || (s.second?.action === 'PLACE_ORDER' && s.second.id === on);
const cancelsOn = (s: NormalizedSub, on: number): boolean =>
  (s.first?.action === 'CANCEL_ORDER' && s.first.id === on) || (s.second?.action === 'CANCEL_ORDER' && s.second.id === on);
const placedLater = (s: NormalizedSub): boolean => s.first?.action === 'PLACE_ORDER' || s.second?.action === 'PLACE_ORDER';

/** Checks the structure and returns the sub-orders sorted by strategySubId with their drivers. */
export function normalizeStrategy(input: PlaceStrategyInput): NormalizedSub[] {
  const n = SIZE[input.strategyType];
  const list = input.subOrderList;
  if (list.length !== n) bad(`${input.strategyType} takes exactly ${n} sub-orders, got ${list.length}`, 'subOrderList');
  const ids = list.map((s) => s.strategySubId).sort((a, b) => a - b);
  ids.forEach((id, i) => {
    if (id !== i + 1) bad(`strategySubId values must be 1..${n}, each once; got ${list.map((s) => s.strategySubId).join(', ')}`, 'subOrderList.strategySubId');
  });
  const symbol = list[0].symbol;
  list.forEach((s, i) => {
    if (s.symbol !== symbol) bad(`all sub-orders of a strategy must use one symbol: subOrderList[${i}].symbol is ${s.symbol}, expected ${symbol}`, `subOrderList[${i}].symbol`);
  });
  const explicit = list.some((s) => (s.firstDrivenId ?? 0) !== 0 || (s.secondDrivenId ?? 0) !== 0 || s.firstDrivenOn !== undefined || s.firstTrigger !== undefined);
  const sorted = [...list].sort((a, b) => a.strategySubId - b.strategySubId);
  const subs: NormalizedSub[] = sorted.map((s) => {
    const path = `subOrderList[${list.indexOf(s)}]`;
    if (!explicit) {
      const [first, second] = canonical(input.strategyType, s.strategySubId);
      return { input: s, first, second };
    }
    return { input: s, first: driverOf(s, 'first', n, path), second: driverOf(s, 'second', n, path) };
  });
  const [s1, s2, s3] = subs;
  if (placedLater(s1)) bad('sub-order 1 must be placed at once: it may not wait on another sub-order', 'subOrderList');
  if (input.strategyType === 'OTO') {
    if (!places(s2, 1)) bad('OTO: sub-order 2 must be placed (PLACE_ORDER) when sub-order 1 reaches its driving state', 'subOrderList');
  } else if (input.strategyType === 'OCO') {
    if (placedLater(s2)) bad('OCO: both sub-orders work at once; neither may wait with PLACE_ORDER', 'subOrderList');
    if (!cancelsOn(s1, 2) || !cancelsOn(s2, 1)) bad('OCO: each sub-order must cancel the other (CANCEL_ORDER)', 'subOrderList');
  } else {
    if (!places(s2, 1) || !places(s3, 1)) bad('OTOCO: sub-orders 2 and 3 must be placed (PLACE_ORDER) when sub-order 1 reaches its driving state', 'subOrderList');
    if (!cancelsOn(s2, 3) || !cancelsOn(s3, 2)) bad('OTOCO: sub-orders 2 and 3 must cancel each other (CANCEL_ORDER)', 'subOrderList');
  }
  return subs;
}
