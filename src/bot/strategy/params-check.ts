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
import type { AnyStrategyDefinition, StrategyDefinition } from './api';
import { paramNames } from './params';

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
  return `unknown parameter '${c.unknown[0]}'${c.unknown.length > 1 ? ` (and ${c.unknown.slice(1).map((k) => `'${k}'`).join(', ')})` : ''}; the strategy reads ${c.known.length > 0 ? c.known.join(', ') : 'no parameters'}`;
}
