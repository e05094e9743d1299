import { VenueEmitter } from '../../src/bot/venue/emitter';
import type { VenueEvent } from '../../src/bot/venue/venue';

const ev = (detail: string): VenueEvent => ({ type: 'stream', time: 1, stream: 'private', status: 'connected', detail });

describe('VenueEmitter', () => {
  it('delivers to direct listeners and Observable subscribers alike, in order, until they leave', () => {
    const em = new VenueEmitter();
    const direct: string[] = [];
    const observed: string[] = [];
    const errors: unknown[] = [];
    const stop = em.listen({ next: (e) => direct.push(e.type === 'stream' ? e.detail : ''), error: (err) => errors.push(err) });
    const sub = em.events.subscribe({ next: (e) => observed.push(e.type === 'stream' ? e.detail : ''), error: (err: unknown) => errors.push(err) });
    em.emit(ev('a'));
    stop();
    em.emit(ev('b'));
    sub.unsubscribe();
    em.emit(ev('c'));
    expect(direct).toEqual(['a']);
    expect(observed).toEqual(['a', 'b']);
    expect(errors).toEqual([]);
  });

  it('a listener that unsubscribes while an event is delivered does not make the next listener miss it', () => {
    const em = new VenueEmitter();
    const got: string[] = [];
    const stopFirst = em.listen({ next: () => stopFirst(), error: () => undefined });
    em.listen({ next: (e) => got.push(e.type), error: () => undefined });
    em.emit(ev('x'));
    em.emit(ev('y'));
    expect(got).toEqual(['stream', 'stream']);
  });

  it('passes errors to both kinds of consumer', () => {
    const em = new VenueEmitter();
    const seen: string[] = [];
    em.listen({ next: () => undefined, error: () => seen.push('listener') });
    em.events.subscribe({ error: () => seen.push('observer') });
    em.error(new Error('boom'));
    expect(seen).toEqual(['listener', 'observer']);
  });
});
