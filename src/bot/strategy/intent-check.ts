/**
 * The shape check of an intent, where intents enter the bot. Strategy modules loaded at run time
 * are not type-checked (`{ kind: 'plcae' }`, a place without `quantity`, a price as a number), and
 * a malformed intent must be refused with what was wrong, not crash the risk engine further on.
 * Values are checked against the grid and the limits by the risk engine; here only the shape:
 * the kind is known, required fields are present, each field has its type, decimals are plain
 * decimal strings.
 */
import { decimalStringProblem, isDecimalString } from '../../core/decimal';
import { ORDER_TYPES, POSITION_SIDES, SIDES, TIME_IN_FORCE, WORKING_TYPES } from '../../core/enums';
import type { IntentKind } from './intents';

type FieldType = 'decimal' | 'string' | 'boolean' | 'integer' | readonly string[];

interface Field {
  type: FieldType;
  required: boolean;
}

const req = (type: FieldType): Field => ({ type, required: true });
const opt = (type: FieldType): Field => ({ type, required: false });

/** Every intent kind with its fields (intents.ts); `kind` itself is implied. */
const FIELDS: Record<IntentKind, Record<string, Field>> = {
  place: {
    symbol: req('string'),
    side: req(SIDES),
    type: req(ORDER_TYPES),
    price: opt('decimal'),
    quantity: req('decimal'),
    timeInForce: opt(TIME_IN_FORCE),
    reduceOnly: opt('boolean'),
    makerOnly: opt('boolean'),
    positionSide: opt(POSITION_SIDES),
    tag: opt('string'),
  },
  cancel: { clientOrderId: req('string') },
  amend: { clientOrderId: req('string'), price: req('decimal'), quantity: req('decimal') },
  cancelAll: { symbol: opt('string') },
  bracket: {
    symbol: req('string'),
    side: req(SIDES),
    quantity: req('decimal'),
    entryPrice: opt('decimal'),
    takeProfitPrice: req('decimal'),
    stopLossPrice: req('decimal'),
    workingType: opt(WORKING_TYPES),
    tag: opt('string'),
  },
  setLeverage: { symbol: req('string'), leverage: req('integer') },
};

const KINDS = Object.keys(FIELDS) as IntentKind[];
/** FIELDS as arrays, made once: intents are checked on every order of a backtest. */
const ENTRIES = Object.fromEntries(KINDS.map((k) => [k, Object.entries(FIELDS[k])])) as Record<IntentKind, Array<[string, Field]>>;

function shown(v: unknown): string {
  if (v === undefined) return 'nothing (the field is missing)';
  if (v === null) return 'null';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}...` : v}"`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  return Array.isArray(v) ? 'an array' : typeof v;
}

function fieldProblem(f: Field, v: unknown): string | undefined {
  const t = f.type;
  if (typeof t !== 'string') return typeof v === 'string' && t.includes(v) ? undefined : `must be one of ${t.join(', ')}, got ${shown(v)}`;
  switch (t) {
    case 'decimal': {
      if (isDecimalString(v)) return undefined;
      const p = decimalStringProblem(v);
      return p === undefined ? undefined : typeof v === 'number' ? `must be a decimal string such as "1.5", got number ${v}` : v === undefined ? `must be a decimal string, got ${shown(v)}` : p;
    }
    case 'string':
      return typeof v === 'string' && v.length > 0 ? undefined : `must be a non-empty string, got ${shown(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `must be true or false, got ${shown(v)}`;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? undefined : `must be an integer, got ${shown(v)}`;
  }
}

/**
 * What is wrong with `x` as an intent, in full words (the kind, the field, what was found), or
 * undefined when it is a well-formed intent.
 */
export function intentProblem(x: unknown): string | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return `an intent must be an object with a kind (${KINDS.join(', ')}), got ${shown(x)}`;
  const o = x as Record<string, unknown>;
  const kind = o.kind;
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) return `intent kind must be one of ${KINDS.join(', ')}, got ${shown(kind)}`;
  const fields = FIELDS[kind as IntentKind];
  for (const [name, f] of ENTRIES[kind as IntentKind]) {
    const v = o[name];
    if (v === undefined && !f.required) continue;
    const p = fieldProblem(f, v);
    if (p !== undefined) return `${kind} intent: '${name}' ${p}`;
  }
  if (kind === 'place' && o.type === 'LIMIT' && o.price === undefined) return `place intent: 'price' is required for a LIMIT order, got nothing (the field is missing)`;
  for (const name in o) {
    if (name !== 'kind' && !Object.hasOwn(fields, name) && Object.hasOwn(o, name)) return `${kind} intent: unknown field '${name}'; a ${kind} intent has ${Object.keys(fields).join(', ')}`;
  }
  return undefined;
}


/** A hook returned something other than an array of intents or nothing (hooks.ts throws it). */
export class HookResultError extends Error {
  constructor(
    hook: string,
    /** What the hook returned (a Promise of an async hook: its rejection is the bot's to report). */
    readonly got: unknown,
  ) {
    super(`${hook} returned ${returnedText(got)} where an array of intents (or nothing) is expected: return [intent]`);
    this.name = 'HookResultError';
  }
}

/** Whether a hook returned a Promise (or another thenable): an `async` hook. */
export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof x === 'object' && x !== null && typeof (x as { then?: unknown }).then === 'function';
}

/** What a hook returned, for an error: `an object`, `a string`, ... */
function returnedText(got: unknown): string {
  if (isThenable(got)) return 'a Promise (an async hook? hooks run synchronously: their intents are not awaited)';
  return typeof got === 'object' ? 'an object' : `a ${typeof got}`;
}
