/**
 * Errors of configuration files (bot, backtest, exchange), all in one shape: the file, the path
 * inside it (`strategies[0].params.quantity`), what was expected and what was found.
 */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly at: string,
    readonly expected: string,
    readonly got: string,
  ) {
    super(`${file || '(config)'}: ${at === '' ? '(top level)' : at}: expected ${expected}, got ${got}`);
    this.name = 'ConfigError';
  }
}

/** Short rendering of a found value for error messages. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (the key is missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object') return `a mapping with keys ${Object.keys(v).join(', ') || '(none)'}`;
  const s = JSON.stringify(v);
  return `${typeof v} ${s.length > 60 ? `${s.slice(0, 57)}...` : s}`;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `base.key` or `base[index]`, for error paths. */
export const joinPath = (base: string, key: string | number): string => (typeof key === 'number' ? `${base}[${key}]` : base === '' ? key : `${base}.${key}`);
