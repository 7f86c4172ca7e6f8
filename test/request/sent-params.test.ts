import { describe, expect, it } from 'vitest';
import { buildChatRequest } from '../../src/request/chat-request.js';
import { paramsSent, sentParamNamed } from '../../src/request/sent-params.js';

const messages = [{ role: 'user', content: 'hi' }];

describe('paramsSent', () => {
  it("names a request body's parameters, in the body's order, without model and messages", () => {
    const { body } = buildChatRequest(messages, { baseUrl: 'http://x/v1', model: 'm', params: { top_k: 40, seed: 42, temperature: 0 } });
    expect(paramsSent(body)).toEqual(['seed', 'temperature', 'top_k']);
    expect(paramsSent(buildChatRequest(messages, { baseUrl: 'http://x/v1', model: 'm', params: {} }).body)).toEqual([]);
  });

  it.each(['', 'not json', '[1]', 'null', '"text"'])('finds none in %j', (body) => {
    expect(paramsSent(body)).toEqual([]);
  });
});

describe('sentParamNamed', () => {
  const sent = ['logprobs', 'reasoning_effort', 'top_logprobs', 'top_k'];

  it.each([
    // OpenAI: param null, the name only in the message (https://github.com/coroot/coroot/issues/698).
    [[null, 'Unrecognized request argument supplied: reasoning_effort'], 'reasoning_effort'],
    // A server that fills error.param.
    [['top_k', 'Invalid value'], 'top_k'],
    // The longest name first: "top_logprobs" also holds "logprobs".
    [[undefined, "'top_logprobs' must be used with 'logprobs'"], 'top_logprobs'],
    // A name inside a longer word is no mention of it.
    [[null, 'top_kx is not a field'], null],
    [[null, 'Something else went wrong'], null],
    [[], null],
  ])('in %j finds %s', (texts, found) => {
    expect(sentParamNamed(sent, texts)).toBe(found);
  });

  it('names only what was sent', () => {
    expect(sentParamNamed([], ['Unrecognized request argument supplied: reasoning_effort'])).toBeNull();
  });
});
