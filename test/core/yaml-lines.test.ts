/** Config errors point at the line of their key in the YAML file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigError } from '../../src/core/config-errors';
import { yamlLineOf } from '../../src/core/yaml-lines';

const TEXT = `venue:
  baseUrl: http://x
strategies:
  - id: a
    module: grid
    params:
      levels: 3
      levles: 4
sweep:
  params:
    a.levels: [1, 2]
`;

describe('yamlLineOf', () => {
  it.each([
    ['strategies[0].params.levles', 8], // an unknown key: the key itself
    ['strategies[0].module', 5], // a value
    ['strategies[0].params.quantity', 6], // a missing key: its parent mapping
    ['venue.auth', 1],
    ['strategies[0]', 4], // a list item
    ['strategies[3]', 3], // past the end of a list: the list
    ['sweep.params.a.levels', 11], // a key with a dot in it
    ['sweep.params (point 0: {"a.x":1}) -> strategies[0].params.x', 10], // a sweep point: the grid
  ])('%s -> line %d', (at, line) => {
    expect(yamlLineOf(TEXT, at)).toBe(line);
  });

  it('is undefined for a path not in the file, or broken YAML', () => {
    expect(yamlLineOf(TEXT, 'nothing')).toBeUndefined();
    expect(yamlLineOf('a: [', 'a')).toBeUndefined();
  });
});

describe('ConfigError.locate', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'perpkit-lines-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts the line after the file name, once', () => {
    const file = path.join(dir, 'bot.yaml');
    writeFileSync(file, TEXT);
    const e = new ConfigError(file, 'strategies[0].params.levles', 'a parameter the strategy reads (levels)', "unknown parameter 'levles'");
    expect(e.locate().message).toBe(`${file}:8: strategies[0].params.levles: expected a parameter the strategy reads (levels), got unknown parameter 'levles'`);
    expect(e.line).toBe(8);
    expect(e.locate().message).toBe(`${file}:8: strategies[0].params.levles: expected a parameter the strategy reads (levels), got unknown parameter 'levles'`);
  });

  it('leaves the message alone when the file is gone or the path is not in it', () => {
    const gone = new ConfigError(path.join(dir, 'gone.yaml'), 'a.b', 'x', 'y');
    expect(gone.locate().message).toBe(`${path.join(dir, 'gone.yaml')}: a.b: expected x, got y`);
    const top = new ConfigError(path.join(dir, 'bot.yaml'), 'nothing', 'x', 'y');
    expect(top.locate().line).toBeUndefined();
  });
});
