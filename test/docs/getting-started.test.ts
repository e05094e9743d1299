/**
 * docs/getting-started.md, followed by a machine: the files the doc tells a newcomer to create are
 * taken from the doc itself (fenced blocks whose first line is `# file: <path>` or
 * `// file: <path>`), and every command run here is checked to appear in the doc, then run with
 * the built CLI (`node bin/perpkit.js`, which `npx perpkit` runs) in a temporary directory laid
 * out like the checkout. Deviations from the doc, all for a shared test machine: ports are 0 (the
 * doc's 8080 and 9464 may be taken), the strategy's import of the public API points at the
 * checkout's build (the temp dir is outside the checkout; the CLI loads the .ts file itself, as the
 * doc says), and the sweep grid is cut to two points
 * on five minutes of data.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { ROOT, ensureBuilt } from '../cli/exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');
const DOC = readFileSync(path.join(ROOT, 'docs', 'getting-started.md'), 'utf8');

/** The doc's `file:` blocks: path -> content (without the marker line). */
function docFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const m of DOC.matchAll(/```\w+\n(?:#|\/\/) file: (\S+)\n([\s\S]*?)```/g)) files.set(m[1], m[2]);
  return files;
}

/** Every non-empty line of the doc's sh blocks, continuation lines joined. */
function docCommands(): string[] {
  const out: string[] = [];
  for (const m of DOC.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = m[1].replace(/\\\n\s*/g, '');
    for (const line of joined.split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (cmd !== '') out.push(cmd);
    }
  }
  return out;
}

const COMMANDS = docCommands();
/** Expects the doc to show this command (as a whole line of an sh block). */
function inDoc(cmd: string): void {
  expect(COMMANDS).toContain(cmd);
}

interface Child {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];

function start(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Child {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: 'warn', ...opts.env } });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function until<T>(get: () => T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function untilAsync(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const listening = (c: Child): Promise<string> => until(() => /^listening on (http:\/\/\S+)$/m.exec(c.out())?.[1], 40_000, `listening line (stderr: ${c.err()})`);

/** The doc's strategy, type-checked against the real API as if it sat in strategies/dip-buyer/. */
function typeCheck(source: string): string[] {
  const file = path.join(ROOT, 'strategies', 'dip-buyer', 'index.ts');
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const options: ts.CompilerOptions = { ...(parsed?.options ?? {}), noEmit: true, incremental: false, types: ['node'] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, onError, create) => (path.resolve(name) === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, onError, create));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

let dir = '';
const files = docFiles();
const timings: Record<string, number> = {};

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'perpkit-getting-started-'));
  for (const d of ['config', 'data', 'strategies/dip-buyer']) mkdirSync(path.join(dir, d), { recursive: true });
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  // Printed so a slow step shows in CI logs.
  process.stdout.write(`getting-started timings (ms): ${JSON.stringify(timings)}\n`);
});

async function timed<T>(name: string, f: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    timings[name] = Math.round(performance.now() - t0);
  }
}

