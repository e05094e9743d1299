/**
 * The event side of a Venue: an Observable for general consumers and direct listeners
 * (`Venue.listen`) for the one that handles every event itself, the Bot. Emitting calls the
 * listeners as plain functions and goes through the RxJS Subject only when it has subscribers,
 * so a replay of millions of events pays a function call per event, not a subscriber chain.
 */
import type { Observable } from 'rxjs';
import { Subject } from '../../core/rx';
import type { VenueEvent, VenueListener } from './venue';

export class VenueEmitter {
  private readonly subject = new Subject<VenueEvent>();
  private listeners: VenueListener[] = [];
  readonly events: Observable<VenueEvent> = this.subject.asObservable();

  listen(listener: VenueListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(e: VenueEvent): void {
    // The array is replaced, never mutated, so a listener that unsubscribes mid-loop is safe.
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) ls[i].next(e);
    if (this.subject.observed) this.subject.next(e);
  }

  error(err: unknown): void {
    for (const l of this.listeners) l.error(err);
    this.subject.error(err);
  }

  complete(): void {
    this.listeners = [];
    this.subject.complete();
  }
}
