/**
 * Where a run that was not given --concurrency starts once its first request succeeded, doubling
 * each round from there (TCP's slow start). Two, not eight: against a limiter with no burst
 * (nginx's limit_req, burst=0) every request of the first round after the probe is refused, and
 * eight at once were a fifth of a 38-row run's requests refused before anything was learned.
 */
export const AUTO_START = 2;
/**
 * Up to this many in flight the rounds double whatever the latency does: a run that opened to 8
 * at once before kept that floor, and the latency of an endpoint answering in a few milliseconds
 * doubles by chance (a run held at 2 by it waited on two answers the server held back).
 */
export const AUTO_FLOOR = 8;
/**
 * The most requests in flight a run sets itself when not given --concurrency. Enough for
 * 10,000 requests a minute at 1.5 s answers (Little's law: 250 in flight), the top of most
 * providers' tiers for one model; past it a process holds that many sockets and open rows, and
 * a user with a larger limit says so with --concurrency.
 */
export const AUTO_CEILING = 256;
/** Room above rate x latency: answers vary in length, and a slot waiting for the pace holds no request. */
const HEADROOM = 1.5;
/** On saturation, the requests in flight are cut to this share of those out when it came. */
const CAP_TO = 0.9;
/** How much slower answers may get before growing stops: past it the endpoint is queueing our requests. */
const QUEUEING = 2;
/** How many recent answers say whether 429s come past a count of requests out or anywhere (see `mostlyRefusedFrom`). */
const CAP_EVIDENCE = 128;
/**
 * A cap is taken back after this many successes in a row to requests that went with more out
 * than any success before it: an endpoint capped at N in flight refuses every request past N, so
 * those successes say the 429s came from something else. A token bucket's burst looks like a
 * cap when it is spent (a bucket of 20 refuses the 21st request of a round however slowly it
 * refills, https://nginx.org/en/docs/http/ngx_http_limit_req_module.html, `burst`), and the cap
 * then grew back by one a round: at 3 s answers, a 20 r/s bucket was held to half its rate for
 * a minute. One success past it is not enough: the count out when a request went includes 429s
 * still on their way back, so a capped endpoint takes one past its count now and then.
 */
const DISPROOF = 4;

export interface ConcurrencyOptions {
  /** The most requests in flight: --concurrency, or AUTO_CEILING. */
  ceiling: number;
  /** --concurrency was given: the run opens to it after its first success and keeps it. */
  fixed: boolean;
}

/**
 * How many requests the run keeps in flight.
 *
 * - Probe first: one request until the first success, so a bad key, base URL or model costs
 *   one request, not a whole pool's worth.
 * - Given --concurrency, the run opens to it at once; pacing (the rate) does the rest.
 * - Otherwise, with a pace known (the provider's limits, --rpm, or the pace 429s taught),
 *   what that pace needs by Little's law: rate x latency, with headroom, and no more.
 * - With no pace known, grow like TCP's slow start: double after each round of successes while
 *   latency stays near the fastest seen, and stop where it climbs (the endpoint queues: more in
 *   flight gains nothing), as adaptive concurrency limiters (Netflix's Gradient2/Vegas,
 *   Envoy's adaptive concurrency filter) do.
 */
export class ConcurrencyTarget {
  private current = 1;
  private probing = true;
  private successesInRound = 0;
  private latencyMs: number | null = null;
  private fastestMs = Number.POSITIVE_INFINITY;
  /** Set by saturation: at most this many in flight, growing by one per round of successes. */
  private cap: number | null = null;
  private successesAtCap = 0;
  /** The last CAP_EVIDENCE answers: the requests out when each went (itself included), and whether it was a 429. */
  private readonly answeredOut = new Uint16Array(CAP_EVIDENCE);
  private readonly answeredRefused = new Uint8Array(CAP_EVIDENCE);
  private answeredCount = 0;
  /** The most requests out a success went with when the cap was set, and the successes in a row since past it (see DISPROOF). */
  private mostTakenAtCap = 0;
  private takenPastCap = 0;

  constructor(private readonly options: ConcurrencyOptions) {}

  get value(): number {
    return this.cap === null ? this.current : Math.min(this.current, this.cap);
  }

  /** How long answers take now (a moving average of successes); null before the first. */
  get latency(): number | null {
    return this.latencyMs;
  }

