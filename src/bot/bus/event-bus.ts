/**
 * The event bus. Internally a plain dispatch table (no per-event RxJS operators on the hot path);
 * RxJS is the edge: `on(type)` and `all$` give Observables for users, metrics and wiring.
 */
import { Observable } from '../../core/rx';
import { Fifo } from '../../core/fifo';
import type { BotEvent, BotEventOf, BotEventType } from './events';

type Handler<E> = (event: E) => void;

export class EventBus {
  private readonly byType = new Map<BotEventType, Array<Handler<BotEvent>>>();
  private readonly all: Array<Handler<BotEvent>> = [];
  /** Changes with every handler added or removed: lets a reader cache what it derived from the handlers. */
  handlersVersion = 0;
  private dispatching = 0;
  private readonly queue = new Fifo<BotEvent>();
  /** Called when a handler throws: the bus keeps going, the error is never swallowed silently. */
  onHandlerError: (error: unknown, event: BotEvent) => void = (error) => {
    throw error;
  };

  /**
   * Delivers an event to every handler. Events published from inside a handler are queued and
   * delivered after the current one, so every handler sees events in the same order.
   */
  publish(event: BotEvent): void {
    if (this.dispatching > 0 || this.queue.length > 0) {
      this.queue.push(event);
      if (this.dispatching > 0) return;
    }
    this.dispatching++;
    try {
      // With nothing queued (the common case) the event goes first without a trip through the
      // queue, then whatever its handlers published, in order.
      if (this.queue.length === 0) this.deliver(event);
      for (let e = this.queue.shift(); e !== undefined; e = this.queue.shift()) this.deliver(e);
    } finally {
      this.dispatching--;
    }
  }

  private deliver(e: BotEvent): void {
    const hs = this.byType.get(e.type);
    if (hs) for (const h of hs) this.call(h, e);
    for (const h of this.all) this.call(h, e);
  }

  private call(h: Handler<BotEvent>, e: BotEvent): void {
    try {
      h(e);
    } catch (err) {
      this.onHandlerError(err, e);
    }
  }

  /** Registers a handler for one type; returns the function that removes it. */
  subscribe<T extends BotEventType>(type: T, handler: Handler<BotEventOf<T>>): () => void {
    let hs = this.byType.get(type);
    if (!hs) {
      hs = [];
      this.byType.set(type, hs);
    }
    const h = handler as Handler<BotEvent>;
    hs.push(h);
    this.handlersVersion++;
    return () => {
      const list = this.byType.get(type);
      if (!list) return;
      const i = list.indexOf(h);
      if (i >= 0) list.splice(i, 1);
      this.handlersVersion++;
    };
  }

  subscribeAll(handler: Handler<BotEvent>): () => void {
    this.all.push(handler);
    this.handlersVersion++;
    return () => {
      const i = this.all.indexOf(handler);
      if (i >= 0) this.all.splice(i, 1);
      this.handlersVersion++;
    };
  }

  /** Observable of exactly one event type. */
  on<T extends BotEventType>(type: T): Observable<BotEventOf<T>> {
    return new Observable<BotEventOf<T>>((sub) => this.subscribe(type, (e) => sub.next(e)));
  }

  /** Observable of every event. */
  get all$(): Observable<BotEvent> {
    return new Observable<BotEvent>((sub) => this.subscribeAll((e) => sub.next(e)));
  }

  /** Handlers that an event of `type` would reach (its own and the catch-all ones). */
  listenerCount(type: BotEventType): number {
    return (this.byType.get(type)?.length ?? 0) + this.all.length;
  }

  /** Handler count, to check that nothing leaks. */
  get handlerCount(): number {
    let n = this.all.length;
    for (const hs of this.byType.values()) n += hs.length;
    return n;
  }
}
