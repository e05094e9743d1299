/**
 * A TypeScript strategy outside the checkout, loaded by the compiled CLI (`perpkit run --check`
 * and `perpkit backtest`) with no build step: the one loader (src/bot/strategy-source.ts). The
 * strategy uses a generic call (`defineStrategy<{ symbol: string }>`), which plain `require` reads
 * as JavaScript comparisons and fails with "string is not defined". Editing the file changes what
 * runs at the next start (no stale compiled code).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { compiledIfFresh } from '../../src/bot/strategy-source';
import { ROOT, ensureBuilt } from '../cli/exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');
const INDEX = path.join(ROOT, 'dist', 'src', 'index.js');

function cli(args: string[], cwd: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, BOT_PW: 'x', PERPKIT_LOG_LEVEL: 'warn' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A strategy placing one limit buy below mark; its parameter is named `paramName`. */
function strategySource(paramName: string): string {
  return `import { Dec, defineStrategy, type Intent } from ${JSON.stringify(INDEX)};

interface Params { symbol: string; ${paramName}: string }

export default defineStrategy<Params>({
  name: 'outside',
  symbols: (p) => [p.symbol],
  params: (raw) => {
    for (const k of Object.keys(raw)) if (k !== 'symbol' && k !== '${paramName}') throw new Error(\`unknown parameter '\${k}'; known parameters: symbol, ${paramName}\`);
    return { symbol: String(raw.symbol ?? 'BTCUSDT'), ${paramName}: String(raw.${paramName} ?? '0.01') };
  },
  create: (ctx) => ({
    onEvent(e): Intent[] | void {
      if (e.type !== 'markPrice' || ctx.myOrders().length > 0) return;
      const price = new Dec(e.mark.markPrice).times('0.99').toDecimalPlaces(1).toString();
      return [{ kind: 'place', symbol: ctx.params.symbol, side: 'BUY', type: 'LIMIT', price, quantity: ctx.params.${paramName} }];
    },
  }),
});
`;
}

