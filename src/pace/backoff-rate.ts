import { chanceOfAtLeast, chanceOfFewer } from './chance.js';
import { EventMeter } from './event-meter.js';
import { RecentShare } from './recent-share.js';

/** How far a 429 cuts the pace: to this share of what the endpoint was admitting (sent, less rejected)... */
const CUT_TO = 0.9;
/**
 * ...but a pace that got requests through is cut to no less than this share of itself, or than
 * the share of its answers that were not 429s if that is lower (at most halving it, TCP's floor): what was
 * admitted over the last seconds includes slower moments, and a few 429s should not undo them
 * all, while a flood of them (a burst into a limiter with no room) wants the pace down fast.
 */
const CUT_FLOOR = 0.85;
const DEEPEST_CUT = 0.5;
/**
 * While no 429 comes, the pace grows back as TCP CUBIC's window does: fast at first, to a little
 * under the pace the last 429 came at (PLATEAU of it, RECOVER_MS the time constant: 95% of the
 * way in 3 s), where it stays a while; then, the longer none comes (the limit may have gone up,
 * or the 429 was noise), it probes past it: +6% after PROBE_AFTER_MS and 1 s more, +28% after 3
 * s more, +150% after 10 s more. A strict limiter (nginx's limit_req, burst 0) refuses any
 * request closer than its interval, so the pace that met it is held just under, not climbed
 * back to and cut from again and again (which averaged 0.68 of its limit).
 */
const PLATEAU = 0.95;
const RECOVER_MS = 1_000;
/**
 * Probing past the plateau starts after PROBE_AFTER_MS, or after PROBE_AFTER_REQUESTS sent at
 * the plateau's pace if that is longer: each probe costs a 429 or two, and at 2 requests a
 * second a probe every 10 s was one request in twenty refused, at 50 one in five hundred.
 */
const PROBE_AFTER_MS = 10_000;
const PROBE_AFTER_REQUESTS = 100;
const GROWTH_LINEAR = 0.05;
const GROWTH_SQUARE = 0.01;
/** After a flood, until a 429 says where the limit is, the pace doubles with each this many successes. */
const SLOW_START_DOUBLING = 8;
const SLOW_START_STEP = 2 ** (1 / SLOW_START_DOUBLING);
/** The span over which sent, accepted and rejected requests are counted... */
const METER_MS = 5_000;
/** ...the span over which the pace's use is measured (see `accepted`)... */
const GROWTH_SPAN_MS = 1_000;
const GROWTH_SPAN_REQUESTS = 10;
/** ...and the shortest a rate is measured over, early in a run (one bin of the meter). */
const SHORTEST_SPAN_MS = 100;
/**
 * A cut needs 429s to be at least this share of the last RECENT answers, and at least
 * MIN_REJECTED of them: an endpoint that answers a few percent 429s at random (a noisy gateway,
 * a shared limit brushed now and then) is not saturated, and cutting for each of them would
 * ratchet the pace down to nothing. Counted in answers, not seconds, so a fast endpoint is
 * judged on its last fraction of a second and a slow one on enough answers to mean something.
 */
const SATURATED_SHARE = 0.1;
const MIN_REJECTED = 2;
const RECENT = 100;
/**
 * ...or LATEST_REJECTED of the last LATEST answers: a pace probing past a limit meets it at once
 * (past a strict limiter's rate, every other request is refused), and waiting for a tenth of a
 * hundred answers let twenty through at a 429's pace. Random 429s at 5% come three in eight
 * once in about 170 answers: a cut of the pace (not of the requests in flight: ConcurrencyTarget
 * asks for 429s past a count, not at any).
 */
const LATEST = 8;
const LATEST_REJECTED = 3;
/**
 * A cut among successes is reviewed once REVIEW_AFTER answers to requests sent since have come,
 * with the cuts that followed it. It bought nothing when the pace bound the sending before and after it
 * (requests went at PACED of the pace or more), the sending fell by the cut (to SLOWED of what it
 * was or less), the successes fell with it (not more than TAKEN_SLACK of the sending's fall: a
 * limit still under the pace takes as many as before), and the 429s did not: at least
 * UNBOUGHT_SHARE of the share of the last RECENT answers that cut it, and at least MIN_REJECTED.
 * Such 429s come whatever the pace (a gateway refusing a share of requests, a provider's shared
 * capacity: Vertex AI's 429 for its dynamic shared quota,
 * https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429; OpenRouter's "temporarily
 * rate-limited upstream"): the cut is taken back, and their share, up to BACKGROUND_MAX, becomes
 * the background that later 429s must stand out from (CHANCE) to saturate. Without this, 5% of
 * requests refused at random, each 429 coming back after the answer's latency, cut the pace
 * every ~170 answers, faster than it grew back: 30,000 rows at 200 ms took 397 s against 32 s
 * with no 429s. A limiter's cut is never taken back so: past it, the successes do not fall with
 * the sending, and under it the 429s stop.
 */
