import { TokenBucket } from '../pace/token-bucket.js';

export interface RateControllerOptions {
  maxConcurrency: number;
  rpm: number | null;
  tpm: number | null;
  /** The longest the whole run pauses for a server's retry-after or rate-limit reset. */
  maxPauseMs: number;
  now: () => number;
}

export interface RateLimitState {
  concurrency: number;
  cooldownUntil: number;
}

const WINDOW = 40;
// High enough that random 429s at a few percent (a noisy but unsaturated endpoint) almost never
// look like saturation: P(12 or more of 40 | 5%) is about 2e-5.
const SATURATION_SHARE = 0.3;
// ...judged on at least this many answers: on the first few, one stray 429 is already 30%
// (at 5% random 429s, one of the first 3 answers is a 429 one run in seven).
const MIN_SAMPLE = 20;

/**
 * Decides how fast the whole run may go; the pool asks it before every attempt.
 *
 * - Probe first: concurrency starts at 1, so a bad key, base URL or model costs one request,
 *   not `--concurrency` of them. The first success proves all three, and the run opens to the
 *   full concurrency at once (ramping up gradually cost ~8 round trips of a 256-slot run);
 *   429s are the saturation rule's job.
 * - Saturation: when 429s make up 30% of the last 40 answers, the endpoint is saturated: the
 *   run halves its concurrency and pauses dispatch once, for the server's retry-after (one
 *   shared cooldown, not every worker sleeping and waking together). A stray 429 among
 *   successes is not saturation: only that row waits its retry-after, so a noisy endpoint does
 *   not stall the run. After a cut, concurrency grows back by one per window of successes.
 * - Budgets: optional rpm/tpm token buckets, and the server's x-ratelimit-remaining/reset
 *   headers, delay dispatch before the 429s come.
 */
export class RateController {
  private limit = 1;
  private probing = true;
  private successesAtLevel = 0;
  private cooldownUntil = 0;
  private cutAllowedAt = 0;
  private readonly recent: boolean[] = [];
  private readonly requestBudget: TokenBucket | null;
  private readonly tokenBudget: TokenBucket | null;
  private listeners: Array<(concurrency: number) => void> = [];

  constructor(private readonly options: RateControllerOptions) {
    this.requestBudget = options.rpm ? new TokenBucket(options.rpm, options.now) : null;
    this.tokenBudget = options.tpm ? new TokenBucket(options.tpm, options.now) : null;
  }

  get concurrency(): number {
    return this.limit;
  }

  /** When the cooldown after a 429 ends (epoch ms; in the past when none). */
  get cooldownEnd(): number {
    return this.cooldownUntil;
  }

  get state(): RateLimitState {
    return { concurrency: this.limit, cooldownUntil: this.cooldownUntil };
  }

  onConcurrencyChange(listener: (concurrency: number) => void): void {
    this.listeners.push(listener);
  }

  /** Milliseconds to wait before sending a request of `estimatedTokens`; 0 to send now. */
  delayBeforeSend(estimatedTokens: number): number {
    const now = this.options.now();
    if (now < this.cooldownUntil) return this.cooldownUntil - now;
    // Take from the request budget only when the token budget also allows, so a wait on one
    // does not silently spend the other.
    if (this.tokenBudget) {
      const wait = this.tokenBudget.take(estimatedTokens);
      if (wait > 0) return wait;
    }
    return this.requestBudget?.take(1) ?? 0;
  }

  onSuccess(hint: { remainingRequests?: number; resetRequestsMs?: number; remainingTokens?: number; resetTokensMs?: number } | null): void {
    this.remember(false);
    if (hint) this.followServerBudget(hint);
    if (this.probing) {
      this.probing = false;
      this.setLimit(this.options.maxConcurrency);
      return;
    }
    this.successesAtLevel++;
    if (this.successesAtLevel < this.limit) return;
    this.successesAtLevel = 0;
    this.setLimit(this.limit + 1);
  }

  onRateLimited(retryAfterMs: number | null): void {
    this.remember(true);
    const now = this.options.now();
    const share = this.recent.filter(Boolean).length / this.recent.length;
    const saturated = this.recent.length >= MIN_SAMPLE && share >= SATURATION_SHARE;
    if (!saturated || now < this.cutAllowedAt) return;
    this.probing = false;
    this.successesAtLevel = 0;
    this.setLimit(Math.max(1, Math.floor(this.limit / 2)));
    const pause = Math.min(retryAfterMs ?? 1000, this.options.maxPauseMs);
    this.cooldownUntil = Math.max(this.cooldownUntil, now + pause);
    // Answers to requests sent before the cut are still arriving; let them not cut again.
    this.cutAllowedAt = now + pause + 1000;
    this.recent.length = 0;
  }

  onOtherFailure(): void {
    this.remember(false);
  }

  private followServerBudget(hint: {
    remainingRequests?: number;
    resetRequestsMs?: number;
    remainingTokens?: number;
    resetTokensMs?: number;
  }): void {
    const now = this.options.now();
    const pauseUntil = (resetMs: number): void => {
      this.cooldownUntil = Math.max(this.cooldownUntil, now + Math.min(resetMs, this.options.maxPauseMs));
    };
    if (hint.remainingRequests !== undefined && hint.remainingRequests <= 0 && hint.resetRequestsMs) pauseUntil(hint.resetRequestsMs);
    if (hint.remainingTokens !== undefined && hint.remainingTokens <= 0 && hint.resetTokensMs) pauseUntil(hint.resetTokensMs);
  }

  private remember(rateLimited: boolean): void {
    this.recent.push(rateLimited);
    if (this.recent.length > WINDOW) this.recent.shift();
  }

  private setLimit(next: number): void {
    const bounded = Math.min(this.options.maxConcurrency, Math.max(1, next));
    if (bounded === this.limit) return;
    this.limit = bounded;
    for (const listener of this.listeners) listener(bounded);
  }
}
