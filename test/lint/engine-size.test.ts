/**
 * The engine stays split along its bounded contexts (docs/engine.md, "Layout"): no file under
 * src/exchange/engine is over 500 lines, so a context that grows gets a file of its own rather
 * than a longer one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ENGINE = path.resolve(__dirname, '../../src/exchange/engine');
const MAX_LINES = 500;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('engine layout', () => {
  it(`no file in src/exchange/engine is over ${MAX_LINES} lines`, () => {
    const all = files(ENGINE);
    expect(all.length).toBeGreaterThan(20);
    const long = all
      .map((f) => ({ file: path.relative(ENGINE, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
