import { describe, expect, it } from 'vitest';
import { ANSWER_RULES, type AnswerRuleName, meaningOf } from '../../src/http/answer-table.js';
import { readErrorBody } from '../../src/http/error-body.js';
import { Redactor } from '../../src/record/redactor.js';

/** No run's secrets: what these tests read holds none. */
const NO_SECRETS = new Redactor();

/** The table's meaning of an error answer, from its status, body and headers, read as the client reads them. */
function meaning(status: number, body: unknown, headers: Record<string, string> = {}, sentParams: string[] = []) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const error = readErrorBody(status, 'application/json', text, NO_SECRETS);
  const shouldRetry = headers['x-should-retry'] === 'true' ? true : headers['x-should-retry'] === 'false' ? false : null;
  const asksToWait = headers['retry-after'] !== undefined || error.retryDelayMs !== null;
  return meaningOf({ status, ...error, asksToWait, shouldRetry }, { sentParams: new Set(sentParams) });
}

type Expected = { rule: AnswerRuleName; fatalForRun: boolean; retryable: boolean };
const runStop = (rule: AnswerRuleName): Expected => ({ rule, fatalForRun: true, retryable: false });
const rowFinal = (rule: AnswerRuleName): Expected => ({ rule, fatalForRun: false, retryable: false });
const retry = (rule: AnswerRuleName): Expected => ({ rule, fatalForRun: false, retryable: true });

