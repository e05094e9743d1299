/** The `npm run soak` runner's argument parsing and lines (the soak itself is not run here). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runner = require('../../tools/soak.cjs') as {
  parseSeeds(spec: string): number[];
  parseArgs(argv: string[]): { seeds: number[]; seconds: number; load: boolean };
  formatLine(r: { seed: number; outcome: string; wallMs: number; figures?: Record<string, unknown>; failure?: string }): string;
  summarize(runs: Array<{ outcome: string; figures?: Record<string, unknown> }>): string;
};

test('seeds: ranges, lists and single seeds; anything else refused', () => {
  expect(runner.parseSeeds('1..10')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(runner.parseSeeds('3,5,8')).toEqual([3, 5, 8]);
  expect(runner.parseSeeds('7')).toEqual([7]);
  expect(runner.parseSeeds('1..2,9')).toEqual([1, 2, 9]);
  expect(() => runner.parseSeeds('10..1')).toThrow(/backwards/);
  expect(() => runner.parseSeeds('a')).toThrow(/not a seed/);
  expect(runner.parseArgs(['--seeds', '1..3', '--seconds', '20', '--load'])).toEqual({ seeds: [1, 2, 3], seconds: 20, load: true });
  expect(() => runner.parseArgs(['--seconds', '2'])).toThrow(/at least 5/);
  expect(() => runner.parseArgs(['--sedes', '1'])).toThrow(/unknown option --sedes/);
});

test('one line per seed and a summary with the worst working-order count', () => {
  const pass = { seed: 1, outcome: 'pass', wallMs: 65000, figures: { botFills: 95, takerTrades: 97, reconciles: 148, maxWorkingOrders: { mm: 2 }, ordersOnVenue: 2, convergedAfterFaultsMs: 20, maxUnknownAgeMs: 4500 } };
  const fail = { seed: 2, outcome: 'fail', wallMs: 70000, failure: 'expect(received).toEqual(expected)' };
  expect(runner.formatLine(pass)).toBe('seed   1  pass  65 s  fills 95  taker 97  reconciles 148  maxWorking mm:2  onVenue 2  converged 20 ms  maxUnknown 4500 ms');
  expect(runner.formatLine(fail)).toMatch(/^seed {3}2 {2}fail.*: expect\(received\)/);
  expect(runner.summarize([pass, fail, { outcome: 'hung' }])).toBe('soak: 3 seeds, 1 passed, 1 failed, 1 hung; worst maxWorkingOrders mm:2; longest convergence 20 ms');
});
