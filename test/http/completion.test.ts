import { describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome } from '../../src/http/attempt.js';
import { interpret } from '../../src/http/interpret.js';

const URL = 'http://127.0.0.1:1/v1/chat/completions';
const JSON_HEADERS = { 'content-type': 'application/json' };

function judge(body: unknown, status = 200): AttemptOutcome {
  return interpret(status, JSON_HEADERS, JSON.stringify(body), process.hrtime.bigint(), URL);
}

function completion(message: Record<string, unknown>, finishReason: string | null, usage?: unknown) {
  return {
    id: 'c-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    usage,
  };
}

const USAGE = {
  prompt_tokens: 12,
  completion_tokens: 2048,
  total_tokens: 2060,
  completion_tokens_details: { reasoning_tokens: 2048 },
};

describe('a 200 judged whole', () => {
  it('a reasoning model that spent max_tokens thinking: final, paid, reasoning and usage kept', () => {
    // https://github.com/deepseek-ai/DeepSeek-V3/issues/1610; https://platform.openai.com/docs/guides/reasoning
    const outcome = judge(completion({ content: null, reasoning_content: 'Let me think...' }, 'length', USAGE));
    expect(outcome).toMatchObject({
      ok: false,
      code: 'length',
      category: 'incomplete',
      retryable: false,
      fatalForRun: false,
      finishReason: 'length',
      reasoning: 'Let me think...',
      usage: USAGE,
      responseId: 'c-1',
    });
  });

  it("an output filter's 200 (Azure): final, paid, its reason kept", () => {
    // https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter
    const outcome = judge(completion({ content: null }, 'content_filter', { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 }));
    expect(outcome).toMatchObject({
      ok: false,
      code: 'content_filter',
      category: 'refused',
      retryable: false,
      finishReason: 'content_filter',
    });
    expect(outcome).toHaveProperty('usage.total_tokens', 5);
  });

  it('Ollama\'s thinking model with content "" is an empty reply, not an empty success; reasoning kept', () => {
    // https://github.com/ollama/ollama/issues/15288
    const outcome = judge(completion({ content: '', reasoning: 'The user is asking' }, 'stop'));
    expect(outcome).toMatchObject({
      ok: false,
      code: 'empty_reply',
      category: 'incomplete',
      retryable: false,
      reasoning: 'The user is asking',
    });
  });

  it('a reply keeps its reasoning (vLLM reasoning_content, OpenRouter reasoning)', () => {
    expect(judge(completion({ content: '42', reasoning_content: 'because' }, 'stop'))).toMatchObject({
      ok: true,
      reply: '42',
      reasoning: 'because',
    });
    expect(judge(completion({ content: '42', reasoning: 'thought' }, 'stop'))).toMatchObject({
      ok: true,
      reply: '42',
      reasoning: 'thought',
    });
  });

  it('a truncated reply with text is still a success with finish_reason length', () => {
    expect(judge(completion({ content: 'partial' }, 'length'))).toMatchObject({ ok: true, reply: 'partial', finishReason: 'length' });
  });

  it("a 200 that is vLLM's error object is that error: a model that does not exist stops the run", () => {
    // https://github.com/vllm-project/vllm/issues/3485
    const outcome = judge({ object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', param: null, code: 404 });
    expect(outcome).toMatchObject({ ok: false, status: 200, code: '404', fatalForRun: true, rule: 'not-found' });
  });

  it("a 200 carrying a bad request (RunPod's worker, code 400) is that row's final failure, not retried five times", () => {
    const outcome = judge({ object: 'error', message: 'bad', type: 'BadRequestError', param: null, code: 400 });
    expect(outcome).toMatchObject({ ok: false, status: 200, retryable: false, fatalForRun: false, rule: 'row-refused' });
  });

  it('a 200 carrying an error that names no status is a server fault: retried', () => {
    const outcome = judge({ id: 'e-1', error: { code: 'upstream_error', message: 'model crashed' } });
    expect(outcome).toMatchObject({
      ok: false,
      status: 200,
      code: 'upstream_error',
      message: '200 response carries an error: model crashed',
      retryable: true,
      category: 'server_error',
      traceId: 'e-1',
    });
  });

  it("Mistral's content parts: the text parts are the reply, the thinking parts the reasoning", () => {
    // https://github.com/spring-projects/spring-ai/issues/5019
    const content = [
      { type: 'thinking', thinking: [{ type: 'text', text: 'Let me see.' }] },
      { type: 'text', text: 'The ' },
      { type: 'text', text: 'answer' },
    ];
    expect(judge(completion({ content }, 'stop', { prompt_tokens: 5, completion_tokens: 1500, total_tokens: 1505 }))).toMatchObject({
      ok: true,
      reply: 'The answer',
      reasoning: 'Let me see.',
      usage: { total_tokens: 1505 },
    });
    expect(judge(completion({ content: [{ type: 'thinking', thinking: 'only thought' }] }, 'length'))).toMatchObject({
      ok: false,
      code: 'length',
      reasoning: 'only thought',
    });
  });

  it('a 2xx that is no completion but carried usage keeps it, so the paid tokens are counted', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(judge({ id: 'x', choices: [], usage })).toMatchObject({ ok: false, code: 'bad_response', usage });
    expect(judge({ choices: [{ message: { content: 42 } }], usage })).toMatchObject({ ok: false, code: 'bad_response', usage });
  });

  it('a 200 carrying a quota error that names no status stops the run (read as the account, not a server fault)', () => {
    expect(judge({ error: { code: 'insufficient_quota', message: 'pay' } })).toMatchObject({ fatalForRun: true, rule: 'account' });
  });
});

describe("a success's facts", () => {
  it('come in the order they always did, copied field by field (no Object.assign a response)', () => {
    const body = {
      ...completion({ content: 'hi', reasoning_content: 'hmm' }, 'stop', { total_tokens: 3 }),
      model: 'm-2026',
      system_fingerprint: 'fp_1',
      created: 1_795_961_422,
      choices: [
        { index: 0, message: { role: 'assistant', content: 'hi', reasoning_content: 'hmm' }, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: 'ho' }, finish_reason: 'stop' },
      ],
    };
    const assign = vi.spyOn(Object, 'assign');
    let outcome: AttemptOutcome;
    try {
      outcome = judge(body);
      expect(assign).not.toHaveBeenCalled();
    } finally {
      assign.mockRestore();
    }
    expect(Object.keys(outcome)).toEqual([
      'ok',
      'status',
      'reply',
      'finishReason',
      'usage',
      'reasoning',
      'responseId',
      'responseModel',
      'systemFingerprint',
      'created',
      'traceId',
      'headers',
      'durationMs',
      'replies',
    ]);
    expect(outcome).toMatchObject({ responseModel: 'm-2026', systemFingerprint: 'fp_1', created: 1_795_961_422, replies: ['hi', 'ho'] });
  });
});
