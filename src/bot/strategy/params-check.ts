/**
 * What a strategy's `params()` makes of a config's parameters, and which of them it never looked
 * at. A strategy declares its parameters by reading them (`raw.entryZ`); a key of the config that
 * `params()` never read is a parameter the strategy does not know: a misspelt `entryz` for
 * `entryZ` is refused instead of silently running with the default. A strategy that reads the
 * whole mapping (`Object.keys(raw)`, a spread) is trusted to check the names itself, as the
 * examples did with `onlyKeys`.
 *
 * A definition with a parameter schema (`paramsSchema`) knows its names without this: a key the
 * schema does not declare is unknown, and `params()` is not even called then.
 */
import { Dec } from '../../core/decimal';
import { Grid } from '../../core/values';
import type { AnyStrategyDefinition, StrategyDefinition } from './api';
import { paramNames, quantityParams } from './params';

export interface CheckedParams {
  /** What `params()` returned (undefined when a name is unknown and the definition has a schema). */
  params: unknown;
  /** Config keys `params()` never read (empty when it read the whole mapping). */
  unknown: string[];
  /** The parameter names `params()` asked for, sorted: what the strategy knows. */
  known: string[];
}

const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype).concat(['then', 'toJSON']));

/** Runs `params(raw)` with its reads recorded; what it throws passes through. */
export function checkParams(definition: AnyStrategyDefinition, raw: Record<string, unknown>): CheckedParams {
  const schema = definition.paramsSchema;
  if (schema !== undefined) {
    const known = paramNames(schema);
    const unknown = Object.keys(raw).filter((k) => !known.includes(k));
    return { params: unknown.length > 0 ? undefined : definition.params(raw), unknown, known };
  }
  const read = new Set<string>();
  let whole = false;
  const note = (k: string | symbol): void => {
    if (typeof k === 'string') read.add(k);
  };
  const watched = new Proxy(raw, {
    get(t, k, r) {
      note(k);
      return Reflect.get(t, k, r) as unknown;
    },
    has(t, k) {
      note(k);
      return Reflect.has(t, k);
    },
    getOwnPropertyDescriptor(t, k) {
      note(k);
      return Reflect.getOwnPropertyDescriptor(t, k);
    },
    ownKeys(t) {
      whole = true;
      return Reflect.ownKeys(t);
    },
  });
  const params = (definition as unknown as StrategyDefinition<unknown>).params(watched);
  const known = [...read].filter((k) => !PROTOTYPE_KEYS.has(k)).sort();
  return { params, unknown: whole ? [] : Object.keys(raw).filter((k) => !read.has(k)), known };
}

/** The one-line text for an unknown parameter: the name and what the strategy knows. */
export function unknownParamText(c: CheckedParams): string {
  return `${unknownParamNames(c)}; the strategy reads ${c.known.length > 0 ? c.known.join(', ') : 'no parameters'}`;
}

function unknownParamNames(c: CheckedParams): string {
  return `unknown parameter '${c.unknown[0]}'${c.unknown.length > 1 ? ` (and ${c.unknown.slice(1).map((k) => `'${k}'`).join(', ')})` : ''}`;
}

/** What is wrong with a config's strategy parameters: the key path, what was expected, what was found. */
export interface ParamProblem {
  at: string;
  expected: string;
  got: string;
}

/**
 * An Error thrown by a definition's `params()`, at the path of the parameter it names: the
 * convention is `parameter 'name' must be <rule>, got <value>` (what `decodeParams` throws for a
 * schema, and what hand-written checks say), or `unknown parameter 'x'; known parameters: ...`.
 * `at` is the path of the strategy's `params` mapping (`strategies[0].params`).
 */
export function paramProblem(e: unknown, at: string): ParamProblem {
  const msg = e instanceof Error ? e.message : String(e);
  const unknownKey = /unknown parameter '([^']+)'(?:; known parameters: (.*))?/.exec(msg);
  if (unknownKey) return { at: `${at}.${unknownKey[1]}`, expected: unknownKey[2] ? `one of the known parameters ${unknownKey[2]}` : 'a parameter the strategy knows', got: `unknown parameter '${unknownKey[1]}'` };
  const named = /parameter '([^']+)' must be (.*?)(?:, got (.*))?$/.exec(msg);
  if (named) return { at: `${at}.${named[1]}`, expected: named[2], got: named[3] ?? 'something else' };
  return { at, expected: 'parameters the strategy accepts', got: msg };
}

/**
 * A config's parameters for one strategy through its definition, for every command that reads
 * strategies from a config (`perpkit run`, backtest, sweep): a parameter `params()` refuses, or
 * one it never reads, becomes the error `fail` makes of the problem, at the parameter's own path
 * (`strategies[0].params.period`), so that the config error points at its line.
 */
export function checkConfigParams(definition: AnyStrategyDefinition, raw: Record<string, unknown>, at: string, fail: (p: ParamProblem) => Error): CheckedParams {
  let checked: CheckedParams;
  try {
    checked = checkParams(definition, raw);
  } catch (e) {
    throw fail(paramProblem(e, at));
  }
  // The names the strategy reads are in `expected`: `got` says only what was found.
  if (checked.unknown.length > 0) throw fail({ at: `${at}.${checked.unknown[0]}`, expected: `a parameter the strategy reads (${checked.known.join(', ') || 'none'})`, got: unknownParamNames(checked) });
  return checked;
}

/** What a quantity is checked against: a symbol's quantity grid and limits (its spec). */
export interface QuantityLimits {
  stepSize: string;
  minQty: string;
  maxQty: string;
}

/**
 * The first `param.quantity` of a definition whose value no order of its symbol could carry: it
 * rounds down (as the strategies' `ctx.quantity.round` does) below the symbol's minimum, or it is
 * above its maximum. `params`: what the definition's `params()` made; `limitsOf`: the symbol's spec
 * where it is known (a symbol it does not know is another check's). Undefined when all fit.
 */
export function quantityProblem(definition: AnyStrategyDefinition, params: unknown, limitsOf: (symbol: string) => QuantityLimits | undefined): { param: string; expected: string; got: string } | undefined {
  const schema = definition.paramsSchema;
  if (schema === undefined || typeof params !== 'object' || params === null) return undefined;
  const values = params as Record<string, unknown>;
  for (const { name, symbolParam } of quantityParams(schema)) {
    const q = values[name];
    const symbol = values[symbolParam];
    if (!(q instanceof Dec) || typeof symbol !== 'string') continue;
    const spec = limitsOf(symbol);
    if (spec === undefined) continue;
    const grid = new Grid(spec.stepSize);
    const steps = grid.unitsOfDec(q, 'down');
    const range = `from ${spec.minQty} to ${spec.maxQty} in steps of ${spec.stepSize}`;
    if (steps < grid.unitsOfDec(new Dec(spec.minQty), 'up')) {
      const rounded = grid.fromUnits(Math.max(steps, 0));
      return { param: name, expected: `a quantity of ${symbol} ${range} (${q.toString()} rounds down to ${rounded}: every order would be refused)`, got: q.toString() };
    }
    if (q.gt(new Dec(spec.maxQty))) return { param: name, expected: `a quantity of ${symbol} ${range} (every order would be refused)`, got: q.toString() };
  }
  return undefined;
}
