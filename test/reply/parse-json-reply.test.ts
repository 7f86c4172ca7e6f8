import { describe, expect, it } from 'vitest';
import { MAX_REPLY_DEPTH, parseJsonReply } from '../../src/reply/parse-json-reply.js';

const fence = '```';

describe('parseJsonReply', () => {
  it.each([
    ['a bare object', '{"label": "positive", "score": 0.9}', { label: 'positive', score: 0.9 }],
    ['a bare object with whitespace and a BOM', '\uFEFF\n  {"a": 1}  \n', { a: 1 }],
    ['a bare list', '[1, 2]', [1, 2]],
    ['a bare number', '42', 42],
    ['a ```json block', `${fence}json\n{"a": 1}\n${fence}`, { a: 1 }],
    ['a ```JSON block (case)', `${fence}JSON\n{"a": 1}\n${fence}`, { a: 1 }],
    ['a bare ``` block', `${fence}\n{"a": 1}\n${fence}`, { a: 1 }],
    [
      'a block with prose around it',
      `Here you go:\n\n${fence}json\n{"a": [1, {"b": null}]}\n${fence}\n\nAnything else?`,
      { a: [1, { b: null }] },
    ],
    ['a block with CRLF line ends', `Sure.\r\n${fence}json\r\n{"a": 1}\r\n${fence}\r\n`, { a: 1 }],
    ['a longer fence holding backticks', `${fence}\`json\n{"code": "${fence}"}\n${fence}\`\n`, { code: fence }],
    ['a one-line ```json block', `The answer: ${'\n'}${fence}json {"a": 1}${fence}`, { a: 1 }],
    ['a json block beside a block in another language', `${fence}python\nprint(1)\n${fence}\n${fence}json\n{"a": 1}\n${fence}`, { a: 1 }],
  ])('reads %s', (_name, reply, value) => {
    expect(parseJsonReply(reply)).toEqual({ ok: true, value });
  });

  it.each([
    ['an empty reply', '  \n', 'the reply is empty'],
    ['prose', 'The sentiment is positive.', 'the reply is not JSON: Unexpected token'],
    ['JSON after prose without a fence', 'Result: {"a": 1}', 'the reply is not JSON'],
    [
      'two JSON blocks',
      `${fence}json\n{"a": 1}\n${fence}\nor\n${fence}json\n{"a": 2}\n${fence}`,
      'the reply has 2 fenced code blocks; expected one JSON value',
    ],
    ['a block that is not JSON', `${fence}json\n{"a": 1,}\n${fence}`, 'its fenced code block is not JSON'],
    ['a block cut off before its end (token limit)', `${fence}json\n{"a": "long`, 'its fenced code block is not JSON'],
    ['a block in another language only', `${fence}python\n{"a": 1}\n${fence}`, 'the reply is not JSON'],
  ])('refuses %s', (_name, reply, problem) => {
    const parsed = parseJsonReply(reply);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(problem);
  });

  it('keeps a problem one bounded line, whatever the reply quotes', () => {
    const parsed = parseJsonReply(`not json ${'x'.repeat(5000)}\nsecond line`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem.length).toBeLessThan(260);
      expect(parsed.problem).not.toContain('\n');
    }
  });

  it(`refuses JSON nested deeper than ${MAX_REPLY_DEPTH} levels (it could not be written back out) and takes it at the limit`, () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(parseJsonReply(nested(MAX_REPLY_DEPTH)).ok).toBe(true);
    const deep = parseJsonReply(nested(200_000));
    expect(deep).toEqual({ ok: false, problem: `the reply's JSON is nested more than ${MAX_REPLY_DEPTH} levels deep` });
  });
});
