import { countedUsage, emptyUsage, tokenCount, type UsageTotals } from '../record/usage-totals.js';

/**
 * What a journal line's row paid since its previous line, as the line carries it (its entry's
 * `u`). Most lines paid for one response, whose `usage` the line's record carries: `u` is then
 * its dollars alone (a number; the tokens are the record's `usage`, the model the record's).
 * Any other payment (several paid attempts, an answer without usage, the judge's requests) is
 * written out: one part a token book (the row's model, or the judge's requests), each
 * `[key, prompt, completion, total, reasoning, cached, responses with usage, responses without,
 * estimated, usd, priced prompt, priced cached, priced completion]`. No `u`: nothing paid. The
 * manifest's figures written while a session runs cover the journal up to a byte
 * (RunSession.usage_journal); a resume after a kill -9 adds the lines after it
 * (run/killed-session.ts).
 */
export interface PaidPart {
  /** The model the dollars are kept under, or null for the judge's requests (`--judge`). */
  model: string | null;
  usage: UsageTotals;
  usd: number;
  prompt: number;
  cached: number;
  completion: number;
}

/** The key a part's dollars are kept under in CostAccount for the judge: a key no model name can be. */
const JUDGE_KEY = '\u0000judge';

const USAGE_FIELDS = [
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'responses_with_usage',
  'responses_without_usage',
  'estimated_tokens',
] as const satisfies ReadonlyArray<keyof UsageTotals>;

/** A part as the line carries it. */
export function paidField(
  key: string,
  usage: Readonly<UsageTotals>,
  cost: { usd: number; prompt: number; cached: number; completion: number } | null,
): unknown[] {
  // In USAGE_FIELDS' order, as one literal: written for every paid row.
  return [
    key,
    usage.prompt_tokens,
    usage.completion_tokens,
    usage.total_tokens,
    usage.reasoning_tokens,
    usage.cached_tokens,
    usage.responses_with_usage,
    usage.responses_without_usage,
    usage.estimated_tokens,
    cost?.usd ?? 0,
    cost?.prompt ?? 0,
    cost?.cached ?? 0,
    cost?.completion ?? 0,
  ];
}

/**
 * The parts a line's `u` holds; a part that is not shaped as written (the line verified, but a
 * file is read as untrusted) is left out.
 */
export function paidParts(field: unknown): PaidPart[] {
  if (!Array.isArray(field)) return [];
  const parts: PaidPart[] = [];
  for (const part of field) {
    if (!Array.isArray(part) || part.length !== 1 + USAGE_FIELDS.length + 4 || typeof part[0] !== 'string') continue;
    const counts = part.slice(1, 1 + USAGE_FIELDS.length).map(tokenCount);
    const [usd, prompt, cached, completion] = part.slice(1 + USAGE_FIELDS.length) as unknown[];
    const priced = [prompt, cached, completion].map(tokenCount);
    if (counts.includes(null) || priced.includes(null) || typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) continue;
    const usage = Object.fromEntries(USAGE_FIELDS.map((name, index) => [name, counts[index]!])) as unknown as UsageTotals;
    const model = part[0] === JUDGE_KEY ? null : part[0];
    parts.push({ model, usage, usd, prompt: priced[0]!, cached: priced[1]!, completion: priced[2]! });
  }
  return parts;
}

/**
 * What a line whose `u` is a number paid: one response, the record's `usage`, at those dollars;
 * nothing when the record has no usage that counts.
 */
export function recordPaid(usd: number, record: { model?: unknown; usage?: unknown }): PaidPart[] {
  const usage = countedUsage(record.usage);
  if (usage === null || typeof record.model !== 'string' || !Number.isFinite(usd) || usd < 0) return [];
  const totals = emptyUsage();
  totals.prompt_tokens = usage.prompt;
  totals.completion_tokens = usage.completion;
  totals.total_tokens = usage.total;
  totals.reasoning_tokens = usage.reasoning;
  totals.cached_tokens = usage.cached;
  totals.responses_with_usage = 1;
  const cached = Math.min(usage.cached, usage.prompt);
  return [{ model: record.model, usage: totals, usd, prompt: usage.prompt, cached, completion: usage.completion }];
}
