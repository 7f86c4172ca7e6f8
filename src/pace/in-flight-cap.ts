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
 * None says its number in a header. Such a cap shows in what we
 * send: every 429 came to a request that went with at least N out, every success to one that
 * went with fewer. While that holds, the run keeps one fewer than the fewest a 429 came at, and
 * those 429s are not taken for a rate limit (cutting the pace for them held a 64-request cap to
 * 0.81-0.90 of what it allows). Once a success comes to a request that went with clearly more
 * out than a 429 did, the 429s are a rate limit or something else; the run says no more about
 * caps and the pace finds the limit from the 429s.
 *
 * Our count of requests out runs ahead of the server's (answers on their way back, requests on
 * theirs), never behind it, so holding ours under the cap holds the server's under it too; the
 * same lag lets a success come at a few more out than the server counted (`tolerance`).
 */
export class InFlightCapWatch {
  private fewestRefused = Number.POSITIVE_INFINITY;
  private mostAdmitted = 0;
  private ruledOut = false;
  private successesAtCap = 0;

  /** The most requests to keep in flight; null when the 429s have not shown a cap, or showed none. */
  get cap(): number | null {
    return this.ruledOut || this.fewestRefused === Number.POSITIVE_INFINITY ? null : this.fewestRefused - 1;
  }

  /** A success to a request that went with `inFlight` out (itself included). */
  admitted(inFlight: number): void {
    if (this.ruledOut) return;
    this.mostAdmitted = Math.max(this.mostAdmitted, inFlight);
    this.check();
    const cap = this.cap;
    if (cap === null || ++this.successesAtCap < PROBE_AFTER_ROUNDS * cap) return;
    this.successesAtCap = 0;
    this.fewestRefused++;
  }

  /** A 429 no advertised limit explains, to a request that went with `inFlight` out: whether a cap explains it. */
  refused(inFlight: number): boolean {
    if (this.ruledOut) return false;
    if (inFlight < this.fewestRefused) this.successesAtCap = 0;
    this.fewestRefused = Math.min(this.fewestRefused, inFlight);
    this.check();
    return !this.ruledOut;
  }

  private check(): void {
    // A 429 to a request that went alone cannot be a cap that let requests through.
    const alone = this.fewestRefused <= 1 && this.mostAdmitted > 0;
    if (alone || this.mostAdmitted > this.fewestRefused + tolerance(this.fewestRefused)) this.ruledOut = true;
  }
}

/** How many more out than a 429 came at a success may come at and the cap still hold: the lag between our count and the server's. */
function tolerance(refusedAt: number): number {
  // Under load answers wait in the socket for the event loop: behind nginx's limit_conn 4, a
  // tolerance of 2 ruled the cap out during the test suite.
  return Math.max(4, Math.ceil(refusedAt / 4));
}
