import { readFileSync } from 'node:fs';
import { yamlLineOf } from './yaml-lines';
import { plainNumberText } from './decimal';

/**
 * Errors of configuration files (bot, backtest, exchange), all in one shape: the file, the path
 * inside it (`strategies[0].params.quantity`), what was expected and what was found, and once
 * located (`locate()`) the line of the YAML file: `bot.yaml:12: risk.maxDrawdown: expected ...`.
 * A rule that is not "expected X, got Y" (`unknown key; expected one of ...`, `symbol X is listed
 * twice`) is said in its own words: `ConfigError.because(file, at, text)`.
 */
export class ConfigError extends Error {
  /** 1-based line in the file, once located. */
  line: number | undefined;
  /** 1-based column, where one is known (a YAML syntax error). */
  column: number | undefined;
  /** The rule and what was found in one text, for an error made with `because` (else undefined). */
  detail: string | undefined;

  constructor(
    readonly file: string,
    readonly at: string,
    readonly expected: string,
    readonly got: string,
  ) {
    super('');
    this.message = this.render();
    this.name = 'ConfigError';
  }

  /** An error whose rule and finding are one text: `file:line: at: <detail>`. */
  static because(file: string, at: string, detail: string): ConfigError {
    const e = new ConfigError(file, at, '', '');
    e.detail = detail;
    e.message = e.render();
    return e;
  }

  private render(): string {
    // A config built in code has no file: the message starts with the path.
    const where = this.file === '' ? '' : `${this.file}${this.line === undefined ? '' : `:${this.line}`}${this.column === undefined ? '' : `:${this.column}`}: `;
    return `${where}${this.at === '' ? '' : `${this.at}: `}${this.detail ?? `expected ${this.expected}, got ${this.got}`}`;
  }

  /** Puts the error at a line (and column) of the file: `x.yaml:12:3: ...`. */
  placeAt(line: number, column?: number): this {
    this.line = line;
    this.column = column;
    this.message = this.render();
    return this;
  }

  /**
   * Adds the line of `at` in the file (read again, or `text` when given) to the error and its
   * message; nothing changes when the file cannot be read or the path is not in it.
   */
  locate(text?: string): this {
    if (this.line !== undefined || this.file === '' || this.at === '' || /^line \d/.test(this.at)) return this;
    let src = text;
    if (src === undefined) {
      try {
        src = readFileSync(this.file, 'utf8');
      } catch {
        return this;
      }
    }
    const line = yamlLineOf(src, this.at);
    return line === undefined ? this : this.placeAt(line);
  }
}

/** Short rendering of a found value for error messages. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (the key is missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object') return `a mapping with keys ${Object.keys(v).join(', ') || '(none)'}`;
  // JSON has no infinities or NaN (YAML's .inf, .nan): they would read 'number null'. A finite
  // number as written (0.0000001, which JSON would show as 1e-7).
  const s = typeof v === 'number' ? (Number.isFinite(v) ? plainNumberText(v) : String(v)) : JSON.stringify(v);
  return `${typeof v} ${s.length > 60 ? `${s.slice(0, 57)}...` : s}`;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `base.key` or `base[index]`, for error paths. */
export const joinPath = (base: string, key: string | number): string => (typeof key === 'number' ? `${base}[${key}]` : base === '' ? key : `${base}.${key}`);