const REVIEW_AFTER = 50;
const PACED = 0.8;
const SLOWED = 0.95;
const TAKEN_SLACK = 1.05;
const UNBOUGHT_SHARE = 0.5;
const BACKGROUND_MAX = 0.25;
const CHANCE = 1e-4;
/**
 * A background is forgotten when a later review shows a limit instead: the pace bound the
 * sending and the sending fell, the successes did not fall with it, and the 429s at the lower
 * pace were fewer than the background would bring but FORGET_CHANCE of the time. A cut can
 * look unbought while a limit begins (a bucket's burst draining makes the successes fall more
 * than the sending), and its 429s learned as background hid that limit for the rest of the run:
 * 5% at random for 20 s, then a 200 r/s bucket refusing after the answer's latency, --concurrency
 * 64: a fifth learned, 31% of requests refused over a million rows and 5-20 rows failing as
 * rate_limited_alone in 4 of 6 seeds; now 0.7-0.8% and none (virtual time). 429s that do come
 * at random are not fewer by chance so (every random-only run of the matrix unchanged).
 */
const FORGET_CHANCE = 0.05;
/** The slowest pace a cut leaves: one request every 10 s. */
const SLOWEST_PER_MS = 1 / 10_000;
/**
 * A 429 to a request that went alone (nothing else in flight), g ms after the latest request
 * the endpoint took, bounds its rate: a token bucket (nginx's limit_req, GCRA, OpenAI's
 * continuous refill) that refuses a request g ms after it took one refilled less than one
 * request in g ms, so its rate is under 1/g; refused requests take nothing from it
 * (https://nginx.org/en/docs/http/ngx_http_limit_req_module.html: "excessive requests are ...
 * terminated"). The send times of this many latest successes are kept to find that one.
 */
const ACCEPTED_KEPT = 16;
/**
 * In a flood (no success at the pace yet), such a 429 spaces the next requests twice its gap
 * apart, as exponential backoff doubles its wait: 0.9 of 1/g left a 2 r/s limiter's probing at
 * gaps of 380-470 ms, each one more 429.
 */
const FLOOD_GAP_CUT = 0.5;

/**
 * The pace for an endpoint that answers 429 without saying its limit (nginx's `limit_req`, a
 * server capped at N requests in flight, a gateway's queue): increase slowly, decrease at once,
 * on the request rate, as TCP does on its window. Until the endpoint is saturated (429s at least
 * a tenth of the last hundred answers, or three of the last eight) there is no pace: the pool's
 * concurrency alone limits.
 * Then the pace is cut to a little under what the endpoint was admitting (sent, less rejected,
 * over the last five seconds), at most once per two 429 round trips, since the 429s of requests
 * sent before the cut are still arriving; and it grows again while successes come, until 429s
 * say where the limit is now.
 *
 * Pacing the rate also bounds the requests in flight (rate x latency, Little's law), so a
 * server capped at N in flight is met the same way as a rate limit.
 */
