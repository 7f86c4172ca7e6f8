/** How far a 429 cuts the pace: to this share of what the endpoint was accepting. */
const CUT_TO = 0.9;
/** ...and never below this share of what we were sending: one cut at most halves the pace (TCP's floor). */
const CUT_FLOOR = 0.5;
/** While no 429 comes, the pace grows by this share per second, to find out whether the limit went up. */
const GROWTH_PER_SECOND = 0.1;
/** The span over which accepted and sent requests are counted. */
const METER_MS = 2_000;
/**
 * A cut needs 429s to be at least this share of the answers over the meter's span, and at least
 * MIN_REJECTED of them: an endpoint that answers a few percent 429s at random (a noisy gateway,
 * a shared limit brushed now and then) is not saturated, and cutting for each of them would
 * ratchet the pace down to nothing.
 */
const SATURATED_SHARE = 0.1;
const MIN_REJECTED = 3;
/** The slowest pace a cut leaves: one request every 10 s. */
const SLOWEST_PER_MS = 1 / 10_000;

/**
 * The pace for an endpoint that answers 429 without saying its limit (nginx's `limit_req`, a
 * server capped at N requests in flight, a gateway's queue): additive-increase,
 * multiplicative-decrease on the request rate, as TCP does on its window. Until the first 429
 * there is no pace (the pool's concurrency alone limits). A 429 sets the pace to a little under
 * what the endpoint was accepting (its successes over the last two seconds), at most one cut
 * per round trip, since answers to requests sent before the cut are still arriving. Then the
 * pace grows slowly while successes come, until the next 429 says where the limit is now.
 *
 * Pacing the rate also bounds the requests in flight (rate x latency, Little's law), so a
 * server capped at N in flight is met the same way as a rate limit.
 */
export class BackoffRate {
  /** Requests per millisecond; null before the first 429. */
  private perMs: number | null = null;
  private next = 0;
  private cutAllowedAt = 0;
  private grownAt = 0;
  private readonly sentTimes: number[] = [];
  private readonly acceptedTimes: number[] = [];
  private readonly rejectedTimes: number[] = [];
  private firstAt: number | null = null;

  /** The pace in requests per minute; null when there is none. */
  get perMinute(): number | null {
    return this.perMs === null ? null : this.perMs * 60_000;
  }

  /** Milliseconds until the next request may go (0: now). */
  waitFor(now: number): number {
    if (this.perMs === null) return 0;
    return Math.max(0, Math.ceil(this.next - now));
  }

  /** A request goes out now. */
  sent(now: number): void {
    this.firstAt ??= now;
    remember(this.sentTimes, now);
    if (this.perMs !== null) this.next = Math.max(this.next, now - 1 / this.perMs) + 1 / this.perMs;
  }

  accepted(now: number): void {
    remember(this.acceptedTimes, now);
    if (this.perMs === null) return;
    const seconds = Math.max(0, now - this.grownAt) / 1000;
    this.grownAt = now;
    // Grow only a pace that is in use: one far above what is sent would let a burst through later.
    const ceiling = 2 * this.perMsOver(this.sentTimes, now);
    this.perMs = Math.min(Math.max(ceiling, this.perMs), this.perMs * (1 + GROWTH_PER_SECOND * seconds));
  }

  /** A 429 that no advertised limit explains; `roundTripMs`: how long answers take now. */
  rejected(now: number, roundTripMs: number): void {
    remember(this.rejectedTimes, now);
    if (now < this.cutAllowedAt || !this.saturated(now)) return;
    const accepting = this.perMsOver(this.acceptedTimes, now);
    const sending = this.perMsOver(this.sentTimes, now);
    const cut = Math.max(accepting * CUT_TO, sending * CUT_FLOOR, SLOWEST_PER_MS);
    this.perMs = this.perMs === null ? cut : Math.min(this.perMs, cut);
    this.cutAllowedAt = now + Math.max(roundTripMs, 100);
    this.grownAt = now;
    this.next = Math.max(this.next, now + 1 / this.perMs);
  }

  private saturated(now: number): boolean {
    const rejected = countSince(this.rejectedTimes, now);
    const accepted = countSince(this.acceptedTimes, now);
    return rejected >= MIN_REJECTED && rejected >= SATURATED_SHARE * (rejected + accepted);
  }

  /** Events per ms over the meter's span (or since the first request, early in a run). */
  private perMsOver(times: number[], now: number): number {
    const span = Math.min(METER_MS, Math.max(1, now - (this.firstAt ?? now)));
    return countSince(times, now) / span;
  }
}

function remember(times: number[], now: number): void {
  times.push(now);
  while (times.length > 0 && times[0]! < now - METER_MS) times.shift();
}

function countSince(times: number[], now: number): number {
  let count = 0;
  for (let i = times.length - 1; i >= 0 && times[i]! >= now - METER_MS; i--) count++;
  return count;
}
