/**
 * The strategy API beside `onEvent`: typed hooks (only the strategy's symbols, only its own
 * orders, fills and timers), bars cut from trades, market data inferred from the hooks, rounding
 * onto the grids, `isWorking`, symbol lookup that names the strategy's symbols, and parameters
 * declared once as a schema.
 */
import { Dec, defineStrategy, isWorking, param, params, paramsJsonSchema, type BotEvent, type Intent, type Strategy, type StrategyContext } from '../../src/index';
import { checkParams, quantityProblem } from '../../src/bot/strategy/params-check';
import { Bot } from '../../src/bot/bot';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';
import { botWorld, silentLogger } from './harness';

type Seen = Array<[string, string]>;

/** A strategy on BTCUSDT that records which hook got what. */
function recorder(seen: Seen, extra: (ctx: StrategyContext) => Partial<Strategy> = () => ({})) {
  return defineStrategy<Record<string, unknown>>({
    name: 'recorder',
    symbols: () => ['BTCUSDT'],
    params: () => ({}),
    create: (ctx) => ({
      onMark: (e) => void seen.push(['onMark', `${e.symbol} ${e.mark.markPrice}`]),
      onTrade: (e) => void seen.push(['onTrade', `${e.symbol} ${e.trade.price}`]),
      onFill: (e) => void seen.push(['onFill', `${e.fill.side} ${e.fill.quantity}`]),
      onOrder: (e) => void seen.push(['onOrder', e.order.status]),
      onTimer: (e) => void seen.push(['onTimer', e.name]),
      onRiskState: (e) => void seen.push(['onRiskState', e.state]),
      onRefused: (e) => void seen.push(['onRefused', e.type]),
      onBook: (e) => void seen.push(['onBook', e.symbol]),
      ...extra(ctx),
    }),
  });
}

async function trade(w: Awaited<ReturnType<typeof botWorld>>, symbol: string, price: string, quantity = '0.01'): Promise<void> {
  w.engine.placeOrder('third', { symbol, type: 'LIMIT', side: 'SELL', price, quantity });
  w.engine.placeOrder('other', { symbol, type: 'LIMIT', side: 'BUY', price, quantity, timeInForce: 'IOC' });
  w.venue.pump();
  await w.settle();
}

