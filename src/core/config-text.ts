/**
 * Reading a config file's YAML, for every loader of one (backtest and sweep, `perpkit run`, the
 * local exchange, `perpkit record`): what cannot be read or parsed comes back as one problem in
 * the words of the other config errors (what was expected, what was found, and where), so that
 * each loader throws it as its own error type, on one line. The yaml library's own messages span
 * several lines (a snippet of the file with a caret).
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from './yaml';

/** Why a config file cannot be used as YAML; `line` and `column` (1-based) for a syntax error. */
export interface ConfigTextProblem {
  expected: string;
  got: string;
  line?: number;
  column?: number;
}

/** A file that cannot be read, in plain words: `no such file` rather than `ENOENT: ..., open '/abs/x.yaml'`. */
export function unreadableText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'a file this user may not read';
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

/** The plain data of YAML text, or its first syntax error with its line and column. */
export function parseConfigYaml(text: string): { value: unknown } | { problem: ConfigTextProblem } {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const e = doc.errors[0];
  if (e === undefined) return { value: doc.toJS() as unknown };
  const { line, col } = lc.linePos(e.pos[0]);
  // A repeated key is the common case: name it.
  const key = e.code === 'DUPLICATE_KEY' ? /^["']?([^"':\n]+)/.exec(text.slice(e.pos[0]))?.[1]?.trim() : undefined;
  const got = key !== undefined && key !== '' ? `the key '${key}' a second time in the same mapping` : `a syntax error (${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')})`;
  return { problem: { expected: 'valid YAML', got, line, column: col } };
}

/**
 * Reads and parses a config file; `fail` makes the loader's own error of a problem (a missing
 * file, a syntax error), and is thrown.
 */
export function readConfigYaml(file: string, fail: (p: ConfigTextProblem) => Error): { text: string; value: unknown } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw fail({ expected: 'a readable YAML file', got: unreadableText(e) });
  }
  const parsed = parseConfigYaml(text);
  if ('problem' in parsed) throw fail(parsed.problem);
  return { text, value: parsed.value };
}