describe('TypeScript strategies outside the checkout', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-ts-strategy-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('perpkit run --check loads the .ts file directly, and an edit is seen without a build', () => {
    writeFileSync(path.join(dir, 'my-strategy.ts'), strategySource('size'));
    const bot = (param: string): string => `venue:\n  baseUrl: http://127.0.0.1:1\n  auth: { username: u, passwordEnv: BOT_PW }\nstrategies:\n  - id: s\n    module: ./my-strategy.ts\n    params: { symbol: BTCUSDT, ${param}: "0.01" }\n`;
    writeFileSync(path.join(dir, 'bot.yaml'), bot('qty'));
    const before = cli(['run', 'bot.yaml', '--check'], dir);
    expect(before.out).not.toMatch(/is not defined/);
    expect(before.code).toBe(2);
    expect(before.out).toMatch(/strategies\[0\]\.params\.qty/);
    expect(before.out).toMatch(/size/);
    // Rename the parameter in the source: the next start loads the edited code.
    writeFileSync(path.join(dir, 'my-strategy.ts'), strategySource('qty'));
    const after = cli(['run', 'bot.yaml', '--check'], dir);
    expect(after.code).toBe(0);
  });

  it('perpkit backtest runs the same .ts file (also named without its extension)', () => {
    writeFileSync(path.join(dir, 'my-strategy.ts'), strategySource('size'));
    expect(cli(['synth', '--out', 'data.jsonl.gz', '--symbols', 'BTCUSDT', '--hours', '0.1', '--seed', '3'], dir).code).toBe(0);
    for (const mod of ['./my-strategy.ts', './my-strategy']) {
      writeFileSync(path.join(dir, 'bt.yaml'), `data:\n  files: [data.jsonl.gz]\naccount:\n  balance: "10000"\nstrategies:\n  - id: s\n    module: ${mod}\n    params: { symbol: BTCUSDT, size: "0.01" }\nreport:\n  out: out\n`);
      const r = cli(['backtest', 'bt.yaml'], dir);
      expect(r.out).not.toMatch(/is not defined/);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/orders [1-9]\d* accepted/);
    }
  });

  it('a syntax error in a .ts strategy is a config error naming the file, line and column of the error', () => {
    writeFileSync(path.join(dir, 'broken.ts'), `import { defineStrategy } from ${JSON.stringify(INDEX)};\nexport default defineStrategy({ name: 'x', params: (r) => r, symbols: () => ['BTCUSDT'], create: () => ({ onMark() { return [ } }) });\n`);
    writeFileSync(path.join(dir, 'bt3.yaml'), `data:\n  files: [data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ./broken.ts\n`);
    const r = cli(['backtest', 'bt3.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out).toMatch(/bt3\.yaml:\d+: strategies\[0\]\.module: expected a strategy module that loads, got .*broken\.ts: .*Unexpected token at .*broken\.ts:2:\d+/);
  });

  it('a module that throws while it loads: the error names where it threw, in that file or one it imports', () => {
    writeFileSync(path.join(dir, 'throws.ts'), `import { defineStrategy } from ${JSON.stringify(INDEX)};\nconst limit = Number('x');\nif (Number.isNaN(limit)) throw new Error('limit is not a number');\nexport default defineStrategy({ name: 'x', params: (r) => r, symbols: () => ['BTCUSDT'], create: () => ({}) });\n`);
    writeFileSync(path.join(dir, 'imports-throws.ts'), `import './throws';\nexport {};\n`);
    // Thrown inside Node (its frames come first, node:internal/url): the user's line still.
    writeFileSync(path.join(dir, 'bad-url.ts'), `export const venue = 1;\nexport const u = new URL('not a url');\n`);
    for (const [mod, at] of [
      ['./throws.ts', /throws\.ts: limit is not a number \(at \S+throws\.ts:3:\d+\)$/],
      ['./imports-throws.ts', /imports-throws\.ts: limit is not a number \(at \S+[/\\]throws\.ts:3:\d+\)$/],
      ['./bad-url.ts', /bad-url\.ts: Invalid URL \(at \S+[/\\]bad-url\.ts:2:\d+\)$/],
    ] as const) {
      writeFileSync(path.join(dir, 'bt4.yaml'), `data:\n  files: [data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ${mod}\n`);
      const r = cli(['backtest', 'bt4.yaml'], dir);
      expect(r.code).toBe(2);
      expect(r.out.trim().split('\n')).toHaveLength(1);
      expect(r.out.trim()).toMatch(at);
    }
  });

  it('a strategy importing a package that is not installed: says which, and the npm install that fixes it; a missing local file names its importer', () => {
    writeFileSync(path.join(dir, 'needs-pkg.ts'), `import { RSI } from '@no-such-scope/indicators/rsi';\nexport default RSI;\n`);
    writeFileSync(path.join(dir, 'helper.ts'), `export { x } from './lib/nope';\n`);
    writeFileSync(path.join(dir, 'needs-file.ts'), `export { x as default } from './helper';\n`);
    writeFileSync(path.join(dir, 'bot5.yaml'), `venue:\n  baseUrl: http://127.0.0.1:1\n  auth: { username: u, passwordEnv: BOT_PW }\nstrategies:\n  - id: s\n    module: ./needs-pkg.ts\n`);
    const r = cli(['run', 'bot5.yaml', '--check'], dir);
    expect(r.code).toBe(2);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out).toMatch(/bot5\.yaml:6: strategies\[0\]\.module: expected a strategy module that loads, got \S+needs-pkg\.ts: Cannot find module '@no-such-scope\/indicators\/rsi' \(a package it imports is not installed where \S+ can find it: run npm install @no-such-scope\/indicators in that project\)/);
    writeFileSync(path.join(dir, 'bot5.yaml'), `venue:\n  baseUrl: http://127.0.0.1:1\n  auth: { username: u, passwordEnv: BOT_PW }\nstrategies:\n  - id: s\n    module: ./needs-file.ts\n`);
    const local = cli(['run', 'bot5.yaml', '--check'], dir);
    expect(local.code).toBe(2);
    expect(local.out.trim()).toMatch(/needs-file\.ts: Cannot find module '\.\/lib\/nope' \(imported by \S+helper\.ts\)$/);
  });

  it("an import of a perpkit path the package does not export names perpkit's entry points", () => {
    // A project with perpkit installed (a link to this checkout): 'perpkit/indicator' for 'perpkit/indicators'.
    const project = path.join(dir, 'linked');
    mkdirSync(path.join(project, 'node_modules'), { recursive: true });
    symlinkSync(ROOT, path.join(project, 'node_modules', 'perpkit'), 'dir');
    writeFileSync(path.join(project, 'typo.ts'), `import { Ema } from 'perpkit/indicator';\nexport default Ema;\n`);
    writeFileSync(path.join(project, 'bt8.yaml'), `data:\n  files: [../data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ./typo.ts\n`);
    const r = cli(['backtest', 'bt8.yaml'], project);
    expect(r.code).toBe(2);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out.trim()).toMatch(/typo\.ts: Package subpath '\.\/indicator' is not defined by "exports" in \S+package\.json \(perpkit's entry points: perpkit, perpkit\/sdk, perpkit\/backtest, perpkit\/exchange, perpkit\/testing, perpkit\/indicators\)$/);
  });

  it('a folder with no index file is named as such, not as a missing file', () => {
    mkdirSync(path.join(dir, 'empty-strategy'), { recursive: true });
    writeFileSync(path.join(dir, 'bt6.yaml'), `data:\n  files: [data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ./empty-strategy\n`);
    const r = cli(['backtest', 'bt6.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/bt6\.yaml:5: strategies\[0\]\.module: expected a strategy module file .* or a folder with an index file, got \S+empty-strategy: a folder with no index file \(index\.ts, /);
  });

  it('a definition of the wrong shape: one line naming the module, the member, what it should be, and where the user wrote it', () => {
    // Hooks beside create (a plausible slip), through defineStrategy: refused where the module calls it.
    writeFileSync(path.join(dir, 'hooks-beside.ts'), `import { defineStrategy, param, params } from ${JSON.stringify(INDEX)};\n\nexport default defineStrategy({\n  name: 'beside',\n  params: params({ symbol: param.string({ default: 'BTCUSDT' }) }),\n  symbols: (p) => [p.symbol],\n  onMark() {},\n} as never);\n`);
    // A plain object with a params schema, without defineStrategy.
    writeFileSync(path.join(dir, 'no-define.ts'), `import { param, params } from ${JSON.stringify(INDEX)};\nexport default { name: 'raw', params: params({ symbol: param.string({ default: 'BTCUSDT' }) }), symbols: (p: { symbol: string }) => [p.symbol], create: () => ({}) };\n`);
    const bt = (mod: string): { code: number | null; out: string } => {
      writeFileSync(path.join(dir, 'bt7.yaml'), `data:\n  files: [data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ${mod}\n`);
      return cli(['backtest', 'bt7.yaml'], dir);
    };
    const beside = bt('./hooks-beside.ts');
    expect(beside.code).toBe(2);
    expect(beside.out.trim().split('\n')).toHaveLength(1);
    expect(beside.out.trim()).toMatch(/^perpkit backtest: bt7\.yaml:5: strategies\[0\]\.module: expected a strategy module that loads, got \S+hooks-beside\.ts: defineStrategy\('beside'\): expected a definition \{ name, params, symbols, create \}, got one whose create is missing \(.*: onMark goes in the object create\(ctx\) returns, not beside create\) \(at \S+hooks-beside\.ts:3:\d+\)$/);
    const raw = bt('./no-define.ts');
    expect(raw.code).toBe(2);
    expect(raw.out.trim()).toMatch(/got \S+no-define\.ts exporting an object with keys name, params, symbols, create, whose params is a schema, which only defineStrategy\(\{\.\.\.\}\) turns into a definition/);
    // A complete definition without defineStrategy, a hook beside its create: never called (exit 0, nothing traded).
    writeFileSync(path.join(dir, 'stray.js'), "module.exports = { name: 'stray', params: (raw) => raw, symbols: () => ['BTCUSDT'], create: () => ({}), onMark() { return []; } };\n");
    const stray = bt('./stray.js');
    expect([stray.code, stray.out.trim().split('\n').length]).toEqual([2, 1]);
    expect(stray.out.trim()).toMatch(/strategies\[0\]\.module: expected a strategy definition whose hooks are in the object create\(ctx\) returns, got \S+stray\.js exporting a definition whose onMark is beside create, where nothing calls it \(onMark goes in the object create\(ctx\) returns, not beside create\)$/);
  });

  it("a sweep's objective module in TypeScript loads as the strategy does, with no build", () => {
    writeFileSync(path.join(dir, 'my-strategy.ts'), strategySource('size'));
    // Type annotations: plain require reads them as JavaScript and fails ("Unexpected identifier").
    writeFileSync(path.join(dir, 'objective.ts'), `interface Summary { fills: number }\nexport function fewFills(s: Summary, info: { spanMs: number }): number {\n  return -s.fills + (info.spanMs > 0 ? 0 : 1e9);\n}\n`);
    const sweep = (objective: string): string => `data:\n  files: [data.jsonl.gz]\naccount:\n  balance: "10000"\nstrategies:\n  - id: s\n    module: ./my-strategy.ts\n    params: { symbol: BTCUSDT, size: "0.01" }\nreport:\n  out: out\nsweep:\n  objective: ${objective}\n  params:\n    s.size: ["0.01", "0.02"]\n`;
    writeFileSync(path.join(dir, 'sw.yaml'), sweep('{ module: ./objective.ts, export: fewFills }'));
    const r = cli(['sweep', 'sw.yaml', '--workers', '1', '--quiet'], dir);
    expect(r.out).not.toMatch(/Unexpected identifier/);
    expect(r.code).toBe(0);
    // Neither point fills in this short run: the summary says so (a sweep ranks a point that never traded last).
    expect(r.out).toMatch(/2 finished, 0 failed, 2 never traded \(0 fills; [^)]*\); ranked by module:\.\/objective\.ts#fewFills/);
    writeFileSync(path.join(dir, 'sw.yaml'), sweep('{ module: ./objectve.ts, export: fewFills }'));
    const missing = cli(['sweep', 'sw.yaml', '--workers', '1', '--quiet'], dir);
    expect(missing.code).toBe(2);
    expect(missing.out.trim()).toMatch(/^perpkit sweep: sw\.yaml:12: sweep\.objective\.module: expected a module file \(\.ts or \.js\) that exists, got \S+objectve\.ts: no such file$/);
  });

  it('a missing module is a config error naming the file and key', () => {
    writeFileSync(path.join(dir, 'bt2.yaml'), `data:\n  files: [data.jsonl.gz]\nstrategies:\n  - id: s\n    module: ./nope.ts\n`);
    const r = cli(['backtest', 'bt2.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/bt2\.yaml:\d+: strategies\[0\]\.module/);
    expect(r.out).toContain('nope.ts: no such file');
  });
});

describe('an example strategy in a checkout: compiled when the build is as new as every example source', () => {
  let root: string;
  const T = 1_700_000_000;
  const put = (rel: string, at: number): void => {
    const f = path.join(root, rel);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, '');
    utimesSync(f, at, at);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'perpkit-examples-'));
    // Sources: two examples sharing a parameters file and an indicators folder; a test file is not built.
    for (const f of ['src/mm/index.ts', 'src/mm/quotes.ts', 'src/grid/index.ts', 'src/params.ts', 'src/indicators/ema.ts', 'src/configs.test.ts']) put(f, T);
    for (const f of ['dist/mm/index.js', 'dist/mm/quotes.js', 'dist/grid/index.js', 'dist/params.js', 'dist/indicators/ema.js']) put(f, T + 10);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const pick = (spec: string): string | undefined => compiledIfFresh(path.join(root, 'src'), path.join(root, 'dist'), spec);

  it('every source has a newer compiled twin: the compiled example', () => {
    expect(pick('mm')).toBe(path.join(root, 'dist', 'mm', 'index.js'));
    expect(pick('grid')).toBe(path.join(root, 'dist', 'grid', 'index.js'));
  });

  it('an edited source anywhere among the examples (its own file, a shared one, a nested one): the source', () => {
    for (const edited of ['src/mm/quotes.ts', 'src/params.ts', 'src/indicators/ema.ts']) {
      put(edited, T + 20);
      expect(pick('mm')).toBeUndefined();
      put(edited, T);
    }
    expect(pick('mm')).toBeDefined();
  });

  it('a source without a compiled twin, or an example never built: the source', () => {
    put('src/mm/new-file.ts', T);
    expect(pick('mm')).toBeUndefined();
    rmSync(path.join(root, 'src', 'mm', 'new-file.ts'));
    expect(pick('mm')).toBeDefined();
    // One example without its build: the whole tree is not built, so every example loads its source.
    rmSync(path.join(root, 'dist', 'grid', 'index.js'));
    expect(pick('grid')).toBeUndefined();
    expect(pick('mm')).toBeUndefined();
  });
});

describe('what a backtest loads', () => {
  beforeAll(() => {
    ensureBuilt();
  });

  /** Loads the public API, the backtester and a strategy in a fresh compiled process; which of undici, ws and jiti it loaded. */
  function loaded(strategy: string): Record<string, boolean> {
    const script = `
      require(${JSON.stringify(INDEX)});
      require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'backtest', 'backtest', 'backtest.js'))});
      const { loadStrategySource } = require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'bot', 'strategy-source.js'))});
      loadStrategySource(${JSON.stringify(strategy)}, ${JSON.stringify(ROOT)});
      const keys = Object.keys(require.cache);
      const has = (m) => keys.some((k) => k.includes('/node_modules/' + m + '/'));
      process.stdout.write(JSON.stringify({ undici: has('undici'), ws: has('ws'), jiti: has('jiti') }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`the loading script failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, boolean>;
  }

  it('an example strategy: neither the network libraries (the client loads them when it connects) nor jiti', () => {
    expect(loaded('market-maker')).toEqual({ undici: false, ws: false, jiti: false });
  });

  it('a TypeScript strategy file: jiti, to read it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-load-'));
    try {
      writeFileSync(path.join(dir, 's.ts'), strategySource('size'));
      expect(loaded(path.join(dir, 's.ts'))).toEqual({ undici: false, ws: false, jiti: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
