import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BatchNotes } from '../../src/request/batch-notes.js';
import { buildChatRequest } from '../../src/request/chat-request.js';
import { bodyFields, withRowParams } from '../../src/request/row-params.js';

const batchLine = (body: Record<string, unknown>) => ({ custom_id: 'r1', method: 'POST', url: '/v1/chat/completions', body });
const messages = [{ role: 'user', content: 'hi' }];

describe('bodyFields of an OpenAI Batch line', () => {
  it('without the opt-in, sends nothing more and names every other body field', () => {
    expect(bodyFields(batchLine({ model: 'gpt-4o', messages, temperature: 0.2, max_tokens: 9, seed: 1 }), false)).toEqual({
      ok: true,
      params: null,
      unsent: ['temperature', 'max_tokens', 'seed'],
      model: 'gpt-4o',
    });
  });

  it('with the opt-in, takes every parameter as given: known ones (seed included) and vendor fields', () => {
    const body = { model: 'gpt-4o', messages, temperature: 0.2, max_tokens: 9, stop: ['\n'], seed: 42, top_k: 40, safe_prompt: true };
    expect(bodyFields(batchLine(body), true)).toEqual({
      ok: true,
      params: { temperature: 0.2, max_tokens: 9, stop: ['\n'], seed: 42, top_k: 40, safe_prompt: true },
      unsent: [],
      model: 'gpt-4o',
    });
  });

  it('with the opt-in, sends names that are no parameter of ours as own fields, never as a prototype', () => {
    const found = bodyFields(batchLine({ messages, constructor: 1, toString: 2 }), true);
    expect(found).toMatchObject({ ok: true, params: { constructor: 1, toString: 2 } });
    if (!found.ok) return;
    const request = buildChatRequest(messages, { baseUrl: 'http://x/v1', model: 'm', params: found.params! });
    expect(JSON.parse(request.body)).toEqual({ model: 'm', messages, constructor: 1, toString: 2 });
  });

  it('with the opt-in and --allow-param, sends a near-miss of a known name as written', () => {
    expect(bodyFields(batchLine({ messages, temprature: 1 }), true)).toMatchObject({ ok: false });
    expect(bodyFields(batchLine({ messages, temprature: 1 }), true, ['temprature'])).toMatchObject({ ok: true, params: { temprature: 1 } });
  });

  it.each([
    [{ stream: true }, 'body.stream: chatbatch does not support streaming; remove it'],
    [{ tools: [{ type: 'function' }] }, 'body.tools: chatbatch does not support tool calling'],
    [{ tool_choice: 'auto' }, 'body.tool_choice: chatbatch does not support tool calling'],
    [{ seed: 1.5 }, 'body.seed: expected an integer, got 1.5'],
    [{ temprature: 1 }, 'body.temprature: unknown parameter; did you mean temperature?'],
    [{ temperature: 'hot' }, 'body.temperature: expected a number from 0 to 2, got "hot"'],
    [{ max_tokens: { deep: [[[1]]] } }, 'body.max_tokens: expected a positive integer, got an object'],
    [JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>, 'body.__proto__: not a name a request can carry'],
  ])('with the opt-in, refuses %j', (extra, problem) => {
    const found = bodyFields(batchLine({ messages, ...extra }), true);
    expect(found.ok).toBe(false);
    if (!found.ok) expect(found.problem).toContain(problem);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([[{ prompt: 'plain row', temperature: 1 }], [{ body: 'not an object' }], [{ body: [1, 2] }], [batchLine({ messages })]])(
    'finds nothing in %j',
    (fields) => {
      expect(bodyFields(fields, true)).toEqual({ ok: true, params: null, unsent: [], model: null });
    },
  );

  it("puts a row's parameters over the job's, and so into the body and the fingerprint", () => {
    const job = { temperature: 1, top_p: 0.5 };
    expect(withRowParams(job, null)).toBe(job);
    expect(withRowParams(job, { temperature: 0 })).toEqual({ temperature: 0, top_p: 0.5 });
    const settings = { baseUrl: 'http://x/v1', model: 'm' };
    const plain = buildChatRequest(messages, { ...settings, params: job });
    const withRow = buildChatRequest(messages, { ...settings, params: withRowParams(job, { temperature: 0 }) });
    expect(JSON.parse(withRow.body)).toEqual({ model: 'm', messages, temperature: 0, top_p: 0.5 });
    expect(withRow.fingerprint).not.toBe(plain.fingerprint);
  });
});

describe('buildChatRequest fingerprint and headers', () => {
  it('is unchanged without headers (earlier runs still resume) and changes with them', () => {
    const settings = { baseUrl: 'http://x/v1', model: 'm', params: {} };
    const none = buildChatRequest(messages, settings);
    expect(buildChatRequest(messages, { ...settings, headers: '' }).fingerprint).toBe(none.fingerprint);
    const routed = buildChatRequest(messages, { ...settings, headers: 'x-portkey-provider: openai' });
    expect(routed.fingerprint).not.toBe(none.fingerprint);
    expect(routed.body).toBe(none.body);
    // What fingerprints were before headers existed: sha256 of the base URL, a newline and the body.
    expect(none.fingerprint).toBe(hash('sha256', `http://x/v1\n${none.body}`).slice(0, 32));
  });
});

describe('BatchNotes', () => {
  it('says once at the first row which fields are not sent, and counts fields and other models', () => {
    const said: string[] = [];
    const notes = new BatchNotes(['run-model'], (line) => said.push(line));
    notes.add({ file: 'b.jsonl', line: 1 }, { ok: true, params: null, unsent: ['temperature'], model: 'run-model' });
    notes.add({ file: 'b.jsonl', line: 2 }, { ok: true, params: null, unsent: ['temperature', 'max_tokens'], model: 'gpt-4o' });
    notes.add({ file: 'b.jsonl', line: 3 }, { ok: true, params: null, unsent: [], model: 'gpt-4o' });
    for (const [index, model] of ['a', 'b', 'c', 'd'].entries())
      notes.add({ file: 'b.jsonl', line: 4 + index }, { ok: true, params: null, unsent: [], model });
    expect(said).toEqual([
      'b.jsonl:1: OpenAI Batch body fields not sent: temperature; only model and messages are sent unless you opt in: --row-params (job: "row_params": true) sends them as given (stream, tools and function calling stay refused) (--dry-run lists every such field)',
    ]);
    expect(notes.unsentNotice()).toBe(
      '2 row(s) carry OpenAI Batch body fields that are not sent: temperature (2), max_tokens (1); only model and messages are sent unless you opt in: --row-params (job: "row_params": true) sends them as given (stream, tools and function calling stay refused)',
    );
    expect(notes.otherModelNotice()).toBe(
      '6 row(s) name another model in body.model: "gpt-4o" (2), "a" (1), "b" (1), 2 more (first at b.jsonl:2); every row is sent to the run\'s model "run-model" (--model or the job\'s "model")',
    );
  });

  it('says nothing when every row asks only for what is done', () => {
    const notes = new BatchNotes(['m']);
    notes.add({ file: 'f', line: 1 }, { ok: true, params: { temperature: 0 }, unsent: [], model: 'm' });
    notes.add({ file: 'f', line: 2 }, { ok: true, params: null, unsent: [], model: null });
    expect(notes.unsentNotice()).toBeNull();
    expect(notes.otherModelNotice()).toBeNull();
  });
});