describe('typed hooks', () => {
  it('deliver marks and trades of the strategy symbols only, its own orders, fills, timers and refusals', async () => {
    const seen: Seen = [];
    const def = recorder(seen, (ctx) => ({
      onStart: () => {
        ctx.every('t', 1000);
        return [
          { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000', quantity: '0.01' },
          { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000.123', quantity: '0.01' },
        ];
      },
    }));
    // A second strategy on ETHUSDT: the venue subscribes both symbols, `a` gets BTCUSDT only.
    const eth = defineStrategy<Record<string, unknown>>({ name: 'eth', symbols: () => ['ETHUSDT'], params: () => ({}), create: () => ({ onMark: () => undefined }) });
    const w = await botWorld(
      [
        { id: 'a', definition: def, params: {} },
        { id: 'e', definition: eth, params: {} },
      ],
      { allowRefusals: true },
    );
    w.engine.createAccount({ userId: 'third', balance: '100000' });
    w.engine.setMarkPrice('ETHUSDT', '3000');
    w.engine.setMarkPrice('BTCUSDT', '50100');
    await trade(w, 'ETHUSDT', '3000');
    await trade(w, 'BTCUSDT', '50100');
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    w.scheduler.advance(1000);
    await w.settle();
    w.bot.risk.setState('REDUCING', 'test');
    await w.settle();
    const kinds = (k: string) => seen.filter(([h]) => h === k).map(([, v]) => v);
    expect(kinds('onMark')).toEqual(['BTCUSDT 50100']);
    expect(kinds('onTrade')).toEqual(['BTCUSDT 50100', 'BTCUSDT 49000']); // the second: our buy filled
    expect(kinds('onOrder')).toEqual(['NEW', 'FILLED']);
    expect(kinds('onFill')).toEqual(['BUY 0.01']);
    expect(kinds('onTimer')).toEqual(['t']);
    expect(kinds('onRefused')).toEqual(['denial']); // the off-tick price
    expect(kinds('onRiskState')).toEqual(['REDUCING']);
    // Depth follows every book change of both symbols; `a` sees BTCUSDT's only.
    expect(w.events.some((e) => e.type === 'depth' && e.symbol === 'ETHUSDT')).toBe(true);
    expect(kinds('onBook').length).toBeGreaterThan(0);
    expect(new Set(kinds('onBook'))).toEqual(new Set(['BTCUSDT']));
  });

  it('market data is inferred from the hooks when there is no onEvent: a marks-only strategy gets no trades', async () => {
    const seen: Seen = [];
    const marksOnly = defineStrategy<Record<string, unknown>>({
      name: 'marks',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: () => ({ onMark: (e) => void seen.push(['onMark', e.mark.markPrice]) }),
    });
    // Without the harness (whose recorder subscribes to everything, which counts as wanting it).
    const clock = new ManualClock(1_700_000_000_000);
    const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000000' });
    engine.createAccount({ userId: 'bot', balance: '100000' });
    const venue = new SimVenue({ engine, userId: 'bot', clock });
    const bot = new Bot({ venue, strategies: [{ id: 'm', definition: marksOnly, params: {} }], risk: {}, clock, scheduler: new ManualScheduler(clock), logger: silentLogger });
    await bot.start();
    expect(bot.wants('markPrice')).toBe(true);
    expect(bot.wants('trade')).toBe(false);
    expect(bot.wants('depth')).toBe(false);
    engine.setMarkPrice('BTCUSDT', '50001');
    venue.pump();
    await bot.idle();
    expect(seen).toEqual([['onMark', '50001']]);
  });

  it('onEvent still gets every event, beside the typed hooks', async () => {
    const events: string[] = [];
    const marks: string[] = [];
    const both = defineStrategy<Record<string, unknown>>({
      name: 'both',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: () => ({ onEvent: (e: BotEvent) => void events.push(e.type), onMark: (e) => void marks.push(e.symbol) }),
    });
    const w = await botWorld([{ id: 'b', definition: both, params: {} }]);
    expect(w.bot.wants('trade')).toBe(true); // onEvent takes all market data
    w.engine.setMarkPrice('BTCUSDT', '50100');
    w.venue.pump();
    await w.settle();
    expect(events).toContain('markPrice');
    expect(events).toContain('account');
    expect(marks).toEqual(['BTCUSDT']);
  });

  it('a hook that throws is reported with its name', async () => {
    const bad = defineStrategy<Record<string, unknown>>({ name: 'bad', symbols: () => ['BTCUSDT'], params: () => ({}), create: () => ({ onMark: () => { throw new Error('boom'); } }) });
    // The test reads the error itself, so the world must not fail on it.
    const w = await botWorld([{ id: 'x', definition: bad, params: {} }], { allowStrategyErrors: true });
    w.engine.setMarkPrice('BTCUSDT', '50100');
    w.venue.pump();
    await w.settle();
    expect(w.events.filter((e) => e.type === 'strategyError').map((e) => (e.type === 'strategyError' ? `${e.where}: ${e.message}` : ''))).toEqual(['onMark: boom']);
  });

  it('intents a hook emits and those it returns both go out, and a denial of one reaches onRefused after the hook', async () => {
    let refused = 0;
    const emitter = defineStrategy<Record<string, unknown>>({
      name: 'emitter',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: (ctx) => ({
        onMark: () => {
          if (ctx.myOrders().length > 0 || refused > 0) return;
          ctx.emit({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '1.234', quantity: '0.01' }); // off tick: denied now
          return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000', quantity: '0.01', tag: 'A' }];
        },
        onRefused: () => {
          refused++;
          return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '48000', quantity: '0.01', tag: 'B' }];
        },
      }),
    });
    const w = await botWorld([{ id: 'r', definition: emitter, params: {} }], { allowRefusals: true });
    w.engine.setMarkPrice('BTCUSDT', '50100');
    w.venue.pump();
    await w.settle();
    expect(refused).toBe(1);
    expect(w.engine.currentOrders('bot', { symbol: 'BTCUSDT' }).list.map((o) => o.price).sort()).toEqual(['48000', '49000']);
  });

  it('onBar gets closed time bars only, closed on time by the timer when trading stops', async () => {
    const bars: string[] = [];
    const barry = defineStrategy<Record<string, unknown>>({
      name: 'bars',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: () => ({ bars: { time: 60_000 }, onBar: (b, sym) => void bars.push(`${sym} ${b.open}/${b.high}/${b.low}/${b.close} x${b.trades}`) }),
    });
    const w = await botWorld([{ id: 'b', definition: barry, params: {} }]);
    w.engine.createAccount({ userId: 'third', balance: '100000' });
    // The harness clock starts at 1_700_000_000_000 = 20 s into a minute.
    await trade(w, 'BTCUSDT', '50000');
    await trade(w, 'BTCUSDT', '50010');
    await trade(w, 'BTCUSDT', '49990');
    expect(bars).toEqual([]); // the minute is not over: no bar yet
    w.scheduler.advance(39_000);
    await w.settle();
    expect(bars).toEqual([]);
    w.scheduler.advance(1_000);
    await w.settle();
    expect(bars).toEqual(['BTCUSDT 50000/50010/49990/49990 x3']);
    // The reserved bar timer reaches no hook.
    expect(w.events.some((e) => e.type === 'strategyError')).toBe(false);
  });

  it.each([
    ['a misspelt hook (it was never called, and the strategy traded nothing without a word)', { onMarkPrice: () => undefined }, /whose onMarkPrice is not a hook \(hooks: onEvent, onTrade, onMark, /],
    ['a hook that is not a function', { onMark: 5 }, /whose onMark is a number \(expected a function\)/],
    ['a misspelt bar kind (it failed deep inside as "tick bar count ... got undefined")', { onBar: () => undefined, bars: { tme: 5000 } }, /whose bars is \{"tme":5000\} \(expected exactly one of \{ time: ms \}, \{ volume: quantity \}, \{ trades: count \}\)/],
    ['two bar kinds', { onBar: () => undefined, bars: { time: 5000, volume: 1 } }, /whose bars is \{"time":5000,"volume":1\}/],
    ['a bar interval of 0', { onBar: () => undefined, bars: { time: 0 } }, /whose bars\.time is 0 \(expected a whole number of ms, at least 1\)/],
    ['a bar interval as text', { onBar: () => undefined, bars: { time: '5s' } }, /whose bars\.time is "5s"/],
  ])('create() returning %s is refused at start, naming the strategy', async (_what, returned, message) => {
    const bad = defineStrategy<Record<string, unknown>>({ name: 'bad', symbols: () => ['BTCUSDT'], params: () => ({}), create: () => returned as never });
    await expect(botWorld([{ id: 'b', definition: bad, params: {} }])).rejects.toThrow(message);
    await expect(botWorld([{ id: 'b', definition: bad, params: {} }])).rejects.toThrow(/strategy b could not be created: \[b\] create\(\): create\(\) returned a strategy whose /);
  });

  it('onBar without bars (or bars without onBar) is refused at start', async () => {
    const half = defineStrategy<Record<string, unknown>>({ name: 'half', symbols: () => ['BTCUSDT'], params: () => ({}), create: () => ({ onBar: () => undefined }) });
    await expect(botWorld([{ id: 'h', definition: half, params: {} }])).rejects.toThrow(/onBar hook but declares no bars/);
  });
});

describe('context helpers', () => {
  it('round prices and quantities onto the symbol grids, look up symbols once, read the position', async () => {
    let ctx: StrategyContext | undefined;
    const def = defineStrategy<Record<string, unknown>>({ name: 'c', symbols: () => ['BTCUSDT'], params: () => ({}), create: (c) => ((ctx = c), {}) });
    await botWorld([{ id: 'c', definition: def, params: {} }]);
    const c = ctx as StrategyContext;
    const tick = c.market().tickSize;
    expect(c.symbol).toBe('BTCUSDT');
    expect(tick).toBe('0.1');
    expect(c.price.round(new Dec('50000.16'), 'down')).toBe('50000.1');
    expect(c.price.round('50000.11', 'up')).toBe('50000.2');
    expect(c.price.round('50000.15')).toBe('50000.2'); // nearest, half to even
    expect(c.price.round('50000.25')).toBe('50000.2');
    expect(c.quantity.round('0.0129')).toBe('0.012'); // down by default
    expect(c.quantity.round('0.0121', 'up')).toBe('0.013');
    expect(c.market('BTCUSDT').price.round(1.26, 'nearest')).toBe('1.3');
    expect(() => c.market('ETHUSDT')).toThrow("strategy c: 'ETHUSDT' is not one of its symbols (BTCUSDT); list it in the definition's symbols()");
    expect(c.position().isZero()).toBe(true);
  });

  it('isWorking: NEW and PARTIALLY_FILLED, for tracked views and venue records', () => {
    expect(['PENDING_NEW', 'NEW', 'PARTIALLY_FILLED', 'PENDING_CANCEL', 'UNKNOWN', 'FILLED'].map((state) => isWorking({ state: state as never }))).toEqual([false, true, true, false, false, false]);
    expect(isWorking({ status: 'PARTIALLY_FILLED' })).toBe(true);
    expect(isWorking({ status: 'CANCELED' })).toBe(false);
  });
});

describe('parameters as a schema', () => {
  const schema = params({
    symbol: param.string({ default: 'BTCUSDT' }),
    size: param.decimal({ default: '0.01' }),
    window: param.integer({ min: 2, max: 100, default: 20 }),
    mode: param.oneOf(['fast', 'slow'] as const, { default: 'fast' }),
    cap: param.optional(param.decimal()),
    level: param.decimal({ min: 'nonNegative' }),
  });
  const def = defineStrategy({
    name: 'schema',
    params: schema,
    check: (p) => {
      if (p.cap && p.cap.lt(p.size)) throw new Error(`parameter 'cap' must be at least size, got ${p.cap.toString()}`);
    },
    symbols: (p) => [p.symbol],
    create: (ctx) => {
      // The type is inferred: decimals are Dec, integers numbers, the enum its literals.
      const size: Dec = ctx.params.size;
      const mode: 'fast' | 'slow' = ctx.params.mode;
      const out: Intent[] = [];
      return { onStart: () => (size.gt(0) && mode === 'fast' ? out : []) };
    },
  });

  it('fills defaults and decodes decimals exactly, from strings or YAML numbers', () => {
    const p = def.params({ size: 0.1, level: '0', window: 5 });
    expect(p.symbol).toBe('BTCUSDT');
    expect(p.size.toString()).toBe('0.1');
    expect(p.size).toBeInstanceOf(Dec);
    expect(p.window).toBe(5);
    expect(p.mode).toBe('fast');
    expect(p.cap).toBeUndefined();
    expect(p.level.isZero()).toBe(true);
  });

  it('refuses a bad value by name, with the rule and what was found', () => {
    expect(() => def.params({ level: '1', size: '-1' })).toThrow(`parameter 'size' must be a positive decimal such as "0.01", got "-1"`);
    expect(() => def.params({ level: '1', size: '1e3' })).toThrow(/parameter 'size' must be a positive decimal/);
    expect(() => def.params({ level: '1', window: 1 })).toThrow(`parameter 'window' must be a whole number from 2 to 100, got 1`);
    expect(() => def.params({ level: '1', window: 2.5 })).toThrow(/parameter 'window' must be a whole number/);
    expect(() => def.params({ level: '1', mode: 'medium' })).toThrow(`parameter 'mode' must be one of fast, slow, got "medium"`);
    expect(() => def.params({})).toThrow(`parameter 'level' must be a decimal of at least 0 such as "0.01", got nothing (it is required)`);
    expect(() => def.params({ level: '1', cap: '0.001' })).toThrow(`parameter 'cap' must be at least size, got 0.001`);
    // A bound below: basis points of a price at 10000 or more would put the price at zero.
    const bps = params({ skewBps: param.decimal({ default: '3', below: '10000' }) });
    const bounded = defineStrategy({ name: 'bps', params: bps, symbols: () => ['BTCUSDT'], create: () => ({}) });
    expect(() => bounded.params({ skewBps: '10000' })).toThrow(`parameter 'skewBps' must be a positive decimal below 10000 such as "0.01", got "10000"`);
    expect(() => bounded.params({ skewBps: 100000 })).toThrow(`parameter 'skewBps' must be a positive decimal below 10000 such as "0.01", got 100000`);
    expect(bounded.params({ skewBps: '9999.99' }).skewBps.toString()).toBe('9999.99');
    expect(paramsJsonSchema(bps).properties).toMatchObject({ skewBps: { anyOf: [{ type: 'string' }, { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10000 }] } });
  });

  it('an integer is taken written as text too, as a decimal is ("7" in YAML is a string); other text is refused on one line', () => {
    expect(def.params({ level: '1', window: '7' }).window).toBe(7);
    expect(def.params({ level: '1', window: '100' }).window).toBe(100);
    // Out of range as text is refused as the number is; text that is not a plain whole number too.
    expect(() => def.params({ level: '1', window: '101' })).toThrow(/^parameter 'window' must be a whole number from 2 to 100, got "101"$/);
    expect(() => def.params({ level: '1', window: '1' })).toThrow(/^parameter 'window' must be a whole number from 2 to 100, got "1"$/);
    for (const bad of ['07', '+7', '7.0', '7e0', ' 7', '-0', 'seven', '']) {
      expect(() => def.params({ level: '1', window: bad })).toThrow(new RegExp(`^parameter 'window' must be a whole number from 2 to 100, got ${JSON.stringify(bad).replace(/[.+]/g, '\\$&')}$`));
    }
    // Published as what it takes: a whole number or its text.
    const js = JSON.parse(JSON.stringify(def.paramsSchema)) as { properties: { window: { anyOf: Array<{ type: string }>; default: number } } };
    expect(js.properties.window.anyOf.map((x) => x.type)).toEqual(['integer', 'string']);
  });

  it('a number is taken written as text too ("0.5" in YAML is a string), in range and plain notation only', () => {
    const ratioDef = defineStrategy({
      name: 'ratio',
      params: params({ ratio: param.number({ min: 0, max: 1, default: 0.5 }), skew: param.number({ default: 0 }) }),
      symbols: () => ['BTCUSDT'],
      create: () => ({}),
    });
    expect(ratioDef.params({ ratio: '0.25' }).ratio).toBe(0.25);
    expect(ratioDef.params({ ratio: 0.75 }).ratio).toBe(0.75);
    expect(ratioDef.params({ ratio: '1' }).ratio).toBe(1);
    expect(ratioDef.params({ skew: '-2.5' }).skew).toBe(-2.5);
    expect(ratioDef.params({}).ratio).toBe(0.5);
    expect(() => ratioDef.params({ ratio: '1.5' })).toThrow(/^parameter 'ratio' must be a number from 0 to 1, got "1.5"$/);
    expect(() => ratioDef.params({ ratio: 1.5 })).toThrow(/^parameter 'ratio' must be a number from 0 to 1, got 1.5$/);
    for (const bad of ['.5', '+0.5', '00.5', '5e-1', '0.5 ', 'half', '', '-0']) {
      expect(() => ratioDef.params({ ratio: bad })).toThrow(new RegExp(`^parameter 'ratio' must be a number from 0 to 1, got ${JSON.stringify(bad).replace(/[.+]/g, '\\$&')}$`));
    }
    const js = JSON.parse(JSON.stringify(ratioDef.paramsSchema)) as { properties: { ratio: { anyOf: Array<{ type: string }>; default: number } } };
    expect(js.properties.ratio.anyOf.map((x) => x.type)).toEqual(['number', 'string']);
    expect(js.properties.ratio.default).toBe(0.5);
  });

  it('an unknown name is refused naming the known ones, by params() and by the loaders check', () => {
    expect(() => def.params({ level: '1', windw: 3 })).toThrow(`unknown parameter 'windw'; known parameters: cap, level, mode, size, symbol, window`);
    const c = checkParams(def, { level: '1', windw: 3, sise: 1 });
    expect(c.unknown).toEqual(['windw', 'sise']);
    expect(c.known).toEqual(['cap', 'level', 'mode', 'size', 'symbol', 'window']);
    expect(checkParams(def, { level: '1' }).unknown).toEqual([]);
  });

  it('is plain JSON Schema', () => {
    expect(def.paramsSchema).toBeDefined();
    const js = JSON.parse(JSON.stringify(def.paramsSchema)) as { type: string; additionalProperties: boolean; required: string[]; properties: Record<string, { default?: unknown }> };
    expect(js.type).toBe('object');
    expect(js.additionalProperties).toBe(false);
    expect(js.required).toEqual(['symbol', 'size', 'window', 'mode', 'level']);
    expect(js.properties.window.default).toBe(20);
  });
});

describe('param.quantity: checked against its symbol spec', () => {
  const def = defineStrategy({
    name: 'q',
    params: params({ market: param.string({ default: 'BTCUSDT' }), size: param.quantity({ symbol: 'market' }), other: param.decimal({ default: '0.0001' }) }),
    symbols: (p) => [p.market],
    create: () => ({}),
  });
  const btc = DEFAULT_SYMBOLS.find((s) => s.symbol === 'BTCUSDT');
  const limits = (sym: string) => (sym === 'BTCUSDT' && btc !== undefined ? btc : undefined);

  it('refuses a quantity that rounds down below the minimum, or one above the maximum; rounds as the strategies do', () => {
    if (btc === undefined) throw new Error('BTCUSDT is a default symbol');
    expect(quantityProblem(def, def.params({ size: '0.0019' }), limits)).toBeUndefined();
    expect(quantityProblem(def, def.params({ size: '0.00099' }), limits)).toEqual({ param: 'size', expected: `a quantity of BTCUSDT from ${btc.minQty} to ${btc.maxQty} in steps of ${btc.stepSize} (0.00099 rounds down to 0: every order would be refused)`, got: '0.00099' });
    const above = new Dec(btc.maxQty).plus(1).toString();
    expect(quantityProblem(def, def.params({ size: above }), limits)?.param).toBe('size');
    // A symbol whose spec is not known is the symbol check's to refuse; a plain decimal is not a quantity.
    expect(quantityProblem(def, def.params({ market: 'NOPE', size: '0.00001' }), limits)).toBeUndefined();
  });

  it('names its symbol parameter, which params({...}) must declare', () => {
    expect(() => params({ size: param.quantity() })).toThrow("parameter 'size' is a param.quantity of the symbol in parameter 'symbol', which these params do not declare: name it with param.quantity({ symbol: '...' })");
    expect(JSON.parse(JSON.stringify(def.paramsSchema)).properties.size['x-quantity-of']).toBe('market');
  });
});

describe('defineStrategy refuses a definition it cannot run, naming each member that is wrong', () => {
  // Modules load without type-checking: each of these used to fail later with a TypeError about undefined.
  const schema = params({ symbol: param.string({ default: 'BTCUSDT' }) });
  const define = (def: Record<string, unknown>) => () => defineStrategy(def as never);

  it('a missing or mistyped member, with what it should be', () => {
    expect(define({ name: 'a', symbols: (p: { symbol: string }) => [p.symbol], create: () => ({}) })).toThrow(
      "defineStrategy('a'): expected a definition { name, params, symbols, create }, got one whose params is missing (expected params({...}) of param.* builders; params({}) for none)",
    );
    expect(define({ name: 'b', params: schema, symbols: ['BTCUSDT'], create: () => ({}) })).toThrow(/^defineStrategy\('b'\): .* got one whose symbols is an array \(expected a function of the parameters returning symbol names, such as \(p\) => \[p\.symbol\]\)$/);
    expect(define({ params: schema, symbols: () => ['BTCUSDT'], create: () => ({}) })).toThrow(/^defineStrategy\(\): .* got one whose name is missing \(expected a non-empty string\)$/);
    expect(define({ name: 'c', params: schema, create: () => ({}) })).toThrow(/whose symbols is missing/);
    expect(define({ name: 'h', params: { symbol: 'BTCUSDT' }, symbols: () => ['BTCUSDT'], create: () => ({}) })).toThrow(/whose params is an object \(expected params\(\{\.\.\.\}\) of param\.\* builders; params\(\{\}\) for none\)$/);
    expect(() => defineStrategy(undefined as never)).toThrow('defineStrategy: expected a definition object { name, params, symbols, create }, got undefined');
  });

  it('hooks written beside create instead of in what it returns are named', () => {
    expect(define({ name: 'd', params: schema, symbols: () => ['BTCUSDT'], onMark: () => undefined, onFill: () => undefined })).toThrow(
      "defineStrategy('d'): expected a definition { name, params, symbols, create }, got one whose create is missing (expected a function of the context returning the strategy's hooks: onMark, onFill go in the object create(ctx) returns, not beside create)",
    );
    // Beside a create() they were never called: a backtest of it traded nothing, exit 0, no word.
    expect(define({ name: 'd2', params: schema, symbols: () => ['BTCUSDT'], create: () => ({}), onMark: () => undefined })).toThrow(
      "defineStrategy('d2'): expected a definition { name, params, symbols, create }, got one whose onMark is beside create, where nothing calls it (onMark goes in the object create(ctx) returns, not beside create)",
    );
  });

  it('every problem at once; a complete definition, either form of params, passes', () => {
    expect(define({ name: 'e' })).toThrow(/whose params is missing .*; symbols is missing .*; create is missing/);
    expect(defineStrategy({ name: 'f', params: schema, symbols: (p) => [p.symbol], create: () => ({}) }).name).toBe('f');
    expect(defineStrategy<{ symbol: string }>({ name: 'g', params: () => ({ symbol: 'BTCUSDT' }), symbols: (p) => [p.symbol], create: () => ({}) }).name).toBe('g');
  });
});
