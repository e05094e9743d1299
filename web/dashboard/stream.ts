/**
 * Server-sent events over fetch rather than EventSource: EventSource cannot send the bearer
 * token. It reconnects by itself with backoff and sends `Last-Event-ID`, so the server replays
 * what was missed; a 401 (the token is missing or wrong) or a 403 (the daemon refuses this
 * address, whatever the token) stops it instead of retrying forever, with the daemon's reason.
 */
export type LinkState = 'connecting' | 'open' | 'reconnecting' | 'unauthorized' | 'forbidden';

export interface StreamHandlers {
  message(event: string, data: string, id: string | undefined): void;
  link(state: LinkState, detail: string): void;
}

/**
 * The daemon sends a live state at least every second while a page is connected: this long with
 * nothing read means the connection is dead though not closed (a laptop that slept, a proxy or NAT
 * that dropped it silently), and the page reconnects instead of showing stale figures as live.
 */
export const STALL_MS = 10_000;

export class EventStream {
  private lastId: string | undefined;
  private abort: AbortController | undefined;
  private closed = false;
  private attempt = 0;
  /** Why the last connection ended, kept in the link's detail while reconnecting. */
  private lastOutcome = '';

  constructor(
    private readonly url: string,
    private readonly headers: () => Record<string, string>,
    private readonly on: StreamHandlers,
  ) {}

  start(): void {
    void this.loop();
  }

  close(): void {
    this.closed = true;
    this.abort?.abort();
  }

  /** The id of the last message received (what a reconnect resumes after). */
  get last(): string | undefined {
    return this.lastId;
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      this.on.link(this.attempt === 0 ? 'connecting' : 'reconnecting', this.attempt === 0 ? '' : `attempt ${this.attempt} (${this.lastOutcome})`);
      const outcome = await this.once();
      if (this.closed) return;
      if (typeof outcome !== 'string') {
        this.on.link(outcome.refused, outcome.reason);
        return;
      }
      this.attempt++;
      this.lastOutcome = outcome;
      const wait = Math.min(10_000, 500 * 2 ** Math.min(this.attempt - 1, 5)) * (0.75 + Math.random() * 0.5);
      this.on.link('reconnecting', `${outcome}; retrying in ${(wait / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Why the stream ended (to retry), or a refusal (not to retry). */
  private async once(): Promise<string | { refused: 'unauthorized' | 'forbidden'; reason: string }> {
    this.abort = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream', ...this.headers() };
    if (this.lastId !== undefined) headers['last-event-id'] = this.lastId;
    let res: Response;
    try {
      res = await fetch(this.url, { headers, signal: this.abort.signal, cache: 'no-store' });
    } catch (e) {
      return `could not connect (${e instanceof Error ? e.message : String(e)})`;
    }
    if (res.status === 401 || res.status === 403) {
      const body = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
      const reason = typeof body?.error === 'string' ? body.error : `the server answered ${res.status}`;
      return { refused: res.status === 401 ? 'unauthorized' : 'forbidden', reason };
    }
    if (!res.ok || res.body === null) return `the server answered ${res.status}`;
    this.attempt = 0;
    this.on.link('open', '');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let stalled = false;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        stalled = true;
        this.abort?.abort();
      }, STALL_MS);
    };
    try {
      for (;;) {
        arm();
        const { value, done } = await reader.read();
        if (done) return 'the server closed the stream';
        buf += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          this.dispatch(block);
        }
      }
    } catch (e) {
      if (stalled) return `nothing received for ${STALL_MS / 1000} s (the connection is dead)`;
      return `the stream broke (${e instanceof Error ? e.message : String(e)})`;
    } finally {
      clearTimeout(watchdog);
    }
  }

  private dispatch(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    if (id !== undefined) this.lastId = id;
    this.on.message(event, data.join('\n'), id);
  }
}