export class BackoffRate {
  /** Requests per millisecond; null before the first 429. */
  private perMs: number | null = null;
  private next = 0;
  private cutAllowedAt = 0;
  /** The pace and time of the last cut: growth is measured from there. */
  private cutPerMs = 0;
  private cutAt = 0;
  private readonly sentMeter = new EventMeter(METER_MS);
  private readonly rejectedMeter = new EventMeter(METER_MS);
  private readonly takenMeter = new EventMeter(METER_MS);
  private firstAt: number | null = null;
  /** The last RECENT answers, and how many of them were 429s. */
  private readonly recent = new RecentShare(RECENT);
  private readonly latest = new RecentShare(LATEST);
  /** The pace the last 429 that cut came at, when that pace had got requests through: the limit, as far as known. */
  private badPerMs = 0;
  /** The pace the latest request went at. */
  private lastSentPerMs: number | null = null;
  /** Answers to requests sent since the last cut (at its pace), and how many were 429s. */
  private answeredSinceCut = 0;
  private rejectedSinceCut = 0;
  /** When the latest successes went (a ring): the gap from one to a 429 that followed bounds a bucket's rate. */
  private readonly acceptedSentAt = new Float64Array(ACCEPTED_KEPT).fill(Number.NEGATIVE_INFINITY);
  private acceptedCount = 0;
  /** The shortest gap from a success to the next request taken, of those that went alone. */
  private shortestAcceptedGap = Number.POSITIVE_INFINITY;
  /** The pace grown back to after a cut that followed a 429 among successes (see PLATEAU). */
  private plateauPerMs = 0;
  /** The gap from the last success of the 429 that set the plateau by the midpoint (0: none did); see `rejected`. */
  private refusedGap = 0;
  /** The first of the latest cuts among successes and what went before it, until it is reviewed (see REVIEW_AFTER). */
  private underReview: CutUnderReview | null = null;
  /** The share of answers that are 429s whatever the pace, once a cut showed it (see REVIEW_AFTER), until a limit shows (FORGET_CHANCE). */
  private background = 0;

  /** The pace in requests per minute; null when there is none. */
  get perMinute(): number | null {
    return this.perMs === null ? null : this.perMs * 60_000;
  }

  /**
   * Milliseconds until the next request may go (0: now), to the nearest: timers count whole
   * milliseconds, and rounding up made every gap a whole one past the pace (a pace of 1,000
   * a second, 1.0004 ms apart, sent 500). Going up to half a millisecond early costs a strict
   * limiter nothing: the pace holds 5% under the rate a 429 came at.
   */
  waitFor(now: number): number {
    if (this.perMs === null) return 0;
    return Math.max(0, Math.round(this.next - now));
  }

  /** A request goes out now. */
  sent(now: number): void {
    this.firstAt ??= now;
    this.lastSentPerMs = this.perMs;
    this.sentMeter.add(now);
    // Evenly spaced, never two at once after a pause: a limiter with no burst (nginx burst=0) refuses the second.
    if (this.perMs !== null) this.next = Math.max(this.next, now) + 1 / this.perMs;
  }

  /** A success that took `roundTripMs`; `sentAlone`: when it went, if nothing else was in flight then. */
  accepted(now: number, roundTripMs: number, sentAlone: number | null = null): void {
    this.takenMeter.add(now);
    this.recent.add(false);
    this.latest.add(false);
    const sentAtThisPace = now - roundTripMs >= this.cutAt;
    if (sentAtThisPace) this.answeredSinceCut++;
    if (this.underReview !== null && now - roundTripMs >= this.underReview.at) this.underReview.answered++;
    this.reviewCut(now);
    if (sentAlone !== null) {
      const gap = this.sinceAccepted(sentAlone);
      if (gap > 0 && gap < this.shortestAcceptedGap) this.acceptedAfter(gap);
    }
    this.acceptedSentAt[this.acceptedCount++ % ACCEPTED_KEPT] = sentAlone ?? now - roundTripMs;
    this.grow(now, sentAtThisPace);
  }

  /**
   * A 429 that was its row's own (RateController's OWN_REFUSAL_CHANCE), not the pace's: the
   * endpoint answered at this pace without limiting it, so the pace may grow as on a success;
   * nothing else is learned from it. Rows a gateway refuses for themselves, left alone at the
   * end of the input, otherwise sent at the floor the early cuts left (a request every 10 s),
   * each needing a few more tries to fail alone: the run stopped after 5 minutes, 10 of them
   * pending (1 row in 20 refused, 400 rows, no flags, real processes).
   */
  passed(now: number, roundTripMs: number): void {
    const sentAtThisPace = now - roundTripMs >= this.cutAt;
    // Answered at this pace: a 429 among such answers is no flood (nothing got through), which
    // would cut to the flood's floor: at the end of the input, where only such rows are left,
    // one 429 the witnesses could not yet judge cut the pace to a request every 6 s.
    if (sentAtThisPace) this.answeredSinceCut++;
    this.grow(now, sentAtThisPace);
  }

