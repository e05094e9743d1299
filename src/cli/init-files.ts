/**
 * The files `perpkit init` writes: a project for your own strategy, run and tested with no build
 * step (the CLI and the tests load TypeScript directly).
 */

export interface InitVars {
  /** The project's package name. */
  name: string;
  /** The perpkit dependency: a semver range, or a tarball or folder path. */
  perpkitSpec: string;
}

const DATA = 'data/btcusdt-2h.jsonl.gz';

const packageJson = (v: InitVars): string =>
  `${JSON.stringify(
    {
      name: v.name,
      version: '0.1.0',
      private: true,
      description: 'Trading bot strategies on perpkit',
      scripts: {
        test: 'tsc --noEmit && node --import jiti/register --test test/*.test.ts',
        typecheck: 'tsc --noEmit',
        data: `test -f ${DATA} || perpkit synth --out ${DATA} --symbols BTCUSDT --hours 2 --seed 7`,
        backtest: 'npm run --silent data && perpkit backtest config/backtest.yaml',
        check: 'perpkit run config/bot.yaml --check',
        start: 'perpkit run config/bot.yaml',
      },
      dependencies: { perpkit: v.perpkitSpec },
      devDependencies: { '@types/node': '^20.19.0', jiti: '^2.7.0', typescript: '~5.9.3' },
      engines: { node: '>=20.19' },
    },
    null,
    2,
  )}\n`;

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2022"],
    "types": ["node"],
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "isolatedModules": true,
    "esModuleInterop": true
  },
  "include": ["src", "test"]
}
`;

const STRATEGY = `/**
 * A dip buyer: on every mark price, when it has no order and no position, it bids \`dipBps\` below
 * mark with a take-profit and a stop-loss, sent as one OTOCO bracket order (the venue places the
 * exits when the entry fills, and they work there whether the bot runs or not; but a stop of the
 * bot with \`cancelOnStop: true\`, config/bot.yaml, cancels them too: the position is then left
 * WITHOUT a stop, and the bot says so at the stop and at its next start).
 *
 * Strategies reach time, state and the venue only through \`ctx\`: the same file runs live
 * (\`npm start\`) and in a backtest (\`npm run backtest\`). API: node_modules/perpkit/docs/strategies.md.
 */
import { Dec, defineStrategy, param, params, type Intent } from 'perpkit';

/** The parameters, declared once: their type, defaults and checks (an unknown name is refused). */
const schema = params({
  symbol: param.string({ default: 'BTCUSDT' }),
  size: param.decimal({ default: '0.01', description: 'Entry size, base asset.' }),
  dipBps: param.integer({ min: 1, max: 5000, default: 50, description: 'Bid this far below mark, basis points.' }),
  takeProfitBps: param.integer({ min: 1, max: 5000, default: 100, description: 'Take profit this far above the entry, basis points.' }),
  stopLossBps: param.integer({ min: 1, max: 5000, default: 100, description: 'Stop loss this far below the entry, basis points.' }),
});

