/**
 * After this many rounds of successes at the cap (a round: as many successes as the cap), one
 * more request is let in flight, in case the server's cap grew: one 429 in about twenty rounds,
 * 1,280 requests at a cap of 64.
 */
const PROBE_AFTER_ROUNDS = 20;

/**
 * Whether the endpoint's bare 429s are a cap on requests in flight, and at how many.
 *
 * Some servers and gateways refuse at once what comes past a number of requests in progress:
 * W&B Inference and CoreWeave answer 429 "Concurrency limit reached for requests"
 * (https://docs.wandb.ai/support/inference/articles/api-error-code-429-concurrency-limit-rea),
 * LiteLLM's proxy 429 "Max parallel request limit reached" past a key's `max_parallel_requests`
 * (BerriAI/litellm, litellm/proxy/hooks/parallel_request_limiter.py), and nginx's `limit_conn`
 * with `limit_conn_status 429` (https://nginx.org/en/docs/http/ngx_http_limit_conn_module.html).
 * None says its number in a header. Such a cap shows in our own count of requests out: a 429
 * comes while at least N others are out (counted when it comes back: the requests of a burst
 * reach the server in any order, so the count each went with says nothing), and a request sent
 * once we hold under a cap succeeds. While that holds, the run keeps one fewer than the fewest
 * out at a 429 and those 429s are not taken for a rate limit (cutting the pace for them held a
 * 64-request cap to 0.92 of what it allows). Once a request that went with clearly more out
 * than that succeeds, or a 429 comes to a request that was out alone, the 429s are a rate limit
 * or something else; the run says no more about caps and the pace finds the limit from them.
 *
 * Our count of requests out runs ahead of the server's (answers on their way back, requests on
 * theirs), so holding ours under the cap holds the server's under it too; the same lag lets a
 * success come at a few more out than the server counted (`tolerance`).
 */
export class InFlightCapWatch {
  private fewestRefused = Number.POSITIVE_INFINITY;
  private firstRefusedAt = Number.POSITIVE_INFINITY;
  private mostAdmitted = 0;
  private ruledOut = false;
  private successesAtCap = 0;

  /** The most requests to keep in flight; null when the 429s have not shown a cap, or showed none. */
  get cap(): number | null {
    return this.ruledOut || this.fewestRefused === Number.POSITIVE_INFINITY ? null : this.fewestRefused - 1;
  }

  /** A success to a request that went at `sentAt` with `inFlight` out (itself included). */
  admitted(inFlight: number, sentAt: number): void {
    // Before the first 429 (a burst, say) the count a request went with says nothing of the cap.
    if (this.ruledOut || sentAt < this.firstRefusedAt) return;
    this.mostAdmitted = Math.max(this.mostAdmitted, inFlight);
    this.check();
    const cap = this.cap;
    if (cap === null || ++this.successesAtCap < PROBE_AFTER_ROUNDS * cap) return;
    this.successesAtCap = 0;
    this.fewestRefused++;
  }

  /** A 429 no advertised limit explains, come back at `now` with `inFlight` out (itself included): whether a cap explains it. */
  refused(inFlight: number, now: number): boolean {
    if (this.ruledOut) return false;
    this.firstRefusedAt = Math.min(this.firstRefusedAt, now);
    if (inFlight < this.fewestRefused) this.successesAtCap = 0;
    this.fewestRefused = Math.min(this.fewestRefused, inFlight);
    this.check();
    return !this.ruledOut;
  }

  private check(): void {
    // A 429 with nothing else out is no cap a run can hold under (its probe got through alone).
    const alone = this.fewestRefused <= 1;
    if (alone || this.mostAdmitted > this.fewestRefused + tolerance(this.fewestRefused)) this.ruledOut = true;
  }
}

/** How many more out than a 429 came at a success may come at and the cap still hold: the lag between our count and the server's. */
function tolerance(refusedAt: number): number {
  // Under load answers wait in the socket for the event loop: behind nginx's limit_conn 4, a
  // tolerance of 2 ruled the cap out during the test suite.
  return Math.max(4, Math.ceil(refusedAt / 4));
}