  private grow(now: number, sentAtThisPace: boolean): void {
    if (this.perMs === null) return;
    // After a flood the pace is a floor, measured early on from as little as one success: the
    // limit may be many times it (growing by CUBIC's probe took 18 s from a ninth of a 50 r/s
    // limit). So it grows as TCP's slow start does, by each success at it, not by the clock:
    // doubling each SLOW_START_DOUBLING successes, a small step past the limit at any rate.
    const grown = this.badPerMs === 0 ? (sentAtThisPace ? this.perMs * SLOW_START_STEP : this.perMs) : this.grownBy(now);
    // Grow only a pace that is in use: one far above what is sent would let a burst through later.
    // In use lately, over the last second: over the meter's five, a rate doubling by slow start
    // is always behind, and held it to doubling every 2 s (11 s from a false alarm's floor back
    // to 1,280 requests a second, where doubling each round of answers took under 2).
    const ceiling = 2 * this.perMsLately(this.sentMeter, now, Math.max(GROWTH_SPAN_MS, GROWTH_SPAN_REQUESTS / this.perMs));
    this.perMs = Math.max(this.perMs, Math.min(grown, ceiling));
  }

  /**
   * A 429 that no advertised limit explains; `roundTripMs`: how long it took to come. A 429 to a
   * request sent before the last cut came at the pace before it and says nothing about the new
   * one; nor, until about two round trips after a cut, do the others. `sentAlone`: when its
   * request went, if nothing else was in flight then (see ACCEPTED_KEPT). True when it cut the pace.
   */
  rejected(now: number, roundTripMs: number, sentAlone: number | null = null): boolean {
    this.rejectedMeter.add(now);
    this.recent.add(true);
    this.latest.add(true);
    const sentAtThisPace = now - roundTripMs >= this.cutAt;
    if (sentAtThisPace) {
      this.answeredSinceCut++;
      this.rejectedSinceCut++;
    }
    if (this.underReview !== null && now - roundTripMs >= this.underReview.at) {
      this.underReview.answered++;
      this.underReview.rejected++;
    }
    if (this.reviewCut(now)) return false;
    if (now < this.cutAllowedAt || !this.saturated() || (this.perMs !== null && !sentAtThisPace)) return false;
    // What the endpoint let through: answered or still in flight, all but the 429s.
    const admitting = Math.max(0, this.perMsOver(this.sentMeter, now) - this.perMsOver(this.rejectedMeter, now));
    // A pace that got some requests through and now a 429 says the limit is about that pace: the
    // pace is held a little under it (see PLATEAU). A pace that got none through (the run's first
    // burst, or far too fast) says only that the limit is well under it; what the endpoint
    // admitted meanwhile is its best measure, and the cut goes straight under that.
    const flood = this.perMs === null || this.answeredSinceCut === this.rejectedSinceCut;
    // The pace a 429 came at is the pace its request went at, or the latest request's if that is
    // lower: the pace grows between two requests far apart (half a second at 2 r/s). Not the
    // gap measured between any two requests: a request's way to the wire varies by milliseconds
    // (a new connection, a collection), and one short gap would set the limit low for good.
    // But a 429 to a request that went alone, g ms after the last success, bounds the rate
    // under 1/g (ACCEPTED_KEPT): a short gap only makes that bound loose.
    // The first of a run of cuts stays under review: at 10% refused at random, the next cut came
    // before 50 answers about the last one, and the reviews never ended.
    // A flood keeps the review it falls in: at a slow pace one 429 at random after a cut is a
    // flood, and dropping the review with it left none of the cuts that followed ever reviewed.
    this.underReview = flood ? this.underReview : (this.underReview ?? this.beforeCut(now));
    const gap = sentAlone === null ? 0 : this.sinceAccepted(sentAlone);
    const bound = gap > 0 ? 1 / gap : Number.POSITIVE_INFINITY;
    this.badPerMs = flood ? 0 : Math.min(this.perMs!, this.lastSentPerMs ?? this.perMs!, bound);
    // A limiter with no burst took every request at least its interval after the last and
    // refused the rest: that interval is between the longest gap refused and the shortest taken,
    // and the pace is held under their midpoint, as a bisection halves what is unknown. A bucket
    // with a burst takes short gaps, so the midpoint is above 1/g and the plateau rules.
    this.refusedGap = flood ? 0 : gap;
    this.plateauPerMs = this.plateauFrom(this.badPerMs);
    const rejectedShare = flood ? 1 : this.rejectedSinceCut / this.answeredSinceCut;
    const floor = flood ? 0 : Math.max(DEEPEST_CUT, Math.min(CUT_FLOOR, 1 - rejectedShare));
    const slowest = flood ? this.floodFloor(now) : SLOWEST_PER_MS;
    const cut = Math.max(Math.min(admitting * CUT_TO, bound * (flood ? FLOOD_GAP_CUT : CUT_TO)), (this.perMs ?? 0) * floor, slowest);
    this.perMs = this.perMs === null ? cut : Math.min(this.perMs, cut);
    this.cutPerMs = this.perMs;
    this.cutAt = now;
    this.answeredSinceCut = 0;
    this.rejectedSinceCut = 0;
    this.cutAllowedAt = now + Math.max(2 * roundTripMs, 20);
    this.next = Math.max(this.next, now + 1 / this.perMs);
    return true;
  }

