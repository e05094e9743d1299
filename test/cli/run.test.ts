/**
 * `perpkit run` as a process: exit codes and messages for bad input, and a crash (SIGKILL) and
 * restart mid-run that adopts the open orders instead of quoting twice, then SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import { ROOT, ensureBuilt, runCli } from './exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');
const SECRET = 'k3y-V4lue-that-must-not-print';

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function writeConfig(doc: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-run-'));
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

beforeAll(() => ensureBuilt(), 120_000);

describe('perpkit run: usage and config errors', () => {
  it('prints help with exit 0 and refuses missing arguments with exit 2', () => {
    const help = runCli(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/perpkit run <config.yaml>/);
    const none = runCli(['run']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/expected exactly one config file/);
  });

  it('exits 2 naming file, path, expected and got for an invalid config', () => {
    const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker', params: { quantity: 'lots' } }] });
    const r = runCli(['run', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: strategies\\[0\\]\\.params\\.quantity: expected a positive decimal`));
    expect(r.stderr).toContain('got "lots"');
  });

  it('exits 2 naming a missing environment variable without printing any secret', () => {
    const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { apiKeyEnv: 'PK_KEY', secretEnv: 'PK_SECRET_UNSET' } }, strategies: [{ id: 'mm', module: 'market-maker' }] });
    const r = spawnSync(process.execPath, [BIN, 'run', file], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PK_KEY: SECRET }, timeout: 20000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('venue.auth.secretEnv: expected environment variable PK_SECRET_UNSET to be set');
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  });
});

describe('perpkit run --check constructs the strategies (their create(), with no venue)', () => {
  const check = (module: string, source: string) => {
    const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'bb', module }] });
    writeFileSync(path.join(path.dirname(file), module), source);
    return spawnSync(process.execPath, [BIN, 'run', file, '--check'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, P: 'x' }, timeout: 20000 });
  };
  const strategy = (create: string) => `module.exports = { name: 't', symbols: () => ['BTCUSDT'], params: (raw) => raw, create: ${create} };\n`;

  it('fails with exit 1 naming the strategy id, create(), the error with its top frame and the module, when create() throws', () => {
    // The port of venue.baseUrl has nothing listening: a check that connected would fail otherwise.
    const r = check('throwcreate.js', strategy(`() => { throw new Error('create exploded'); }`));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^perpkit run: strategy bb could not be created: \[bb\] create\(\): create exploded \(at .*throwcreate\.js:1:\d+\)\); module throwcreate\.js\n$/);
    expect(r.stdout).toBe('');
  });

  it('the top frame keeps the real path when the config path is relative (a "bot/" inside it was cut out)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'perpkit-run-rel-'));
    mkdirSync(path.join(root, 'mybot', 'bot'), { recursive: true });
    mkdirSync(path.join(root, 'mybot', 'src'));
    const module = path.join(root, 'mybot', 'src', 'x.js');
    writeFileSync(module, strategy(`() => { throw new Error('create exploded'); }`));
    writeFileSync(path.join(root, 'mybot', 'bot', 'bot.yaml'), JSON.stringify({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'bb', module: '../src/x.js' }] }));
    const r = spawnSync(process.execPath, [BIN, 'run', 'bot/bot.yaml', '--check'], { cwd: path.join(root, 'mybot'), encoding: 'utf8', env: { ...process.env, P: 'x' }, timeout: 20000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`(${module}:1:`);
  });

  it('says ok when every strategy is created, and which ones need the venue for their create()', () => {
    const ok = check('fine.js', strategy(`(ctx) => ({ onMark: () => [] })`));
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/bot\.yaml: ok \(1 strategy created\)\n$/);
    const specs = check('specs.js', strategy(`(ctx) => { const tick = ctx.market().tickSize; return { onMark: () => [] }; }`));
    expect(specs.status).toBe(0);
    expect(specs.stdout).toMatch(/ok \(1 strategy created; create\(\) of bb reads symbol specs from the venue, so it runs only at start\)/);
  });
});

describe('perpkit run: a state file that cannot be read', () => {
  // --check said ok and exited 0; the run then failed (exit 2) with the reason only in a JSON log
  // line on stdout, and nothing on stderr.
  it('is refused before anything is sent, by --check and by the run alike: exit 2, one line on stderr', () => {
    const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }], stateFile: 'state.json' });
    const state = path.join(path.dirname(file), 'state.json');
    writeFileSync(state, '{broken');
    for (const extra of [['--check'], []]) {
      const r = spawnSync(process.execPath, [BIN, 'run', file, ...extra], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, P: 'x' }, timeout: 20000 });
      expect([r.status, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(new RegExp(`^perpkit run: cannot read the state file: ${state.replace(/[.]/g, '\\.')}: not valid JSON \\([^\n]*\\); move it away to start fresh\n$`));
    }
  });

  // --check said ok; the run then traded with its state unsaved (degraded) and failed its stop.
  it('--check: a state file whose folder cannot be written is exit 2, saying so; a folder still to be made is fine', () => {
    const check = (stateFile: string) => {
      const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }], stateFile });
      return spawnSync(process.execPath, [BIN, 'run', file, '--check'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, P: 'x' }, timeout: 20000 });
    };
    const bad = check('/proc/perpkit-nope/state.json');
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([2, '', 'perpkit run: cannot write the state file /proc/perpkit-nope/state.json: cannot create anything in /proc (ENOENT); a run would trade without saving its state (/healthz degraded)\n']);
    const fine = check('state/deeper/state.json');
    expect([fine.status, fine.stderr]).toEqual([0, '']);
  });

  // A folder path through a regular file was a stack trace and exit 1 (systemd restarts exit 1).
  it('a state path through a regular file: the same one line and exit 2, by --check and by the run', () => {
    const file = writeConfig({ venue: { baseUrl: 'http://127.0.0.1:1', auth: { username: 'a', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }], stateFile: 'notadir/state.json' });
    writeFileSync(path.join(path.dirname(file), 'notadir'), 'a file');
    const state = path.join(path.dirname(file), 'notadir', 'state.json');
    for (const extra of [['--check'], []]) {
      const r = spawnSync(process.execPath, [BIN, 'run', file, ...extra], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, P: 'x' }, timeout: 20000 });
      expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `perpkit run: cannot read the state file: ${state}: cannot be read: a part of its folder path is a file, not a folder (ENOTDIR)\n`]);
    }
  });
});

describe('perpkit run: crash and restart against the local exchange', () => {
  let ex: TestExchange;
  const procs: ChildProcess[] = [];

  beforeAll(async () => {
    ex = await startTestExchange();
  });

  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await ex.stop();
  });

  function start(file: string, password: string): { child: ChildProcess; out: () => string; exited: Promise<{ code: number | null; ms: number }> } {
    const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: password } });
    procs.push(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    let killedAt = 0;
    const origKill = child.kill.bind(child);
    child.kill = (sig?: NodeJS.Signals | number) => {
      killedAt = Date.now();
      return origKill(sig);
    };
    const exited = new Promise<{ code: number | null; ms: number }>((resolve) => child.on('exit', (code) => resolve({ code, ms: Date.now() - killedAt })));
    return { child, out: () => out, exited };
  }

  it('adopts the orders of the killed run (same two quotes, none added), then stops on SIGTERM with exit 0 and cancels', async () => {
    const u = await ex.createUser({ balance: '100000' });
    const file = writeConfig({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
      stateFile: 'state.json',
      stateSaveMs: 100,
      cancelOnStop: true,
      http: { port: 0 },
      logging: { level: 'info' },
    });
    const stateFile = path.join(path.dirname(file), 'state.json');
    const open = () =>
      ex.server.core.engine
        .currentOrders(u.userId, { symbol: 'BTCUSDT' })
        .list.map((o) => o.clientOrderId)
        .sort();

    const first = start(file, u.password);
    await until(() => open().length === 2, 15000, 'first run quoting');
    await until(() => existsSync(stateFile) && (readFileSync(stateFile, 'utf8').match(/"clientOrderId"/g) ?? []).length === 2, 5000, 'state saved');
    first.child.kill('SIGKILL');
    await first.exited;
    const left = open();
    expect(left).toHaveLength(2);

    const second = start(file, u.password);
    await until(() => /"msg":"bot started"/.test(second.out()), 15000, 'second run started');
    expect(second.out()).toMatch(/"restoredOrders":2/);
    // Several re-quote timers later the venue still holds exactly the old two orders.
    await new Promise((r) => setTimeout(r, 800));
    expect(open()).toEqual(left);

    second.child.kill('SIGTERM');
    const { code, ms } = await second.exited;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
    expect(open()).toEqual([]);
    expect(second.out()).not.toContain(u.password);
  }, 60_000);

  // The reason was only in a JSON log line on stdout, with nothing on stderr (every other start failure has its line there).
  it("a strategy whose create() throws at start: exit 1, one line on stderr naming it, besides the log's", async () => {
    const u = await ex.createUser({ balance: '100000' });
    const file = writeConfig({ venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } }, strategies: [{ id: 'bb', module: 'throwcreate.js' }], http: { port: 0 } });
    writeFileSync(path.join(path.dirname(file), 'throwcreate.js'), "module.exports = { name: 't', symbols: () => ['BTCUSDT'], params: (raw) => raw, create: () => { throw new Error('create exploded'); } };\n");
    const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
    procs.push(child);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/^perpkit run: the bot could not start: strategy bb could not be created: \[bb\] create\(\): create exploded \(at .*throwcreate\.js:1:\d+\)\); module throwcreate\.js\n$/);
    expect(out).toMatch(/"level":60,.*"msg":"the bot could not start: a strategy could not be created"/);
  }, 30_000);

  // Exit 1 made the systemd unit sign in again with the refused password every few seconds.
  it('credentials the venue refuses: exit 2 (a config error no restart fixes), saying which', async () => {
    const u = await ex.createUser({ balance: '100000' });
    const file = writeConfig({ venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } }, strategies: [{ id: 'mm', module: 'market-maker' }], http: { port: 0 } });
    const bot = start(file, 'not-the-password');
    const { code } = await bot.exited;
    expect(code).toBe(2);
    expect(bot.out()).toMatch(/perpkit run: the bot could not start: [^\n]*20005[^\n]*; the venue refused user/);
  }, 60_000);

  // A dropped ssh session (SIGHUP) ended the bot at once with 129: its quotes left working, nothing saved or logged.
  it('SIGHUP is a graceful stop, said at warn: quotes cancelled, exit 0', async () => {
    const u = await ex.createUser({ balance: '100000' });
    const file = writeConfig({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
      cancelOnStop: true,
      http: { port: 0 },
      logging: { level: 'info' },
    });
    const open = () => ex.server.core.engine.currentOrders(u.userId, { symbol: 'BTCUSDT' }).list.length;
    const bot = start(file, u.password);
    await until(() => open() === 2, 15000, 'quoting');
    bot.child.kill('SIGHUP');
    const { code } = await bot.exited;
    expect(code).toBe(0);
    expect(open()).toBe(0);
    expect(bot.out()).toMatch(/"level":40,[^\n]*"msg":"SIGHUP: the terminal the bot ran in went away; stopping gracefully/);
  }, 60_000);

  it('http.port in use: exit 1, and one line on stderr naming the port and the config key (it was a JSON log line on stdout only)', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const u = await ex.createUser({ balance: '100000' });
      const file = writeConfig({
        venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
        strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
        http: { host: '127.0.0.1', port },
        logging: { level: 'info' },
      });
      // Not spawnSync: the exchange answers from this process.
      const child = spawn(process.execPath, [BIN, 'run', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOT_PASSWORD: u.password } });
      procs.push(child);
      const r = { status: null as number | null, stdout: '', stderr: '' };
      child.stdout?.on('data', (d: Buffer) => (r.stdout += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (r.stderr += d.toString()));
      r.status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/"msg":"the bot could not start"/);
      expect(r.stderr).toBe(`perpkit run: the bot could not start: listen EADDRINUSE: address already in use 127.0.0.1:${port}; http.port ${port} is in use on 127.0.0.1 (another perpkit run, or something else, listens there): stop it, or set http.port in ${file} to a free port (0 picks one)\n`);
      // The start that failed cancelled what it had placed.
      expect(ex.server.core.engine.currentOrders(u.userId, { symbol: 'BTCUSDT' }).list).toEqual([]);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  }, 60_000);

  it('a stop that cannot finish (the venue does not answer) exits at stopTimeoutMs with exit 1, saying so, not when the calls give up', async () => {
    const u = await ex.createUser({ balance: '100000' });
    const file = writeConfig({
      venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
      cancelOnStop: true,
      stopTimeoutMs: 1000,
      http: { port: 0 },
      logging: { level: 'info' },
    });
    const open = () => ex.server.core.engine.currentOrders(u.userId, { symbol: 'BTCUSDT' }).list.length;
    const bot = start(file, u.password);
    await until(() => open() === 2, 15000, 'quoting');
    // Every order request of this user is answered 30 s late: the cancel of the stop hangs.
    const r = await ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body: { fault: 'delayMs', ms: 30_000, userId: u.userId, pathPrefix: '/v1/private/order' } });
    expect(r.body.code).toBe(0);
    try {
      bot.child.kill('SIGINT');
      const { code, ms } = await bot.exited;
      expect(code).toBe(1);
      expect(ms).toBeLessThan(5000);
      expect(bot.out()).toContain('perpkit run: the stop did not finish in 1000 ms; exiting now with orders possibly still open on the venue (check them)');
    } finally {
      await ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body: { fault: 'all', on: false } });
    }
  }, 60_000);
});
