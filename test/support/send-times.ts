import diagnostics from 'node:diagnostics_channel';

/** The header every request of a run carries (src/http/chat-client.ts), the same on both ends. */
const REQUEST_ID = 'x-client-request-id';

/**
 * When each request to one server was sent, read from undici's diagnostics channel
 * (`undici:request:create`, as the engine hands it to its pool) on `now`, and found again by its
 * `X-Client-Request-Id` when the server gets it: a server clock that reads, while it handles a
 * request, the time that request was sent (time never goes back: the latest of those read so
 * far). A simulator on it counts its rate limits as if the way over the loopback took no time,
 * which it does in a run on a skip-ahead clock, however loaded the machine: a loaded machine
 * delays requests on their way by tens of milliseconds of real time, and the clock may skip ahead
 * meanwhile, so the server would see requests the run paced apart arrive together (the 429s the
 * rate-limit tests met under load, where the run had kept to the pace).
 */
export class SendTimes {
  private readonly sentAt = new Map<string, number>();
  private handling: number | null = null;
  private latest = Number.NEGATIVE_INFINITY;
  private readonly onCreate = (message: unknown) => {
    const request = (message as { request: { origin?: unknown; headers?: unknown } }).request;
    if (String(request.origin) !== this.origin) return;
    const id = headerOf(request.headers);
    if (id !== null) this.sentAt.set(id, this.now());
  };

  /** `origin`: the server's, e.g. `http://127.0.0.1:40123`; `now`: the server's own clock. */
  constructor(
    private readonly origin: string,
    private readonly now: () => number,
  ) {
    diagnostics.subscribe('undici:request:create', this.onCreate);
  }

  /** The server is about to handle a request (its headers): until the end of this turn, the clock reads its send time. */
  handle(headers: Record<string, string | string[] | undefined>): void {
    const id = headers[REQUEST_ID];
    const sent = typeof id === 'string' ? this.sentAt.get(id) : undefined;
    if (sent === undefined) return;
    this.sentAt.delete(id as string);
    this.latest = Math.max(this.latest, sent);
    this.handling = this.latest;
    queueMicrotask(() => {
      this.handling = null;
    });
  }

  /** The server's clock: the send time of the request it is handling, else its own. */
  clock(): number {
    return this.handling ?? this.now();
  }

  close(): void {
    diagnostics.unsubscribe('undici:request:create', this.onCreate);
  }
}

/** The request id among undici's request headers: a flat [name, value, ...] list (undici 7), or a string of lines. */
function headerOf(headers: unknown): string | null {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === REQUEST_ID) return String(headers[i + 1]);
    return null;
  }
  if (typeof headers === 'string') {
    const line = headers.split('\r\n').find((text) => text.toLowerCase().startsWith(`${REQUEST_ID}:`));
    return line === undefined ? null : line.slice(REQUEST_ID.length + 1).trim();
  }
  return null;
}
