/**
 * Token usage summed over responses, as the manifest records it (per session and for the whole
 * output directory). The endpoint's spec lists `usage` as unconfirmed and leaves billing to the
 * provider's console: these are the endpoint's own figures, not a bill.
 */
export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Successful responses whose `usage` gave a total (or prompt and completion to add up). */
  responses_with_usage: number;
  responses_without_usage: number;
  /** What the responses without usage were estimated at; the token budget counts them by it. */
  estimated_tokens: number;
  /** Of completion_tokens, those spent reasoning (`completion_tokens_details.reasoning_tokens`), where reported. */
  reasoning_tokens: number;
  /**
   * Of prompt_tokens, those served from the provider's prompt cache, where reported: OpenAI's
   * `prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`
   * (https://api-docs.deepseek.com/guides/kv_cache).
   */
  cached_tokens: number;
}

/** A response's usage, when it reports one we can count: whole numbers of tokens, a total. */
export interface CountedUsage {
  prompt: number;
  completion: number;
  total: number;
  reasoning: number;
  cached: number;
}

export function emptyUsage(): UsageTotals {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    responses_with_usage: 0,
    responses_without_usage: 0,
    estimated_tokens: 0,
    reasoning_tokens: 0,
    cached_tokens: 0,
  };
}

/**
 * The counts in a response's `usage`, or null when it has no usable total. Only non-negative
 * safe integers count: a server's string, fraction or 1e308 would make the sums meaningless. A
 * missing total is prompt + completion; a missing prompt or completion beside a total is 0.
 */
export function countedUsage(usage: unknown): CountedUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const fields = usage as Record<string, unknown>;
  const prompt = tokenCount(fields.prompt_tokens);
  const completion = tokenCount(fields.completion_tokens);
  const total = tokenCount(fields.total_tokens) ?? (prompt !== null && completion !== null ? prompt + completion : null);
  if (total === null) return null;
  const reasoning = tokenCount(detail(fields.completion_tokens_details, 'reasoning_tokens')) ?? 0;
  const cached = tokenCount(detail(fields.prompt_tokens_details, 'cached_tokens')) ?? tokenCount(fields.prompt_cache_hit_tokens) ?? 0;
  return { prompt: prompt ?? 0, completion: completion ?? 0, total, reasoning, cached };
}

function detail(details: unknown, name: string): unknown {
  return typeof details === 'object' && details !== null ? (details as Record<string, unknown>)[name] : undefined;
}

export function tokenCount(value: unknown): number | null {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null;
}

/** Adds one paid response: its usage, or (none reported) the estimate it was sent with. */
export function addResponse(totals: UsageTotals, usage: CountedUsage | null, estimate: number): void {
  if (usage) {
    totals.prompt_tokens += usage.prompt;
    totals.completion_tokens += usage.completion;
    totals.total_tokens += usage.total;
    totals.reasoning_tokens += usage.reasoning;
    totals.cached_tokens += usage.cached;
    totals.responses_with_usage++;
  } else {
    totals.responses_without_usage++;
    totals.estimated_tokens += estimate;
  }
}

/** Adds `part` to `totals` (`sign` -1: takes it away). */
export function addUsage(totals: UsageTotals, part: Readonly<UsageTotals>, sign: 1 | -1): void {
  // Field by field: a row's line counts it (TokenAccount.count), where a loop over the keys cost ~0.5 µs.
  totals.prompt_tokens += sign * part.prompt_tokens;
  totals.completion_tokens += sign * part.completion_tokens;
  totals.total_tokens += sign * part.total_tokens;
  totals.responses_with_usage += sign * part.responses_with_usage;
  totals.responses_without_usage += sign * part.responses_without_usage;
  totals.estimated_tokens += sign * part.estimated_tokens;
  totals.reasoning_tokens += sign * part.reasoning_tokens;
  totals.cached_tokens += sign * part.cached_tokens;
}

/** The sum of several totals; a missing one (a manifest written before usage was kept) adds nothing. */
export function sumUsage(parts: ReadonlyArray<Partial<UsageTotals> | undefined>): UsageTotals {
  const sum = emptyUsage();
  for (const part of parts) {
    if (!part) continue;
    for (const key of Object.keys(sum) as Array<keyof UsageTotals>) sum[key] += tokenCount(part[key]) ?? 0;
  }
  return sum;
}

/** What the token budget counts as spent: the reported totals, and the estimates for responses without usage. */
export function budgetSpent(totals: Partial<UsageTotals> | undefined): number {
  return (tokenCount(totals?.total_tokens) ?? 0) + (tokenCount(totals?.estimated_tokens) ?? 0);
}

/** Where usage totals are shown: one short note that they are the endpoint's word, not a bill. */
export const USAGE_CAVEAT = "as the endpoint reported them: its spec leaves usage unconfirmed, and billing to the provider's console";
