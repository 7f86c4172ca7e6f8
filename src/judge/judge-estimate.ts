import { type CostRange, costRange } from '../cost/cost-range.js';
import { formatUsd, priceWords } from '../cost/cost-summary.js';
import type { PriceBook } from '../cost/price-book.js';
import type { ReferenceAnswer } from '../reply/reference-answer.js';
import { PLACEHOLDER } from '../request/template.js';

/** What `--dry-run` and `validate` say of the judge before anything is sent: its requests and dollars. */
export interface JudgeEstimate {
  model: string;
  /** One per copy of a row (model, sample) that has a reference: each reply of such a row is judged. */
  requests: number;
  /** The judge's prompts as estimated without the replies they will hold: the rubric, the row's prompt and the reference (characters / 4). */
  promptTokens: number;
  /** Priced at the judge's price: its prompts alone; no upper bound (the judge's own completions have no max_tokens). */
  cost: CostRange;
  /** Where the judge's price comes from; null when unknown. */
  prices: string | null;
}

/**
 * Counts the judge requests a run would send, row by row. A row whose reply would be judged is
 * one with a reference (`--expect`); each of its copies (models × samples) gets one judge request
 * if its reply comes. Its prompt is the rubric with the row's prompt and reference filled in,
 * and the reply, not known yet: left out, so the dollars are a floor.
 */
export class JudgeCounter {
  private requests = 0;
  private chars = 0;
  private readonly rubricChars: number;

  constructor(
    template: string,
    private readonly copies: number,
  ) {
    this.rubricChars = template.replace(PLACEHOLDER, '').length;
  }

  add(row: { request: { promptChars: number }; reference?: ReferenceAnswer }): void {
    const reference = row.reference;
    if (reference === undefined || reference === null) return;
    const expected = typeof reference.value === 'string' ? reference.value : JSON.stringify(reference.value);
    this.requests += this.copies;
    this.chars += (this.rubricChars + row.request.promptChars + expected.length) * this.copies;
  }

  estimate(model: string, book: PriceBook): JudgeEstimate {
    const promptTokens = Math.ceil(this.chars / 4) + this.requests * 4;
    const { low } = costRange(book, { promptTokens, requests: this.requests, completionPerRequest: null });
    return {
      model,
      requests: this.requests,
      promptTokens,
      cost: { low, high: null },
      prices: book.perMillion === null ? null : priceWords([book]),
    };
  }
}

/** `judge gpt-4o: 400 request(s), one per reply of a row with a reference; estimated cost $0.12 for its prompts, plus its completions`. */
export function judgeEstimateLine(estimate: JudgeEstimate): string {
  const cost =
    estimate.prices === null || estimate.cost.low === null
      ? `cost unknown: no price for ${estimate.model} (give --price ${estimate.model}=IN/OUT)`
      : `estimated cost ${formatUsd(estimate.cost.low)} for its prompts (${estimate.promptTokens.toLocaleString('en-US')} tokens: the rubric, the row's prompt and the reference), plus the replies it reads and its own completions (no upper bound); prices: ${estimate.prices}`;
  return `judge ${estimate.model}: ${estimate.requests} request(s), one per reply of a row with a reference; ${cost}`;
}