  /**
   * The pace held after a 429 that came at `badPerMs`: a little under it, or under the midpoint of
   * the gap the 429 came at and the shortest taken, whichever is lower.
   */
  private plateauFrom(badPerMs: number): number {
    const between = this.refusedGap > 0 ? 2 / (this.refusedGap + this.shortestAcceptedGap) : Number.POSITIVE_INFINITY;
    return Math.min(badPerMs * PLATEAU, between);
  }

  /**
   * A request that went alone was taken `gap` ms after the last success, sooner than any before:
   * the midpoint under which the pace is held moves down with it, as a bisection goes on. Kept
   * where the first taken gap left it, a 2 r/s limiter at 100 ms answers was held at 0.89 of its
   * rate for the whole run (a 429 444 ms after a success when the shortest gap taken was 627 ms:
   * 558 ms apart); moved, one more 429 and 518 ms apart.
   */
  private acceptedAfter(gap: number): void {
    this.shortestAcceptedGap = gap;
    if (this.refusedGap > 0 && this.badPerMs > 0) this.plateauPerMs = this.plateauFrom(this.badPerMs);
  }

  /**
   * The slowest a flood's cut may go: one request per twice the time since the run's first (at
   * least a second), as the average of an exponential backoff, and never under SLOWEST_PER_MS. A
   * run whose first two rows were each refused for themselves (a request too large, no headers)
   * had nothing admitted and went at one request every 10 s, growing by eight successes a
   * doubling: 2,000 rows took 135 s in virtual time, 30 s now; every limiter of the matrices the same.
   */
  private floodFloor(now: number): number {
    return Math.max(SLOWEST_PER_MS, 1 / (2 * Math.max(1_000, now - (this.firstAt ?? now))));
  }

  /** What a cut among successes changes, and the sending and successes before it (see REVIEW_AFTER). */
  private beforeCut(now: number): CutUnderReview {
    return {
      perMs: this.perMs!,
      cutPerMs: this.cutPerMs,
      cutAt: this.cutAt,
      badPerMs: this.badPerMs,
      plateauPerMs: this.plateauPerMs,
      rejectedShare: this.recent.share,
      sentPerMs: this.perMsLately(this.sentMeter, now, GROWTH_SPAN_MS),
      takenPerMs: this.perMsLately(this.takenMeter, now, GROWTH_SPAN_MS),
      at: now,
      answered: 0,
      rejected: 0,
    };
  }

  /**
   * Reviews a cut among successes, with the cuts that followed it, once REVIEW_AFTER answers to
   * requests sent since have come; takes them back, and learns the share of 429s that comes
   * whatever the pace, when they bought nothing. True when they were taken back.
   */
  private reviewCut(now: number): boolean {
    const before = this.underReview;
    if (before === null || before.answered < REVIEW_AFTER) return false;
    this.underReview = null;
    const since = Math.min(METER_MS, now - before.at);
    if (since <= 0) return false;
    const sent = this.sentMeter.countSince(now - since) / since;
    const taken = this.takenMeter.countSince(now - since) / since;
    const paced = before.sentPerMs >= PACED * before.perMs && sent >= PACED * this.cutPerMs;
    const slowed = sent <= SLOWED * before.sentPerMs;
    const takenFellWithIt = taken * before.sentPerMs <= TAKEN_SLACK * sent * before.takenPerMs;
    const share = before.rejected / before.answered;
    const unbought = before.rejected >= MIN_REJECTED && share >= UNBOUGHT_SHARE * before.rejectedShare;
    const fewerThanBackground = this.background > 0 && chanceOfFewer(before.answered, before.rejected + 1, this.background) < FORGET_CHANCE;
    if (paced && slowed && !takenFellWithIt && fewerThanBackground) this.background = 0;
    if (!(paced && slowed && takenFellWithIt && unbought) || share > BACKGROUND_MAX) return false;
    this.background = share;
    this.perMs = Math.max(this.perMs ?? 0, before.perMs);
    this.cutPerMs = before.cutPerMs;
    this.cutAt = before.cutAt;
    // The limit the cuts kept before it found was found with such 429s too, chance taken for a
    // limit: forgotten, the pace grows by slow start until 429s beyond chance say where one is.
    // Kept, it held the pace at its plateau, grown past only by CUBIC's probe: 3,000 rows refused
    // 10% at random ran at 0.08 of what 256 in flight allow (the median of 10 seeds in virtual
    // time), 0.23 once forgotten.
    this.badPerMs = 0;
    this.plateauPerMs = 0;
    this.refusedGap = 0;
    return true;
  }