  /** A success in `latencyMs`; `pacePerMs` the requests per ms the run is paced to, null when unpaced. Returns the new value. */
  succeeded(latencyMs: number, pacePerMs: number | null): number {
    this.latencyMs = this.latencyMs === null ? latencyMs : this.latencyMs * 0.9 + latencyMs * 0.1;
    this.fastestMs = Math.min(this.fastestMs, latencyMs);
    if (this.probing) {
      this.probing = false;
      return this.set(this.options.fixed ? this.options.ceiling : AUTO_START);
    }
    this.growCap();
    if (this.options.fixed) return this.value;
    if (pacePerMs !== null) return this.set(Math.ceil(pacePerMs * this.latencyMs * HEADROOM) + 2);
    if (++this.successesInRound < this.current) return this.value;
    this.successesInRound = 0;
    const queueing = this.current >= AUTO_FLOOR && this.latencyMs > QUEUEING * Math.max(this.fastestMs, 1);
    return queueing ? this.value : this.set(this.current * 2);
  }

  /**
   * The endpoint is saturated with `inFlight` requests out: it may be capped at about that many
   * (a self-hosted server, a gateway's queue), so no more go out than a little under it, whatever
   * the ceiling; the cap grows by one per round of successes, as TCP's window does. `out`: the
   * requests in flight as the 429's request went; no cap unless the answers from that count up
   * were mostly 429s. Successes past the most the endpoint took until then take the cap back
   * (DISPROOF).
   */
  saturated(inFlight: number, out: number): number {
    if (this.probing || !this.mostlyRefusedFrom(out)) return this.value;
    const cap = Math.max(1, Math.min(this.value, Math.floor(inFlight * CAP_TO)));
    if (this.cap !== null && cap >= this.cap) return this.value;
    // The most the endpoint is known to take: what a success went with, or under the fewest out a
    // 429 of these came at (429s come back before the successes sent beside them).
    const refusedFrom = this.cap === null ? out : Math.min(out, this.mostTakenAtCap + 1);
    this.mostTakenAtCap = Math.max(this.mostTakenOut(), refusedFrom - 1);
    this.cap = cap;
    this.takenPastCap = 0;
    this.successesAtCap = 0;
    return this.value;
  }

  /** An answer (a success, or a 429 no advertised limit explains) to a request that went with `out` in flight. */
  answered(out: number, refused: boolean): void {
    const slot = this.answeredCount++ % CAP_EVIDENCE;
    this.answeredOut[slot] = Math.min(out, 0xffff);
    this.answeredRefused[slot] = refused ? 1 : 0;
    if (this.cap === null || out <= this.mostTakenAtCap) return;
    this.takenPastCap = refused ? 0 : this.takenPastCap + 1;
    if (this.takenPastCap >= DISPROOF) this.cap = null;
  }

  /**
   * Whether the recent answers to requests that went with `count` out or more were mostly 429s,
   * as a cap on requests in flight makes them (it refuses every request past it). 429s at random
   * come as often at a count as past it: read as a cap, each run of them by chance capped the
   * requests in flight under the count out, grown back by one a round (5% refused at random held
   * a 3,000-row run at --concurrency 64 to 0.44-0.46 of what 64 in flight allow). The count out
   * when a request went counts the 429s of its burst still on their way back, so a cap's
   * refusals past it are most, not all.
   */
  private mostlyRefusedFrom(count: number): boolean {
    let from = 0;
    let refused = 0;
    for (let i = Math.min(this.answeredCount, CAP_EVIDENCE) - 1; i >= 0; i--) {
      if (this.answeredOut[i]! < count) continue;
      from++;
      refused += this.answeredRefused[i]!;
    }
    return refused * 2 >= from;
  }

  /** The most requests out that a recent success went with: a cap, if there is one, is at least that. */
  private mostTakenOut(): number {
    let most = 0;
    for (let i = Math.min(this.answeredCount, CAP_EVIDENCE) - 1; i >= 0; i--) {
      if (this.answeredRefused[i] === 0) most = Math.max(most, this.answeredOut[i]!);
    }
    return most;
  }

  private growCap(): void {
    if (this.cap === null || ++this.successesAtCap < this.cap) return;
    this.successesAtCap = 0;
    this.cap++;
    if (this.cap >= this.options.ceiling) this.cap = null;
  }

  /** The pace changed (a 429 taught one): what it needs now, when not fixed. */
  paced(pacePerMs: number): number {
    if (this.options.fixed || this.probing || this.latencyMs === null) return this.value;
    return this.set(Math.ceil(pacePerMs * this.latencyMs * HEADROOM) + 2);
  }

  private set(value: number): number {
    this.current = Math.min(this.options.ceiling, Math.max(1, value));
    return this.value;
  }
}