export default defineStrategy({
  name: 'dip-buyer',
  params: schema,
  symbols: (p) => [p.symbol],
  create: (ctx) => ({
    onMark(e): Intent[] | void {
      const p = ctx.params;
      if (ctx.myOrders(p.symbol).length > 0 || !ctx.position().isZero()) return;
      const entry = new Dec(e.mark.markPrice).times(1 - p.dipBps / 10_000);
      return [
        {
          kind: 'bracket',
          symbol: p.symbol,
          side: 'BUY',
          quantity: p.size.toString(),
          entryPrice: ctx.price.round(entry, 'down'),
          takeProfitPrice: ctx.price.round(entry.times(1 + p.takeProfitBps / 10_000), 'up'),
          stopLossPrice: ctx.price.round(entry.times(1 - p.stopLossBps / 10_000), 'down'),
        },
      ];
    },
  }),
});
`;

const TEST = `/**
 * The strategy against perpkit's matching engine, in-process: no network, a virtual clock.
 * Run with \`npm test\` (node:test; TypeScript is loaded directly, no build).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strategyWorld } from 'perpkit/testing';
import dipBuyer from '../src/strategy';

const params = { symbol: 'BTCUSDT', size: '0.01', dipBps: 50, takeProfitBps: 100, stopLossBps: 100 };

test('bids 0.5 % below mark, once', async () => {
  const w = await strategyWorld(dipBuyer, params);
  await w.setMark('BTCUSDT', '50000');
  const entries = w.openOrders('BTCUSDT');
  assert.equal(entries.length, 1);
  assert.equal(entries[0].side, 'BUY');
  assert.equal(entries[0].price, '49750');
  await w.setMark('BTCUSDT', '50100'); // an order is working: nothing new
  assert.equal(w.openOrders('BTCUSDT').length, 1);
  await w.stop();
});

test('a filled entry leaves a long position protected by its exits', async () => {
  const w = await strategyWorld(dipBuyer, params);
  await w.setMark('BTCUSDT', '50000');
  await w.marketOrder('BTCUSDT', 'SELL', '0.01'); // someone sells into our bid
  assert.equal(w.fills().length, 1);
  const [pos] = w.positions('BTCUSDT');
  assert.ok(pos, 'a position');
  const exits = w.openOrders('BTCUSDT').map((o) => [o.side, o.reduceOnly]);
  assert.ok(exits.length >= 1, 'the take-profit rests on the book');
  assert.ok(exits.every(([side, reduceOnly]) => side === 'SELL' && reduceOnly));
  await w.stop();
});

test('refuses an unknown parameter, naming the known ones', () => {
  assert.throws(() => dipBuyer.params({ ...params, dipbps: 10 }), /unknown parameter 'dipbps'; known parameters: dipBps, size, stopLossBps, symbol, takeProfitBps/);
});
`;

const BOT_YAML = `# yaml-language-server: $schema=../node_modules/perpkit/schema/bot.json
# The bot: npm start (perpkit run config/bot.yaml). Every key: node_modules/perpkit/docs/running.md.
# The password comes from the environment variable named here, never from this file.
venue:
  baseUrl: http://127.0.0.1:8080
  auth:
    username: my-bot
    passwordEnv: PERPKIT_PASSWORD
strategies:
  - id: dip
    module: ../src/strategy.ts          # relative to this file; TypeScript loads directly
    params:
      symbol: BTCUSDT
      size: "0.01"
      dipBps: 50
      takeProfitBps: 100
      stopLossBps: 100
risk:
  maxOrderNotional: "2000"
  maxPositionNotional: "2000"
  maxOpenOrders: 5
  maxOrdersPerSecond: 5
  priceBand: "0.05"
  maxDrawdown: "0.1"
# Ctrl+C cancels every order of the strategy, a bracket's take-profit and stop-loss too: an open
# position is then left WITHOUT a stop (the bot says so). false: the exits (and a resting entry)
# stay on the venue across a stop; flattenOnStop: true closes the position at the stop instead.
cancelOnStop: true
stateFile: ../state/bot.json
http:
  port: 9464                            # /healthz, /metrics, /status, POST /kill
`;

const BACKTEST_YAML = `# yaml-language-server: $schema=../node_modules/perpkit/schema/backtest.json
# The backtest: npm run backtest (makes ${DATA} with perpkit synth first).
# Every key: node_modules/perpkit/docs/backtesting.md.
data:
  files: [../${DATA}]
account:
  balance: "10000"
fees:
  maker: "0.0002"
  taker: "0.0005"
latency:
  placeMs: 20
  cancelMs: 20
  amendMs: 20
risk:
  maxOrderNotional: "5000"
  maxPositionNotional: "5000"
  maxOpenOrders: 5
  priceBand: "0.05"
strategies:
  - id: dip
    module: ../src/strategy.ts
    params:
      symbol: BTCUSDT
      size: "0.01"
      dipBps: 20
      takeProfitBps: 30
      stopLossBps: 30
report:
  out: ../backtest-out
`;

const readme = (v: InitVars): string => `# ${v.name}

A trading bot on [perpkit](https://www.npmjs.com/package/perpkit): your strategy in TypeScript,
tested, backtested and run with no build step.

| file | what |
|---|---|
| \`src/strategy.ts\` | the strategy (a dip buyer with a bracket order) |
| \`test/strategy.test.ts\` | its tests, against perpkit's matching engine in-process (\`perpkit/testing\`) |
| \`config/backtest.yaml\` | a backtest on synthetic data |
| \`config/bot.yaml\` | the bot, for \`perpkit run\` |

## Commands

\`\`\`sh
npm install
npm test                # type-check, then the tests (node:test)
npm run backtest        # makes ${DATA} (perpkit synth) once, then backtests
npm run backtest -- --strategy-logs   # the same, with the strategy's ctx.log lines
PERPKIT_PASSWORD=change-me npm run check   # validates config/bot.yaml and loads the strategy; sends nothing
\`\`\`

\`npm run backtest\` prints a summary and writes \`backtest-out/report.html\`. Edit
\`src/strategy.ts\` and run again: the CLI loads the TypeScript source as it is now. \`npm run
check\` needs the password's variable set (any value: nothing is sent), as \`npm start\` does.

## Run it on the local exchange

Terminal 1, the local exchange with a synthetic market (it runs until Ctrl+C):

\`\`\`sh
npx perpkit exchange --market synthetic --admin-token dev
\`\`\`

Terminal 2, the bot's user (once), then the bot (Ctrl+C stops it and cancels its orders, the
take-profit and stop-loss of a position too: the position is left open WITHOUT a stop, and the
bot says so; \`cancelOnStop: false\` in \`config/bot.yaml\` keeps them on the venue):

\`\`\`sh
curl -s -X POST http://127.0.0.1:8080/v1/admin/users -H 'x-admin-token: dev' \\
  -H 'content-type: application/json' \\
  -d '{"username":"my-bot","password":"change-me","balance":"100000"}'
PERPKIT_PASSWORD=change-me npm start
\`\`\`

Terminal 3, what the bot is doing:

\`\`\`sh
curl -s localhost:9464/status
\`\`\`

Pages to watch: \`dashboard: true\` under \`http:\` in \`config/bot.yaml\` serves the bot's
dashboard at http://127.0.0.1:9464/ (pause, cancel, kill switch), and the exchange shows its book
and trades at http://127.0.0.1:8080/ui/.

A position left open at a stop stays open: the dip buyer places its take-profit and stop-loss only
with an entry, and does not enter again while it holds a position, so after a restart nothing
protects it or closes it. To close it: set \`flattenOnStop: true\` in \`config/bot.yaml\`, start the
bot and stop it (Ctrl+C): the stop closes the position.

For a real venue, set \`venue.baseUrl\` and the credentials' environment variables in
\`config/bot.yaml\`. Running it as a service (systemd, logs): node_modules/perpkit/docs/running.md.
`;

const GITIGNORE = `node_modules/
data/
backtest-out/
state/
exchange-data/
`;

/** The project's files, by path relative to its folder. */
export function initFiles(v: InitVars): Map<string, string> {
  return new Map([
    ['package.json', packageJson(v)],
    ['tsconfig.json', TSCONFIG],
    ['src/strategy.ts', STRATEGY],
    ['test/strategy.test.ts', TEST],
    ['config/bot.yaml', BOT_YAML],
    ['config/backtest.yaml', BACKTEST_YAML],
    ['README.md', readme(v)],
    ['.gitignore', GITIGNORE],
  ]);
}