// Each body as its source shows it (docs/failures.md#the-answer-table lists the same sources).
describe('the answer table: provider dialects', () => {
  it.each<[string, number, unknown, Record<string, string>, Expected]>([
    [
      // https://github.com/nminaya/grammar-nazi-bot/issues/954: an ordinary per-minute throttle.
      'Cerebras request_quota_exceeded is a throttle, not a quota',
      429,
      {
        message: 'Requests per minute limit exceeded - too many requests sent.',
        type: 'too_many_requests_error',
        param: 'quota',
        code: 'request_quota_exceeded',
      },
      {},
      retry('rate-limited'),
    ],
    [
      // https://openrouter.ai/docs/api-reference/errors: one row's moderation flag.
      'OpenRouter moderation 403 is that row',
      403,
      { error: { code: 403, message: 'Your input was flagged', metadata: { reasons: ['violence'], flagged_input: 'x...y' } } },
      {},
      rowFinal('moderation'),
    ],
    [
      // https://docs.together.ai/docs/error-codes: 403 for input + max_tokens past the context.
      'Together context-length 403 is that row',
      403,
      { error: { message: 'Input validation error: inputs tokens + max_new_tokens must be <= 4097', type: 'invalid_request_error' } },
      {},
      rowFinal('row-refused'),
    ],
    [
      'a 403 naming nothing is that row (the refusal streak judges repeats)',
      403,
      '<html><body>Forbidden</body></html>',
      {},
      rowFinal('row-refused'),
    ],
    [
      'Anthropic permission_error stops the run',
      403,
      { type: 'error', error: { type: 'permission_error', message: 'no' } },
      {},
      runStop('forbidden-configuration'),
    ],
    [
      // https://openrouter.ai/docs/api-reference/errors: a wait, not an empty account.
      "OpenRouter's in-flight budget 402 with Retry-After paces",
      402,
      { error: { code: 402, message: 'in-flight budget', metadata: { limit_source: 'openrouter_in_flight_budget' } } },
      { 'retry-after': '3' },
      retry('wait-402'),
    ],
    ['a 402 without a wait is the account', 402, { error: { code: 402, message: 'Insufficient credits' } }, {}, runStop('unauthorized')],
    [
      // https://github.com/ChatGPTNextWeb/NextChat/issues/3123
      'OpenAI insufficient_quota stops the run',
      429,
      { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
      {},
      runStop('account'),
    ],
    [
      // https://github.com/BerriAI/litellm/issues/36729: the budget hides behind code "429".
      'LiteLLM budget_exceeded behind code "429" stops the run',
      429,
      { error: { message: 'Budget has been exceeded!', type: 'budget_exceeded', code: '429' } },
      {},
      runStop('account'),
    ],
    [
      'LiteLLM budget_exceeded as a 400 stops the run',
      400,
      { error: { message: 'over budget', type: 'budget_exceeded', code: '400' } },
      {},
      runStop('account'),
    ],
    [
      // https://developers.cloudflare.com/workers-ai/platform/errors/: 3036, the daily allocation is used.
      "Cloudflare's errors[] 3036 stops the run",
      429,
      { success: false, errors: [{ code: 3036, message: 'You have used up your daily free allocation of 10,000 neurons.' }] },
      { 'retry-after': '3600' },
      runStop('account'),
    ],
    [
      "Cloudflare's 3040 (out of capacity) paces",
      429,
      { success: false, errors: [{ code: 3040, message: 'Out of capacity' }] },
      {},
      retry('rate-limited'),
    ],
    // https://portkey.ai/docs/api-reference/inference-api/error-codes
    ["Portkey's 412 budget exhausted stops the run", 412, { status: 'failure', message: 'Budget exhausted' }, {}, runStop('budget-412')],
    [
      // https://github.com/togethercomputer/MoA/issues/27: a free tier's per-minute 429 with type credit_limit.
      "Together's credit_limit 429 is a throttle",
      429,
      { error: { message: 'You have been rate limited.', type: 'credit_limit', param: null, code: null } },
      {},
      retry('rate-limited'),
    ],
    // A 429 asking for a second's wait whose code has "budget" in it is a rate, not the account.
    [
      'a rate_budget_exceeded 429 paces',
      429,
      { error: { code: 'rate_budget_exceeded', message: 'slow' } },
      { 'retry-after': '1' },
      retry('rate-limited'),
    ],
    // https://console.groq.com/docs/flex-processing
    [
      "Groq's 498 (flex capacity) is tried again",
      498,
      { error: { message: 'capacity', code: 'capacity_exceeded' } },
      {},
      retry('capacity'),
    ],
    [
      "Anthropic's 529 overloaded is a server fault",
      529,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      {},
      retry('server-error'),
    ],
    ['a 501 is that row, not an outage', 501, { error: { message: 'Not Implemented' } }, {}, rowFinal('server-refuses-request')],
    [
      'a 500 naming an unsupported parameter is that row, not an outage',
      500,
      { object: 'error', message: 'bad', type: 'BadRequestError', code: 500 },
      {},
      rowFinal('server-refuses-request'),
    ],
    [
      // https://github.com/ggml-org/llama.cpp/pull/15780
      "llama.cpp's 500 exceed_context_size_error is that row",
      500,
      { error: { code: 500, message: 'the request exceeds the available context size', type: 'exceed_context_size_error' } },
      {},
      rowFinal('server-refuses-request'),
    ],
    // https://github.com/vllm-project/vllm/issues/3485
    [
      "vLLM's NotFoundError 404 stops the run",
      404,
      { object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', param: null, code: 404 },
      {},
      runStop('not-found'),
    ],
    ['a bare 404 (a wrong base URL) stops the run', 404, '{"detail":"Not Found"}', {}, runStop('not-found')],
    ['OpenAI model_not_found stops the run', 404, { error: { code: 'model_not_found', message: 'no' } }, {}, runStop('not-found')],
  ])('%s', (_name, status, body, headers, expected) => {
    expect(meaning(status, body, headers)).toMatchObject(expected);
  });

  it('an error naming a parameter every request carries stops the run; one naming the messages is that row', () => {
    // https://github.com/ITSpecialist111/ai_automation_suggester/issues/38
    const unsupported = {
      error: {
        message: "Unsupported parameter: 'max_tokens'",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    };
    expect(meaning(400, unsupported, {}, ['max_tokens'])).toMatchObject(runStop('unknown-parameter'));
    expect(meaning(400, unsupported, {}, [])).toMatchObject(rowFinal('row-refused'));
    // https://github.com/OpenHands/OpenHands/issues/1902: context length names the messages.
    const context = { error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } };
    expect(meaning(400, context, {}, ['max_tokens'])).toMatchObject(rowFinal('row-refused'));
  });

  it("reads a validator's 422 detail (pydantic, Mistral) for the parameter", () => {
    const pydantic = { detail: [{ type: 'extra_forbidden', loc: ['body', 'seed'], msg: 'Extra inputs are not permitted' }] };
    expect(meaning(422, pydantic, {}, ['seed'])).toMatchObject(runStop('unknown-parameter'));
    // https://github.com/nomtek/mistralai_client_dart/issues/44
    const mistral = {
      object: 'error',
      message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'top_k'], msg: 'Extra inputs are not permitted', input: null }] },
      type: 'invalid_request_error',
      param: null,
      code: null,
    };
    expect(meaning(422, mistral, {}, ['top_k'])).toMatchObject(runStop('unknown-parameter'));
  });

  it("reads Google's RetryInfo in the array envelope as a wait", () => {
    // https://github.com/AtomicBot-ai/atomic-agent/issues/106
    const body = [
      {
        error: {
          code: 429,
          message: 'Resource has been exhausted',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '39.5s' }],
        },
      },
    ];
    const error = readErrorBody(429, 'application/json', JSON.stringify(body), NO_SECRETS);
    expect(error).toMatchObject({ code: '429', type: 'RESOURCE_EXHAUSTED', retryDelayMs: 39_500 });
    expect(meaning(429, body)).toMatchObject(retry('rate-limited'));
  });
});

