/**
 * Intents are checked where they enter the bot (src/bot/strategy/intent-check.ts): strategy
 * modules are loaded without type-checking, and a malformed intent used to reach the risk engine
 * and throw there (`Cannot read properties of undefined (reading 'length') at toScaledInt`), an
 * exception of the bus that no strategy error, summary or health showed. Now it is refused as an
 * error of the strategy that returned it, by the same path as a throw. The bot's own unexpected
 * exceptions are `botError` events, counted and shown.
 */
import { defineStrategy, type BotEvent } from '../../src/index';
import { intentProblem } from '../../src/bot/strategy/intent-check';
import { StrategyCreateError } from '../../src/bot/strategy/errors';
import { WorldStrategyError } from '../../src/testing';
import { botWorld } from './harness';

const place = { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000', quantity: '0.01' };

describe('intentProblem', () => {
  it.each([
    ['a well-formed place', place, undefined],
    ['a MARKET place without price', { kind: 'place', symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.01', reduceOnly: true }, undefined],
    ['each other kind', { kind: 'cancel', clientOrderId: 'a-1' }, undefined],
    ['cancelAll without symbol', { kind: 'cancelAll' }, undefined],
    ['a bracket', { kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', takeProfitPrice: '51000', stopLossPrice: '49000', workingType: 'MARK_PRICE' }, undefined],
    ['setLeverage', { kind: 'setLeverage', symbol: 'BTCUSDT', leverage: 5 }, undefined],
    ['a misspelt kind', { ...place, kind: 'plcae' }, `intent kind must be one of place, cancel, amend, cancelAll, bracket, setLeverage, got "plcae"`],
    ['no kind', { symbol: 'BTCUSDT' }, `intent kind must be one of place, cancel, amend, cancelAll, bracket, setLeverage, got nothing (the field is missing)`],
    ['a place without quantity', { ...place, quantity: undefined }, `place intent: 'quantity' must be a decimal string, got nothing (the field is missing)`],
    ['a price as a number', { ...place, price: 49000.5 }, `place intent: 'price' must be a decimal string such as "1.5", got number 49000.5`],
    ['a price in exponent form', { ...place, price: '4.9e4' }, `place intent: 'price' must be in plain notation, exponent form "4.9e4" is not accepted`],
    ['a LIMIT place without price', { ...place, price: undefined }, `place intent: 'price' is required for a LIMIT order, got nothing (the field is missing)`],
    ['a lower-case side', { ...place, side: 'buy' }, `place intent: 'side' must be one of BUY, SELL, got "buy"`],
    ['a misspelt optional field', { ...place, reduceonly: true }, `place intent: unknown field 'reduceonly'; a place intent has symbol, side, type, price, quantity, timeInForce, reduceOnly, makerOnly, positionSide, tag`],
    ['reduceOnly as a string', { ...place, reduceOnly: 'true' }, `place intent: 'reduceOnly' must be true or false, got "true"`],
    ['an amend without price', { kind: 'amend', clientOrderId: 'a-1', quantity: '0.02' }, `amend intent: 'price' must be a decimal string, got nothing (the field is missing)`],
    ['a fractional leverage', { kind: 'setLeverage', symbol: 'BTCUSDT', leverage: 2.5 }, `setLeverage intent: 'leverage' must be an integer, got number 2.5`],
    ['a string', 'place', `an intent must be an object with a kind (place, cancel, amend, cancelAll, bracket, setLeverage), got "place"`],
    ['null', null, `an intent must be an object with a kind (place, cancel, amend, cancelAll, bracket, setLeverage), got null`],
  ])('%s', (_what, intent, problem) => {
    expect(intentProblem(intent)).toBe(problem);
  });
});

/** A strategy (loaded untyped, as jiti loads a user's module) returning `out` on every mark. */
function returning(out: unknown) {
  return defineStrategy<Record<string, unknown>>({
    name: 'untyped',
    symbols: () => ['BTCUSDT'],
    params: () => ({}),
    create: () => ({ onMark: () => out as never }),
  });
}

const errorsOf = (events: BotEvent[]): string[] => events.flatMap((e) => (e.type === 'strategyError' ? [`${e.strategyId} ${e.where}: ${e.message}`] : []));

describe('the bot refuses malformed intents as errors of the strategy', () => {
  it.each([
    ['a misspelt kind', [{ ...place, kind: 'plcae' }], `s onMark: malformed intent refused: intent kind must be one of place, cancel, amend, cancelAll, bracket, setLeverage, got "plcae"`],
    ['a place without quantity', [{ ...place, quantity: undefined }], `s onMark: malformed intent refused: place intent: 'quantity' must be a decimal string, got nothing (the field is missing)`],
    ['one intent, not in an array', place, `s onMark: onMark returned an object where an array of intents (or nothing) is expected: return [intent]`],
  ])('%s: a strategyError, counted in its health and the bot stats, nothing sent, no bot error', async (_what, out, message) => {
    const w = await botWorld([{ id: 's', definition: returning(out), params: {} }], { allowStrategyErrors: true });
    await w.setMark('BTCUSDT', '50100');
    await w.setMark('BTCUSDT', '50200');
    expect(errorsOf(w.events)).toEqual([message, message]);
    expect(w.bot.strategyHealth()).toEqual([{ id: 's', errors: 2, stopped: undefined, lastError: message.slice(2), paused: undefined }]);
    expect(w.bot.stats).toMatchObject({ errors: 2, intents: 0, pipelineErrors: 0 });
    expect(w.events.filter((e) => e.type === 'botError')).toEqual([]);
    expect(w.openOrders()).toEqual([]);
    await w.stop();
  });

  it('a bad intent among good ones is refused alone; emit is checked too; ten of them stop the strategy as ten throws do', async () => {
    let emit: ((x: unknown) => void) | undefined;
    const def = defineStrategy<Record<string, unknown>>({
      name: 'mixed',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: (ctx) => {
        emit = (x) => ctx.emit(x as never);
        return { onMark: (e) => [{ ...place, price: String(Number(e.mark.markPrice) - 1000) }, { ...place, quantity: 0.01 }] as never };
      },
    });
    const w = await botWorld([{ id: 'm', definition: def, params: {} }], { allowStrategyErrors: true });
    await w.setMark('BTCUSDT', '50000');
    expect(w.openOrders().map((o) => o.price)).toEqual(['49000']);
    expect(errorsOf(w.events)).toEqual([`m onMark: malformed intent refused: place intent: 'quantity' must be a decimal string such as "1.5", got number 0.01`]);
    emit?.({ kind: 'cancelAll', symbol: 7 });
    expect(errorsOf(w.events).at(-1)).toBe(`m emit: malformed intent refused: cancelAll intent: 'symbol' must be a non-empty string, got number 7`);
    for (let i = 1; i <= 8; i++) await w.setMark('BTCUSDT', String(50000 + i));
    expect(w.bot.strategyHealth()[0].stopped).toMatch(/^10 errors within 60 s; last in onMark: malformed intent refused/);
    expect(w.events.some((e) => e.type === 'strategyStopped')).toBe(true);
    await w.stop();
  });
});

describe('errors a test world does not let pass', () => {
  it('a malformed intent fails the world by default, naming the strategy, the hook, the kind and the field', async () => {
    const w = await botWorld([{ id: 's', definition: returning([{ ...place, quantity: undefined }]), params: {} }]);
    const err = await w.setMark('BTCUSDT', '50100').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldStrategyError);
    expect((err as Error).message).toMatch(/^1 strategy error\(s\) while the test ran; first: \[s\] onMark: malformed intent refused: place intent: 'quantity' must be a decimal string, got nothing/);
    await w.stop();
  });

  it("an exception of the bot's own pipeline (a bus handler) is a botError: counted, kept, and it fails the world even when strategy errors are allowed", async () => {
    const w = await botWorld([{ id: 's', definition: returning(undefined), params: {} }], { allowStrategyErrors: true });
    w.bot.bus.subscribe('markPrice', () => {
      throw new Error('handler bug');
    });
    const err = await w.setMark('BTCUSDT', '50100').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldStrategyError);
    expect((err as Error).message).toMatch(/^1 error\(s\) of the bot's own pipeline while the test ran; first: bot pipeline, handler of markPrice: handler bug/);
    expect(w.bot.stats.pipelineErrors).toBe(1);
    expect(w.bot.lastPipelineError).toBe('handler of markPrice: handler bug');
    expect(w.events.filter((e) => e.type === 'botError').map((e) => (e.type === 'botError' ? e.context : ''))).toEqual(['handler of markPrice']);
    await w.stop();
  });

  it('a create() that throws fails the start with the strategy id, create() and its top frame', async () => {
    const def = defineStrategy<Record<string, unknown>>({
      name: 'broken',
      symbols: () => ['BTCUSDT'],
      params: () => ({}),
      create: () => {
        throw new Error('create exploded');
      },
    });
    const err = await botWorld([{ id: 'c', definition: def, params: {}, module: '/strategies/broken.ts' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StrategyCreateError);
    expect((err as StrategyCreateError).strategyId).toBe('c');
    expect((err as Error).message).toMatch(/^strategy c could not be created: \[c\] create\(\): create exploded \(at .*intent-check\.test\.ts:\d+:\d+\)\); module \/strategies\/broken\.ts$/);
    const missing = defineStrategy<Record<string, unknown>>({ name: 'noreturn', symbols: () => ['BTCUSDT'], params: () => ({}), create: () => undefined as never });
    await expect(botWorld([{ id: 'n', definition: missing, params: {} }])).rejects.toThrow(/^strategy n could not be created: \[n\] create\(\): create\(\) returned undefined; it must return the strategy's hooks/);
  });
});