  /**
   * The pace grown back since a cut that followed a 429 among successes, as CUBIC grows (see
   * PLATEAU); after a flood the pace grows by slow start instead (`accepted`).
   */
  private grownBy(now: number): number {
    const sinceCut = Math.max(0, now - this.cutAt);
    const plateau = this.plateauPerMs;
    if (plateau <= this.cutPerMs) return this.cutPerMs * growth(sinceCut);
    const recovered = plateau - (plateau - this.cutPerMs) * Math.exp(-sinceCut / RECOVER_MS);
    const probeAfterMs = Math.max(PROBE_AFTER_MS, PROBE_AFTER_REQUESTS / plateau);
    return recovered * growth(Math.max(0, sinceCut - probeAfterMs));
  }

  /** Ms from the latest success sent before `sentAt` to it; 0 when none is known. */
  private sinceAccepted(sentAt: number): number {
    let latest = Number.NEGATIVE_INFINITY;
    for (const at of this.acceptedSentAt) if (at < sentAt && at > latest) latest = at;
    return latest === Number.NEGATIVE_INFINITY ? 0 : sentAt - latest;
  }

  /** Whether 429s are a saturating share of the recent answers (see SATURATED_SHARE). */
  saturated(): boolean {
    const recently = this.recent.hits >= MIN_REJECTED && this.recent.hits >= SATURATED_SHARE * this.recent.count;
    const lately = this.latest.hits >= LATEST_REJECTED;
    if (this.background === 0) return recently || lately;
    // 429s that come whatever the pace saturate nothing: only more of them than chance would bring.
    const beyondChance = (answers: RecentShare) => chanceOfAtLeast(answers.count, answers.hits, this.background) < CHANCE;
    return (recently && beyondChance(this.recent)) || (lately && beyondChance(this.latest));
  }

  /** Events per ms over the meter's span (or since the first request, early in a run). */
  private perMsOver(meter: EventMeter, now: number): number {
    return meter.count(now) / this.spanUpTo(METER_MS, now);
  }

  /** `meter`'s events per ms lately: over `spanMs`, or since the first request if that is shorter. */
  private perMsLately(meter: EventMeter, now: number, spanMs: number): number {
    const span = this.spanUpTo(Math.min(spanMs, METER_MS), now);
    return meter.countSince(now - span) / span;
  }

  /** `spanMs`, or the time since the first request if that is shorter (at least SHORTEST_SPAN_MS). */
  private spanUpTo(spanMs: number, now: number): number {
    return Math.min(spanMs, Math.max(SHORTEST_SPAN_MS, now - (this.firstAt ?? now)));
  }
}

/** How far the pace grows `ms` after it starts growing: +6% after 1 s, +28% after 3 s, +150% after 10 s. */
function growth(ms: number): number {
  const seconds = ms / 1000;
  return 1 + GROWTH_LINEAR * seconds + GROWTH_SQUARE * seconds * seconds;
}

/**
 * A cut among successes under review: the state it replaced, the sending and successes before it,
 * and the answers since to requests sent after it.
 */
interface CutUnderReview {
  perMs: number;
  cutPerMs: number;
  cutAt: number;
  badPerMs: number;
  plateauPerMs: number;
  /** The share of 429s among the last RECENT answers when it came. */
  rejectedShare: number;
  sentPerMs: number;
  takenPerMs: number;
  /** When it came. */
  at: number;
  answered: number;
  rejected: number;
}
