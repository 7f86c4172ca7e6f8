import { describe, expect, it } from 'vitest';
import { buildChatRequest } from '../../src/request/chat-request.js';
import { rowToMessages } from '../../src/request/messages.js';
import { fillTemplate } from '../../src/request/template.js';

const none = { system: null, template: null };

describe('fillTemplate', () => {
  it.each([
    ['Describe {{name}}', { name: 'a cat' }, 'Describe a cat'],
    ['{{ a }}+{{b}}', { a: 1, b: 'x' }, '1+x'],
    ['{{obj}}', { obj: { k: 1 } }, '{"k":1}'],
    ['no vars', {}, 'no vars'],
    ['{{x}} and {{x}}', { x: 'y' }, 'y and y'],
  ])('%s with %j gives %s', (template, fields, expected) => {
    expect(fillTemplate(template, fields)).toEqual({ ok: true, text: expected });
  });

  it('names every missing variable once', () => {
    expect(fillTemplate('{{a}} {{b}} {{a}}', { c: 1 })).toEqual({
      ok: false,
      problem: 'template variable {{a}}, {{b}} missing from the row',
    });
  });

  it('treats null as missing', () => {
    expect(fillTemplate('{{a}}', { a: null }).ok).toBe(false);
  });
});

describe('rowToMessages', () => {
  it('turns a prompt into one user message', () => {
    expect(rowToMessages({ id: 'a', prompt: 'hi' }, none)).toEqual({ ok: true, messages: [{ role: 'user', content: 'hi' }] });
  });

  it("sends no system message for an empty one (--system '' over a job file's)", () => {
    expect(rowToMessages({ prompt: 'hi' }, { system: '', template: null })).toEqual({
      ok: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('uses messages as given and adds --system only when the row has none', () => {
    const messages = [{ role: 'user', content: 'q' }];
    expect(rowToMessages({ messages }, { system: 'S', template: null })).toEqual({
      ok: true,
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'q' },
      ],
    });
    const own = [
      { role: 'system', content: 'mine' },
      { role: 'user', content: 'q' },
    ];
    expect(rowToMessages({ messages: own }, { system: 'S', template: null })).toEqual({ ok: true, messages: own });
  });

  it('reads body.messages of a Batch API line', () => {
    const line = {
      custom_id: 'r1',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'x', messages: [{ role: 'user', content: 'q' }] },
    };
    expect(rowToMessages(line, none)).toEqual({ ok: true, messages: [{ role: 'user', content: 'q' }] });
  });

  it('fills a template, which takes precedence over prompt', () => {
    expect(rowToMessages({ prompt: 'ignored', name: 'N' }, { system: null, template: 'About {{name}}' })).toEqual({
      ok: true,
      messages: [{ role: 'user', content: 'About N' }],
    });
  });

  it.each([
    [{ prompt: '' }, 'empty prompt'],
    [{ prompt: '   ' }, 'empty prompt'],
    [{ prompt: 3 }, '"prompt" must be a string, got a number'],
    [{ text: 'x' }, 'nothing to send'],
    [{ messages: [] }, '"messages" is empty'],
    [{ messages: 'hi' }, '"messages" must be a list'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role must be one of'],
    [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, 'messages[0].content must be a string'],
    [{ messages: [{ role: 'user', content: ' ' }] }, 'messages[0].content is empty'],
    [{ messages: [null] }, 'messages[0] must be an object'],
  ])('refuses %j', (fields, problem) => {
    const result = rowToMessages(fields, none);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(problem);
  });

  it('refuses a template that fills to nothing', () => {
    const result = rowToMessages({ a: '' }, { system: null, template: '{{a}}' });
    expect(result).toEqual({ ok: false, problem: 'the filled template is empty' });
  });
});

describe('buildChatRequest', () => {
  const settings = { baseUrl: 'http://x/v1', model: 'm', params: {} };
  const messages = [{ role: 'user', content: 'hello there' }];

  it('sends only model and messages by default', () => {
    expect(JSON.parse(buildChatRequest(messages, settings).body)).toEqual({ model: 'm', messages });
  });

  it('adds opted-in params; their order does not change the fingerprint', () => {
    const a = buildChatRequest(messages, { ...settings, params: { temperature: 0, max_tokens: 5 } });
    const b = buildChatRequest(messages, { ...settings, params: { max_tokens: 5, temperature: 0 } });
    expect(JSON.parse(a.body)).toEqual({ model: 'm', messages, temperature: 0, max_tokens: 5 });
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it('changes the fingerprint with model, messages, params or base URL', () => {
    const base = buildChatRequest(messages, settings).fingerprint;
    expect(buildChatRequest(messages, { ...settings, model: 'n' }).fingerprint).not.toBe(base);
    expect(buildChatRequest([{ role: 'user', content: 'other' }], settings).fingerprint).not.toBe(base);
    expect(buildChatRequest(messages, { ...settings, params: { temperature: 1 } }).fingerprint).not.toBe(base);
    expect(buildChatRequest(messages, { ...settings, baseUrl: 'http://y/v1' }).fingerprint).not.toBe(base);
  });

  it('estimates tokens from characters', () => {
    expect(buildChatRequest(messages, settings).estimatedTokens).toBe(Math.ceil(11 / 4) + 4);
  });
});
