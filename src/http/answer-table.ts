import type { FailureCategory } from '../record/record.js';
import type { ErrorFacts } from './error-body.js';

/**
 * What an HTTP error answer means, decided in one place: for the row (a final failure, or another
 * attempt may change it), for the pace (a 429 slows the whole run), and for the run (evidence
 * that holds for every row: stop, rows pending). Pure: status, the error body's facts (in every
 * envelope error-body.ts reads), and the headers' retry wishes in; a meaning out.
 *
 * The rules are a table, tried in order, first match wins; each names its public source. A rule
 * is written for the class of answer, not for one provider: a provider we never named, speaking
 * one of these dialects, gets the same meaning. docs/failures.md#the-answer-table is this table
 * in prose, one row per provider behaviour.
 *
 * What is never decided here: anything from `message` text (the guide and the spec: clients do
 * not parse `error.message`), and what needs more than one answer (the same refusal across
 * different rows, an outage across rows, a row whose request can never fit a learned limit):
 * those are the watches' in pace/, fed by this table's meanings.
 */
export interface AnswerMeaning {
  category: FailureCategory;
  /** Another attempt of the same row may get another answer. */
  retryable: boolean;
  /** Evidence that holds for every row (bad key, unknown model, quota): stop the run, rows pending. */
  fatalForRun: boolean;
  /** The rule that decided, by name (ANSWER_RULES): for the stop message, tests and docs. */
  rule: AnswerRuleName;
}

/** The facts of one error answer the table reads. */
export interface AnswerFacts extends Pick<ErrorFacts, 'code' | 'type' | 'param' | 'flagged'> {
  status: number;
  /** The server asked to wait (retry-after, retry-after-ms, Google's RetryInfo). */
  asksToWait: boolean;
  /** `x-should-retry: true|false` (OpenAI's SDK convention); null when absent or anything else. */
  shouldRetry: boolean | null;
}

export interface AnswerContext {
  /** The parameters every request of the run carries (job params, --param), besides model and messages. */
  sentParams: ReadonlySet<string>;
}

type Meaning = Omit<AnswerMeaning, 'rule'>;

interface AnswerRule {
  name: string;
  when(facts: AnswerFacts, context: AnswerContext): boolean;
  means: Meaning;
  /** Where the behaviour is documented (docs/failures.md lists them beside each rule). */
  source: string;
}

const RUN_AUTH: Meaning = { category: 'auth', retryable: false, fatalForRun: true };
const RUN_REQUEST: Meaning = { category: 'client_error', retryable: false, fatalForRun: true };
const SLOW_DOWN: Meaning = { category: 'rate_limited', retryable: true, fatalForRun: false };
const ROW_FINAL: Meaning = { category: 'client_error', retryable: false, fatalForRun: false };
const SERVER_FAULT: Meaning = { category: 'server_error', retryable: true, fatalForRun: false };

/**
 * A code or type saying the account cannot pay (balance, billing, quota, budget): no retry within
 * a run refills it. Not "credit" or "quota" alone: Together's free-tier per-minute 429 has type
 * `credit_limit` (https://github.com/togethercomputer/MoA/issues/27), and see THROTTLE_WORDS.
 */
const ACCOUNT_WORDS =
  /insufficient[_ .-]?(quota|funds|balance|credits?)|credits?[_ .-]?(exhausted|depleted)|billing|payment|budget|arrearage|quota[_ .-]?(exceeded|exhausted)|^quota$/i;
/**
 * ...unless the code or type says it is a per-interval limit: Cerebras's per-minute 429 is
 * `request_quota_exceeded` with type `too_many_requests_error`, DashScope's `Throttling.RateQuota`,
 * OpenAI's `tokens_per_minute_quota`.
 */
const THROTTLE_WORDS =
  /throttl|rate[_.\- ]?(limit|quota|budget)|per[_\- ]?(second|minute|hour)|too[_ ]?many[_ ]?requests|(request|token)s?[_ ]?quota/i;
/**
 * Cloudflare Workers AI's numeric account codes in its `errors[]` envelope: 3036, the account's
 * daily allocation of neurons is used (https://developers.cloudflare.com/workers-ai/platform/errors/).
 */
const CLOUDFLARE_ACCOUNT_CODES: ReadonlySet<string> = new Set(['3036']);
/** A 403 or 404 whose code or type names the key, a permission, a region or the model: the same for every row. */
const NAMES_CONFIGURATION =
  /api[_ -]?key|invalid[_ -]?key|key[_ -]?(invalid|revoked|disabled|expired)|auth|permission|forbidden[_ -]?access|access[_ -]?denied|region|country|model|deployment/i;
/** A 404 whose code or type says nothing is there (vLLM's `NotFoundError`, Anthropic's `not_found_error`). */
const NOT_FOUND_WORDS = /not[_ -]?found|no[_ -]?such|does[_ -]?not[_ -]?exist|unknown[_ -]?(model|url|path)/i;
/**
 * A 5xx whose code or type says the request was wrong, not the server: vLLM answers some bad
 * requests with 500, llama.cpp a prompt past its context with 500 `exceed_context_size_error`
 * (https://github.com/ggml-org/llama.cpp/pull/15780).
 */
const BAD_REQUEST_WORDS =
  /invalid[_ -]?request|bad[_ -]?request|unsupported|not[_ -]?implemented|unknown[_ -]?param|extra[_ -]?forbidden|validation|context[_ -]?(length|size|window)/i;

function says(facts: AnswerFacts, words: RegExp): boolean {
  return (facts.code !== null && words.test(facts.code)) || (facts.type !== null && words.test(facts.type));
}