describe('docs/getting-started.md', () => {
  it('has the files a newcomer creates and the commands this test runs', () => {
    expect([...files.keys()].sort()).toEqual(['config/backtest-dip-buyer.yaml', 'config/bot-dip-buyer.yaml', 'my-exchange.yaml', 'strategies/dip-buyer/index.ts']);
    for (const c of ['npm install', 'npm start', 'npm test', 'npm run build', 'npx perpkit --help']) expect(DOC).toContain(c);
    // Paths the doc names exist in the checkout.
    for (const p of ['config/bot-market-maker.yaml', 'config/backtest-market-maker-sweep.yaml', 'config/record.yaml', 'config/exchange.yaml', 'data/sample/btcusdt-2h.jsonl.gz', 'docs/architecture.md', 'docs/running.md', 'docs/backtesting.md', 'docs/recording.md', 'docs/risk.md', 'docs/strategies.md']) {
      expect(existsSync(path.join(ROOT, p))).toBe(true);
    }
    for (const n of ['market-maker', 'grid', 'trend', 'carry']) {
      inDoc(`npx perpkit backtest config/backtest-${n}.yaml`);
      expect(existsSync(path.join(ROOT, 'config', `backtest-${n}.yaml`))).toBe(true);
    }
  });

  it('the strategy of section 4 type-checks against the public API', async () => {
    const src = files.get('strategies/dip-buyer/index.ts') ?? '';
    expect(src).toContain("from '../../src/index'");
    expect(await timed('typecheck', () => typeCheck(src))).toEqual([]);
    // The TypeScript file itself, as the doc writes it: the CLI loads it with no build step.
    writeFileSync(path.join(dir, 'strategies', 'dip-buyer', 'index.ts'), src.replace("'../../src/index'", JSON.stringify(path.join(ROOT, 'dist', 'src', 'index'))));
  }, 60_000);

  it('section 5: exchange, user by the admin API, bot --check, bot running with health, status and metrics, clean stop', async () => {
    inDoc('npx perpkit exchange --market synthetic --admin-token dev');
    const ex = start(['exchange', '--market', 'synthetic', '--admin-token', 'dev', '--port', '0'], { cwd: dir });
    const url = await timed('exchange start', () => listening(ex));

    // The doc's curl call (its node one-liner makes the same request).
    expect(DOC).toContain(`curl -s -X POST http://127.0.0.1:8080/v1/admin/users -H 'x-admin-token: dev'`);
    expect(DOC).toContain(`{"username":"dip-bot","password":"change-me","balance":"100000"}`);
    const res = await fetch(`${url}/v1/admin/users`, { method: 'POST', headers: { 'x-admin-token': 'dev', 'content-type': 'application/json' }, body: JSON.stringify({ username: 'dip-bot', password: 'change-me', balance: '100000' }) });
    const created = (await res.json()) as { code: number; data: { userId: string } };
    expect(created.code).toBe(0);
    expect(created.data.userId).toMatch(/^\d+$/);

    const bot = (files.get('config/bot-dip-buyer.yaml') ?? '').replace('http://127.0.0.1:8080', url).replace('port: 9464', 'port: 0');
    const cfg = path.join(dir, 'config', 'bot-dip-buyer.yaml');
    writeFileSync(cfg, bot);
    const env = { PERPKIT_PASSWORD: 'change-me' };
    inDoc('PERPKIT_PASSWORD=change-me npx perpkit run config/bot-dip-buyer.yaml --check');
    const check = run(['run', 'config/bot-dip-buyer.yaml', '--check'], dir, env);
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/bot-dip-buyer\.yaml: ok \(1 strategy created\)/);
    expect(check.code).toBe(0);

    inDoc('PERPKIT_PASSWORD=change-me npx perpkit run config/bot-dip-buyer.yaml');
    const b = start(['run', 'config/bot-dip-buyer.yaml'], { cwd: dir, env });
    const health = await timed('bot start', () => until(() => /"url":"(http:[^"]+)","msg":"health and metrics server listening"/.exec(b.out())?.[1], 15_000, `bot start (stdout: ${b.out()})`));
    // 'bot started' follows the health server's line once the state file is written: wait for it.
    await until(() => (b.out().includes('"msg":"bot started"') ? true : undefined), 15_000, `'bot started' (stdout: ${b.out()})`);
    const hz = (await (await fetch(`${health}/healthz`)).json()) as { status: string; state: string; privateStream: string };
    expect(hz).toMatchObject({ status: 'ok', state: 'ACTIVE', privateStream: 'connected' });
    // The dip buyer bids below mark: one open order once a mark price has arrived.
    let status: { openOrders?: number; stats?: { intents: number; denials: number } } = {};
    await timed('first order', () =>
      untilAsync(
        async () => {
          status = (await (await fetch(`${health}/status`)).json()) as typeof status;
          return status.openOrders === 1;
        },
        15_000,
        'an open order in /status',
      ),
    );
    expect(status.stats).toMatchObject({ intents: 1, denials: 0 });
    const metrics = await (await fetch(`${health}/metrics`)).text();
    expect(metrics).toContain('perpkit_bot_trading_state{state="ACTIVE"} 1');
    expect(metrics).toContain('perpkit_bot_private_stream_up 1');

    b.child.kill('SIGINT');
    expect(await b.exited).toBe(0);
    expect(b.out()).toContain('"msg":"stopped cleanly"');
    expect(existsSync(path.join(dir, 'config', 'state', 'bot-dip-buyer.json'))).toBe(true);
    ex.child.kill('SIGINT');
    expect(await ex.exited).toBe(0);
  }, 60_000);

  it('section 5: the exchange config with users: creates the user at start', async () => {
    inDoc('npx perpkit exchange --config my-exchange.yaml');
    writeFileSync(path.join(dir, 'my-exchange.yaml'), files.get('my-exchange.yaml') ?? '');
    const ex = start(['exchange', '--config', 'my-exchange.yaml', '--port', '0'], { cwd: dir });
    const url = await listening(ex);
    const login = (await (await fetch(`${url}/v1/public/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'dip-bot', password: 'change-me' }) })).json()) as { code: number };
    expect(login.code).toBe(0);
    ex.child.kill('SIGINT');
    expect(await ex.exited).toBe(0);
  }, 30_000);

  it('section 6: synth, then backtest the strategy; the report files exist', async () => {
    const synthCmd = 'npx perpkit synth --out data/btc-2h.jsonl.gz --symbols BTCUSDT --hours 2 --seed 7';
    inDoc(synthCmd);
    const s = await timed('synth', () => run(synthCmd.split(' ').slice(2), dir));
    // Nothing but the progress lines a run longer than 2 s prints (a loaded machine makes one).
    expect(s.stderr.replace(/^synth: \d+% \([\d.]+ of 2 h\)\n/gm, '')).toBe('');
    expect(s.stdout).toMatch(/^wrote \d+ events \(\d+ trades\) to data\/btc-2h\.jsonl\.gz/);
    expect(s.code).toBe(0);

    writeFileSync(path.join(dir, 'config', 'backtest-dip-buyer.yaml'), files.get('config/backtest-dip-buyer.yaml') ?? '');
    inDoc('npx perpkit backtest config/backtest-dip-buyer.yaml');
    const bt = await timed('backtest', () => run(['backtest', 'config/backtest-dip-buyer.yaml'], dir));
    expect(bt.code).toBe(0);
    expect(bt.stdout).toMatch(/^backtest: \d+ events in/);
    const out = path.join(dir, 'backtest-out', 'dip-buyer');
    for (const f of ['report.json', 'report.html', 'run.json']) expect(existsSync(path.join(out, f))).toBe(true);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { ordersAccepted: number; denials: number; finalEquity: string } };
    expect(report.summary.ordersAccepted).toBeGreaterThan(0);
    expect(report.summary.denials).toBe(0);
    expect(Number.isFinite(Number(report.summary.finalEquity))).toBe(true);
  }, 60_000);

  it('section 7: a sweep on 2 workers writes its ranked table', async () => {
    inDoc('npx perpkit sweep config/backtest-market-maker-sweep.yaml --workers 2');
    // The doc's config, cut to two points on five minutes so the test stays fast.
    const src = readFileSync(path.join(ROOT, 'config', 'backtest-market-maker-sweep.yaml'), 'utf8');
    const tiny = src
      .replace('[../data/sample/btcusdt-2h.jsonl.gz]', `[${JSON.stringify(path.join(ROOT, 'data', 'sample', 'btcusdt-2h.jsonl.gz'))}]`)
      .replace(/to: .*/, 'to: 2024-01-01T00:05:00Z')
      .replace(/mm\.minSpreadBps: .*/, 'mm.minSpreadBps: ["4", "8"]')
      .replace(/\n\s+mm\.skewBps: .*/, '');
    expect(tiny).not.toBe(src);
    writeFileSync(path.join(dir, 'config', 'sweep-tiny.yaml'), tiny);
    const sw = await timed('sweep', () => run(['sweep', 'config/sweep-tiny.yaml', '--workers', '2'], dir));
    expect(sw.stderr).not.toMatch(/Error/);
    expect(sw.code).toBe(0);
    expect(sw.stdout).toMatch(/sweep: 2 jobs on 2 worker\(s\)/);
    const out = path.join(dir, 'backtest-out', 'market-maker-sweep');
    for (const f of ['sweep.json', 'sweep.csv', 'sweep.md']) expect(existsSync(path.join(out, f))).toBe(true);
    const table = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { rows: unknown[] };
    expect(table.rows).toHaveLength(2);
  }, 60_000);
});
