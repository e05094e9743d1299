/**
 * `perpkit init` and `perpkit --version`, from the built CLI. The scaffold's own `npm install &&
 * npm test && npm run backtest` runs in test/package/install.test.ts (from the packed tarball).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT, ensureBuilt } from './exchange-proc';

const BIN = path.join(ROOT, 'bin', 'perpkit.js');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function cli(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('perpkit init', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-init-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the project into a new folder, named after it, depending on this perpkit', () => {
    const r = cli(['init', 'My Bot'], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const project = path.join(dir, 'My Bot');
    const pkg = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.name).toBe('my-bot');
    expect(pkg.dependencies.perpkit).toBe(`^${VERSION}`);
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['test', 'backtest', 'check', 'start']));
    expect(readFileSync(path.join(project, 'test', 'strategy.test.ts'), 'utf8')).toContain("from 'perpkit/testing'");
    expect(readFileSync(path.join(project, 'config', 'bot.yaml'), 'utf8')).toContain('module: ../src/strategy.ts');
    expect(readFileSync(path.join(project, 'config', 'backtest.yaml'), 'utf8')).toContain('module: ../src/strategy.ts');
    expect(readdirSync(project).sort()).toEqual(['.gitignore', 'README.md', 'config', 'package.json', 'src', 'test', 'tsconfig.json']);
    // cancelOnStop: true cancels a bracket's exits at a stop: the files say so (the strategy said
    // its position was "protected even if the bot stops", and Ctrl+C cancelled its stop-loss).
    const files = ['src/strategy.ts', 'config/bot.yaml', 'README.md'].map((f) => readFileSync(path.join(project, f), 'utf8'));
    expect(files[1]).toMatch(/^cancelOnStop: true$/m);
    for (const text of files) {
      expect(text).not.toMatch(/protected even if the bot stops/);
      expect(text).toMatch(/WITHOUT a stop/);
    }
  });

  it("its README's command blocks can be pasted as they are: a command that runs until Ctrl+C ends its block", () => {
    const readme = readFileSync(path.join(dir, 'My Bot', 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].replace(/\\\n\s*/g, '').split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== ''));
    const blocking = /perpkit exchange|npm start|perpkit run(?!.*--check)/;
    expect(blocks.flat().filter((c) => blocking.test(c))).toEqual(['npx perpkit exchange --market synthetic --admin-token dev', 'PERPKIT_PASSWORD=change-me npm start']);
    for (const block of blocks) {
      const at = block.findIndex((c) => blocking.test(c));
      if (at !== -1) expect(block.slice(at + 1)).toEqual([]);
    }
    // The user the README creates is the one config/bot.yaml signs in as.
    expect(readme).toContain('"username":"my-bot"');
    expect(readFileSync(path.join(dir, 'My Bot', 'config', 'bot.yaml'), 'utf8')).toMatch(/username: my-bot\n/);
  });

  it('also writes into an existing empty folder', () => {
    mkdirSync(path.join(dir, 'empty'));
    expect(cli(['init', 'empty', '--name', 'custom'], dir).code).toBe(0);
    expect((JSON.parse(readFileSync(path.join(dir, 'empty', 'package.json'), 'utf8')) as { name: string }).name).toBe('custom');
  });

  it('refuses a folder that is not empty with one line, and writes nothing', () => {
    mkdirSync(path.join(dir, 'busy'));
    writeFileSync(path.join(dir, 'busy', 'notes.txt'), 'mine\n');
    const r = cli(['init', 'busy'], dir);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^perpkit init: \S+busy is not empty \(1 entry, e\.g\. notes\.txt\)/);
    expect(readdirSync(path.join(dir, 'busy'))).toEqual(['notes.txt']);
  });

  it('refuses bad arguments with exit 2', () => {
    writeFileSync(path.join(dir, 'a-file'), 'x');
    expect(cli(['init', 'a-file'], dir)).toMatchObject({ code: 2, err: expect.stringMatching(/a-file exists and is not a folder/) });
    expect(cli(['init'], dir)).toMatchObject({ code: 2, err: expect.stringMatching(/expected one folder, got none/) });
    expect(cli(['init', 'x', '--name', 'Bad Name'], dir)).toMatchObject({ code: 2, err: expect.stringMatching(/--name must be a valid npm package name.*'Bad Name'/) });
    expect(cli(['init', 'y', '--perpkit', './missing.tgz'], dir)).toMatchObject({ code: 2, err: expect.stringMatching(/--perpkit: \S+missing\.tgz does not exist/) });
    expect(cli(['init', 'z', '--bogus'], dir).code).toBe(2);
  });
});

describe('perpkit --version', () => {
  it('prints the package version for --version, -v and version', () => {
    for (const flag of ['--version', '-v', 'version']) {
      const r = cli([flag], ROOT);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${VERSION}\n`);
    }
    expect(cli(['--help'], ROOT).out).toMatch(/init +create a project/);
  });

  // Node 22.1+ keeps V8's code of the modules a start loaded (module.enableCompileCache, called by
  // bin/perpkit.js): the next start reads it instead of compiling them (a fifth or so of module
  // loading's CPU on Node 24). Node 20 has no such cache and nothing is written.
  it('leaves the compiled code of what it loaded in node-compile-cache under the temporary folder, where Node has one; NODE_DISABLE_COMPILE_CACHE=1 turns it off', () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'perpkit-compile-cache-'));
    try {
      const run = (sub: string, extra: NodeJS.ProcessEnv): string => {
        const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: path.join(tmp, sub), ...extra };
        delete env.NODE_COMPILE_CACHE;
        if (!('NODE_DISABLE_COMPILE_CACHE' in extra)) delete env.NODE_DISABLE_COMPILE_CACHE;
        mkdirSync(path.join(tmp, sub));
        const r = spawnSync(process.execPath, [BIN, 'backtest', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env });
        expect(r.status).toBe(0);
        return path.join(tmp, sub, 'node-compile-cache');
      };
      const cached = run('on', {});
      const nodeHasOne = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
      expect({ node: process.version, written: existsSync(cached) && readdirSync(cached).length > 0 }).toEqual({ node: process.version, written: nodeHasOne });
      expect(existsSync(run('off', { NODE_DISABLE_COMPILE_CACHE: '1' }))).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