/** A code that is only the HTTP status restated (`"code": "429"`, vLLM's `400`): it says nothing more. */
function codeSaysNothing(facts: AnswerFacts): boolean {
  return facts.code === null || /^\d{3}$/.test(facts.code);
}

/** Whether an error's code or type says the account cannot pay (for an error that names no status). */
export function namesAccount(code: string | null, type: string | null): boolean {
  return isAccount({ status: 400, code, type, param: null, flagged: false, asksToWait: false, shouldRetry: null });
}

function isAccount(facts: AnswerFacts): boolean {
  if (facts.code !== null && CLOUDFLARE_ACCOUNT_CODES.has(facts.code)) return true;
  return says(facts, ACCOUNT_WORDS) && !says(facts, THROTTLE_WORDS);
}

const is4xx = (facts: AnswerFacts) => facts.status >= 400 && facts.status < 500;

/** The table, first match wins. Exported for the docs test that keeps docs/failures.md in step. */
export const ANSWER_RULES = [
  {
    name: 'wait-402',
    when: (f) => f.status === 402 && f.asksToWait,
    means: SLOW_DOWN,
    source: "OpenRouter's 402 with Retry-After (https://openrouter.ai/docs/api-reference/errors)",
  },
  {
    name: 'account',
    when: (f) => is4xx(f) && isAccount(f),
    means: RUN_AUTH,
    source:
      "OpenAI's 429 insufficient_quota (https://platform.openai.com/docs/guides/error-codes); LiteLLM's budget_exceeded " +
      '(https://docs.litellm.ai/docs/proxy/users); Cloudflare 3036 (https://developers.cloudflare.com/workers-ai/platform/errors/)',
  },
  {
    name: 'budget-412',
    when: (f) => f.status === 412,
    means: RUN_AUTH,
    source:
      "Portkey's 412 budget exhausted (https://portkey.ai/docs/api-reference/inference-api/error-codes): a POST without " +
      "conditions fails a precondition only by a gateway's policy, the same for every row",
  },
  {
    name: 'unauthorized',
    when: (f) => f.status === 401 || f.status === 402,
    means: RUN_AUTH,
    source: 'RFC 9110 401/402; the spec: 401 is an authentication failure',
  },
  {
    name: 'forbidden-configuration',
    when: (f) => f.status === 403 && says(f, NAMES_CONFIGURATION),
    means: RUN_AUTH,
    source: "Anthropic's permission_error (https://docs.anthropic.com/en/api/errors); Azure's 403 codes",
  },
  {
    name: 'moderation',
    when: (f) => is4xx(f) && f.flagged,
    means: { category: 'refused', retryable: false, fatalForRun: false },
    source: "OpenRouter's 403 with error.metadata.reasons (https://openrouter.ai/docs/api-reference/errors)",
  },
  {
    name: 'not-found',
    when: (f) => f.status === 404 && (codeSaysNothing(f) || says(f, NAMES_CONFIGURATION) || says(f, NOT_FOUND_WORDS)),
    means: RUN_REQUEST,
    source: "a wrong base URL or model; OpenAI's model_not_found, vLLM's NotFoundError",
  },
  {
    name: 'unknown-parameter',
    when: (f, context) => (is4xx(f) || f.status >= 500) && f.param !== null && context.sentParams.has(f.param),
    means: RUN_REQUEST,
    source: "OpenAI's unsupported_parameter with error.param; pydantic's 422 extra_forbidden with detail[].loc (vLLM)",
  },
  {
    name: 'rate-limited',
    when: (f) => f.status === 429,
    means: SLOW_DOWN,
    source: 'RFC 6585 429; every provider',
  },
  {
    name: 'capacity',
    when: (f) => f.status === 498,
    means: SERVER_FAULT,
    source: "Groq's 498 flex tier capacity exceeded, try again later (https://console.groq.com/docs/errors)",
  },
  {
    name: 'try-again',
    when: (f) => f.status === 408 || f.status === 409,
    means: { category: 'client_error', retryable: true, fatalForRun: false },
    source: "RFC 9110 408; openai-node's retry rule (408, 409, 429, 5xx)",
  },
  {
    name: 'server-refuses-request',
    when: (f) => f.status === 501 || (f.status >= 500 && says(f, BAD_REQUEST_WORDS)),
    means: ROW_FINAL,
    source: 'RFC 9110 501; vLLM answers some invalid requests with 500 and type BadRequestError (vllm/entrypoints/openai)',
  },
  {
    name: 'server-error',
    when: (f) => f.status >= 500,
    means: SERVER_FAULT,
    source: "RFC 9110 5xx; Anthropic's 529 overloaded_error",
  },
  {
    name: 'row-refused',
    when: () => true,
    means: ROW_FINAL,
    source: 'any other 4xx: an answer about this request (context length, a moderation 403, a bad parameter value)',
  },
] as const satisfies readonly AnswerRule[];

export type AnswerRuleName = (typeof ANSWER_RULES)[number]['name'];

/**
 * The meaning of an error answer. A server's `x-should-retry` overrides the row's retry rule,
 * never a run-wide refusal.
 */
export function meaningOf(facts: AnswerFacts, context: AnswerContext): AnswerMeaning {
  const rule: AnswerRule & { name: AnswerRuleName } = ANSWER_RULES.find((candidate) => candidate.when(facts, context))!;
  const meaning: AnswerMeaning = { ...rule.means, rule: rule.name };
  if (!meaning.fatalForRun && facts.shouldRetry !== null) meaning.retryable = facts.shouldRetry;
  return meaning;
}
