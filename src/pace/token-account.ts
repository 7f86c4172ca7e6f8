import type { CostAccount } from '../cost/cost-account.js';
import { addResponse, budgetSpent, countedUsage, emptyUsage, sumUsage, type UsageTotals } from '../record/usage-totals.js';
import type { SizedRequest, TokenEstimator } from './token-estimator.js';

export interface TokenAccountOptions {
  /** The most tokens the output directory may spend (this shard's share); null for no budget. */
  limit: number | null;
  /** Usage of the directory's earlier sessions, from its manifest. */
  before: Partial<UsageTotals> | undefined;
  estimator: TokenEstimator;
  /** The run's dollars and `--max-cost`, kept beside the tokens; absent in runs that price nothing. */
  cost?: CostAccount;
  /** The part of the run's dollars these tokens are priced as (`judge`: the judge's requests, priced apart); absent: by each request's model. */
  costPart?: string;
}

/**
 * The run's token book: what each attempt is estimated at (for `--tpm` and the budget), what
 * the responses reported (the manifest's `usage`), and `--max-total-tokens`.
 *
 * The budget is checked when a row's first attempt is about to go out: it is refused when the
 * tokens spent so far, in this directory across sessions, plus the estimates of the attempts in
 * flight and of this one would pass the limit. From then on no new row goes out (the run stops
 * with rows pending); rows already sent finish, retries included, and count, so spending can
 * pass the limit by what was in flight. A response without usage counts as its estimate; a
 * failed attempt counts nothing (no usage comes with an error); a cached reply was never sent.
 */
export class TokenAccount {
  /** This session's usage; the manifest's session entry is this object. */
  readonly session: UsageTotals = emptyUsage();
  /** The directory's usage, earlier sessions included; the manifest's `usage` is this object. */
  readonly total: UsageTotals;
  private inFlight = 0;
  private refused: 'tokens' | 'cost' | null = null;

  constructor(private readonly options: TokenAccountOptions) {
    this.total = sumUsage([options.before]);
  }

  get limit(): number | null {
    return this.options.limit;
  }

  /** Tokens spent in the directory as the budget counts them (estimates for responses without usage). */
  get spent(): number {
    return budgetSpent(this.total);
  }

  /** True once a budget refused a row: no new row goes out in this session. */
  get limitReached(): boolean {
    return this.refused !== null;
  }

  /** Which budget refused a row: the tokens (`--max-total-tokens`) or the dollars (`--max-cost`); null while none has. */
  get limitReachedBy(): 'tokens' | 'cost' | null {
    return this.refused;
  }

  get cost(): CostAccount | undefined {
    return this.options.cost;
  }

  /** Another account of the run reached a budget (the judge's, `--max-cost`): no new row goes out here either. */
  stopNewRows(by: 'tokens' | 'cost'): void {
    this.refused ??= by;
  }

  /**
   * Reserves the estimate of an attempt about to go out and returns it; null when the attempt
   * starts a row (`newRow`) and the budget has no room for it.
   */
  reserve(request: SizedRequest, newRow: boolean): number | null {
    const { estimator, limit, cost } = this.options;
    const estimate = estimator.estimate(request);
    if (newRow && this.refused !== null) return null;
    if (newRow && limit !== null && this.spent + this.inFlight + estimate > limit) {
      this.refused = 'tokens';
      return null;
    }
    const tokens = { prompt: estimator.prompt(request), cached: 0, completion: estimator.completion(request) };
    if (cost && !cost.hold(request, tokens, this.options.costPart)) {
      this.refused = 'cost';
      return null;
    }
    this.inFlight += estimate;
    return estimate;
  }

  /**
   * The attempt reserved at `reserved` ended. A paid answer is counted, whatever becomes of the
   * row: every completion (a reply, and one without text: a refusal, a stop at max_tokens, a
   * filtered reply), by its usage or else its estimate, and any other answer that reports usage. A reply
   * teaches the estimator.
   */
  release(request: SizedRequest, reserved: number, outcome: { ok: boolean; finishReason?: string | null; usage?: unknown } | null): void {
    this.inFlight -= reserved;
    const usage = outcome === null ? null : countedUsage(outcome.usage);
    // A completion came (it has a finish reason, null or not): paid, even with no reply text.
    const paid = outcome !== null && (outcome.ok || outcome.finishReason !== undefined);
    this.options.cost?.release(
      request,
      usage ? { prompt: usage.prompt, cached: usage.cached, completion: usage.completion } : paid ? 'estimate' : null,
    );
    if (outcome === null || (!paid && usage === null)) return;
    addResponse(this.session, usage, reserved);
    addResponse(this.total, usage, reserved);
    if (outcome.ok) this.options.estimator.observe(request.promptChars, outcome.usage);
  }
}