describe('the answer table: statuses', () => {
  it.each<[number, string | null, Record<string, string>, Partial<Expected> & { category: string }]>([
    [400, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [401, 'unauthorized', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [402, null, {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [403, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [403, 'invalid_api_key', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [404, 'model_not_found', {}, { category: 'client_error', retryable: false, fatalForRun: true }],
    [408, null, {}, { category: 'client_error', retryable: true, fatalForRun: false }],
    [409, null, {}, { category: 'client_error', retryable: true, fatalForRun: false }],
    [413, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [422, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [429, null, {}, { category: 'rate_limited', retryable: true, fatalForRun: false }],
    [429, 'rate_limit_exceeded', {}, { category: 'rate_limited', retryable: true, fatalForRun: false }],
    [429, 'insufficient_quota', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'billing_hard_limit_reached', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'quota_exceeded', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'billing_not_active', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'insufficient_balance', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'CREDITS_EXHAUSTED', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'Throttling.RateQuota', {}, { category: 'rate_limited', retryable: true, fatalForRun: false }],
    [429, 'tokens_per_minute_quota', {}, { category: 'rate_limited', retryable: true, fatalForRun: false }],
    [402, 'insufficient_balance', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [500, null, {}, { category: 'server_error', retryable: true, fatalForRun: false }],
    [503, null, {}, { category: 'server_error', retryable: true, fatalForRun: false }],
    [500, 'quota_service_down', {}, { category: 'server_error', retryable: true, fatalForRun: false }],
    [500, null, { 'x-should-retry': 'false' }, { category: 'server_error', retryable: false, fatalForRun: false }],
    [429, null, { 'x-should-retry': 'false' }, { category: 'rate_limited', retryable: false, fatalForRun: false }],
    [400, null, { 'x-should-retry': 'true' }, { category: 'client_error', retryable: true, fatalForRun: false }],
    [400, null, { 'x-should-retry': 'maybe' }, { category: 'client_error', retryable: false, fatalForRun: false }],
    [401, null, { 'x-should-retry': 'true' }, { category: 'auth', retryable: false, fatalForRun: true }],
  ])('%i %s %j', (status, code, headers, expected) => {
    expect(meaning(status, code === null ? {} : { error: { code, message: 'm' } }, headers)).toMatchObject(expected);
  });

  it('every rule names its source', () => {
    for (const rule of ANSWER_RULES) expect(rule.source.length, rule.name).toBeGreaterThan(10);
  });
});
