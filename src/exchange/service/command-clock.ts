import type { Clock } from '../../core/clock';

/**
 * The engine's clock inside the server: it reads the time stamped on the command being applied,
 * so that replaying the journal gives the engine the very same readings. Stamps never go back.
 */
export class CommandClock implements Clock {
  private t: number;

  constructor(start: number) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Stamp for the next command: the wall time, or the last stamp if the wall clock stepped back. */
  stamp(wall: number): number {
    return wall > this.t ? wall : this.t;
  }

  set(t: number): void {
    if (t > this.t) this.t = t;
  }
}
