import { type CostAccount, type PricedPiece, partKey } from '../cost/cost-account.js';
import { addResponse, addUsage, budgetSpent, countedUsage, emptyUsage, sumUsage, type UsageTotals } from '../record/usage-totals.js';
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
  /**
   * Paid answers count in `session` and `total` (the manifest's figures) only once their row's
   * journal line is written (`takeUnpaid`, `count`), or the session ends (`countUnjournaled`);
   * the budgets count them at once. A manifest written while the run goes on then says exactly
   * which journal lines its figures cover, and a resume after a kill -9 adds the lines after
   * them (run/killed-session.ts). Absent: counted as they arrive.
   */
  countWhenJournaled?: boolean;
}

/** What a row's paid answers came to since its last journal line: added to the manifest's figures with its next line. */
export interface RowPaid {
  /** The key its dollars are kept under: the request's model, or a part's (CostAccount). */
  key: string;
  usage: UsageTotals;
  /** Their dollars and tokens, by the key they are kept under (the model's, or the judge part's). */
  cost: PricedPiece | null;
  /** countUnjournaled's count when it was made: one made before was counted by it. */
  epoch: number;
  /**
   * The `usage` its one paid response reported, as received, when that is all it paid: a line
   * whose record carries this very `usage` needs to say only the dollars (journal-usage.ts).
   */
  only: unknown;
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
  /** Paid, not yet counted in `session` and `total` (countWhenJournaled): the budget counts them. */
  private readonly live: UsageTotals = emptyUsage();
  /** Each row's uncounted payments, by its request (a WeakMap: see CostAccount.held). */
  private readonly unpaid = new WeakMap<object, RowPaid>();
  private epoch = 0;

  constructor(private readonly options: TokenAccountOptions) {
    this.total = sumUsage([options.before]);
  }

  get limit(): number | null {
    return this.options.limit;
  }

  /** Tokens spent in the directory as the budget counts them (estimates for responses without usage). */
  get spent(): number {
    return budgetSpent(this.total) + budgetSpent(this.live);
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
    const later = this.options.countWhenJournaled === true;
    const piece =
      this.options.cost?.release(
        request,
        usage ? { prompt: usage.prompt, cached: usage.cached, completion: usage.completion } : paid ? 'estimate' : null,
        !later,
      ) ?? null;
    if (outcome === null || (!paid && usage === null)) return;
    if (later) {
      addResponse(this.live, usage, reserved);
      this.unpaidOf(request, piece, usage, reserved, outcome.usage);
    } else {
      addResponse(this.session, usage, reserved);
      addResponse(this.total, usage, reserved);
    }
    if (outcome.ok) this.options.estimator.observe(request.promptChars, outcome.usage);
  }

  /** Adds a paid answer to its row's uncounted payments. */
  private unpaidOf(
    request: object,
    piece: PricedPiece | null,
    usage: ReturnType<typeof countedUsage>,
    reserved: number,
    reported: unknown,
  ): void {
    let row = this.unpaid.get(request);
    if (row === undefined || row.epoch !== this.epoch) {
      const key = piece?.key ?? (this.options.costPart ? partKey(this.options.costPart) : ((request as { model?: string }).model ?? ''));
      // The row's first payment: its piece is the row's until a second one comes.
      row = { key, usage: emptyUsage(), cost: piece, epoch: this.epoch, only: usage ? reported : null };
      addResponse(row.usage, usage, reserved);
      this.unpaid.set(request, row);
      return;
    }
    row.only = null;
    addResponse(row.usage, usage, reserved);
    if (piece) {
      const cost = row.cost ? { ...row.cost } : { key: piece.key, usd: 0, prompt: 0, cached: 0, completion: 0 };
      cost.usd += piece.usd;
      cost.prompt += piece.prompt;
      cost.cached += piece.cached;
      cost.completion += piece.completion;
      row.cost = cost;
    }
  }

  /**
   * What the row of `request` paid since its last journal line and is not counted yet; null for
   * nothing. Taken out: the caller counts it (`count`) as it writes the row's next line.
   */
  takeUnpaid(request: object): RowPaid | null {
    const row = this.unpaid.get(request);
    if (row === undefined) return null;
    this.unpaid.delete(request);
    return row.epoch === this.epoch ? row : null;
  }

  /**
   * Counts a row's payments in `session` and `total`: its journal line is written now, in the
   * same turn. False when they were counted already (countUnjournaled): the line must not carry them.
   */
  count(row: RowPaid): boolean {
    if (row.epoch !== this.epoch) return false;
    addUsage(this.live, row.usage, -1);
    addUsage(this.session, row.usage, 1);
    addUsage(this.total, row.usage, 1);
    if (row.cost) this.options.cost?.count(row.cost);
    // Counted once: a second call (a line that failed to be written and is tried again) adds nothing.
    row.epoch = -1;
    return true;
  }

  /**
   * Counts every payment not counted yet: the session ends (or writes its last manifest before
   * its journal is replaced), and what it paid is in its figures, journaled or not (a row left
   * pending after a paid answer has no line).
   */
  countUnjournaled(): void {
    addUsage(this.session, this.live, 1);
    addUsage(this.total, this.live, 1);
    addUsage(this.live, this.live, -1);
    if (this.options.countWhenJournaled) this.options.cost?.countLive();
    this.epoch++;
  }
}
