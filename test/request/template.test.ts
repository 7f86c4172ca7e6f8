import { describe, expect, it } from 'vitest';
import { rowToMessages } from '../../src/request/messages.js';
import { fillTemplate, MAX_FILLED_TEMPLATE_CHARS, MAX_TEMPLATE_VALUE_DEPTH, nestedDeeperThan } from '../../src/request/template.js';

/** A list nested `depth` levels deep, built the way JSON.parse would read `[[[…]]]`. */
function nested(depth: number): unknown[] {
  return JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown[];
}

/** A row as the JSONL reader yields it: JSON.parse makes `__proto__` an own field. */
function row(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

describe("fillTemplate: only the row's own fields", () => {
  it.each([
    ['{{constructor}}', {}],
    ['{{toString}}', {}],
    ['{{__proto__}}', {}],
    ['{{hasOwnProperty}}', { a: 1 }],
    ['{{valueOf}} {{a}}', { a: 1 }],
  ])('%s is missing from %j', (template, fields) => {
    const result = fillTemplate(template, fields);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(/^template variable \{\{\w+\}\} missing from the row$/);
  });

  it.each([
    ['{{constructor}}', row('{"constructor": "c"}'), 'c'],
    ['{{toString}}', row('{"toString": 5}'), '5'],
    ['{{__proto__}}', row('{"__proto__": "p"}'), 'p'],
    ['{{__proto__}}', row('{"__proto__": {"k": 1}}'), '{"k":1}'],
  ])('%s is filled from %j', (template, fields, text) => {
    expect(fillTemplate(template, fields)).toEqual({ ok: true, text });
  });
});

describe('fillTemplate: values', () => {
  it.each([
    ['a string as it is', 'x "q"', 'x "q"'],
    ['an integer', 42, '42'],
    ['a fraction', 0.5, '0.5'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['an empty string', '', ''],
    ['a list as compact JSON', [1, 'two', null], '[1,"two",null]'],
    ['an object as compact JSON', { k: { deeper: [true] } }, '{"k":{"deeper":[true]}}'],
    [
      `a list ${MAX_TEMPLATE_VALUE_DEPTH} levels deep`,
      nested(MAX_TEMPLATE_VALUE_DEPTH),
      `${'['.repeat(MAX_TEMPLATE_VALUE_DEPTH)}${']'.repeat(MAX_TEMPLATE_VALUE_DEPTH)}`,
    ],
  ])('fills %s', (_what, value, text) => {
    expect(fillTemplate('{{v}}', { v: value })).toEqual({ ok: true, text });
  });

  it.each([
    ['one level too deep', nested(MAX_TEMPLATE_VALUE_DEPTH + 1)],
    ['100,000 levels deep (a stack overflow once)', nested(100_000)],
    ['deep inside an object', row(`{"a": [1, {"b": ${'['.repeat(5000)}${']'.repeat(5000)}}]}`)],
  ])('refuses a value nested %s, without throwing', (_what, value) => {
    expect(fillTemplate('say {{v}}', { v: value })).toEqual({
      ok: false,
      problem: `template variable {{v}} holds a list or object nested more than ${MAX_TEMPLATE_VALUE_DEPTH} levels deep`,
    });
  });

  it('refuses a filled template past the size bound, without building it', () => {
    const big = 'x'.repeat(MAX_FILLED_TEMPLATE_CHARS / 4 + 1);
    // 100 copies would be a 400 MiB string: the fill stops adding once past the bound.
    const result = fillTemplate('{{v}}'.repeat(100), { v: big });
    expect(result).toEqual({ ok: false, problem: `the filled template is longer than ${MAX_FILLED_TEMPLATE_CHARS} characters` });
  });

  it('says a null field is null, apart from one the row does not have', () => {
    expect(fillTemplate('{{a}} {{b}}', { a: null })).toEqual({
      ok: false,
      problem: 'template variable {{b}} missing from the row; template variable {{a}} null in the row',
    });
    expect(fillTemplate('{{a}}', { a: null })).toEqual({ ok: false, problem: 'template variable {{a}} null in the row' });
  });

  it('names missing variables before other problems', () => {
    expect(fillTemplate('{{deep}} {{gone}}', { deep: nested(100) })).toEqual({
      ok: false,
      problem: 'template variable {{gone}} missing from the row',
    });
  });
});

describe('nestedDeeperThan', () => {
  it.each([
    [[], 1, false],
    [[[]], 1, true],
    [{ a: { b: {} } }, 3, false],
    [{ a: { b: {} } }, 2, true],
    [[1, [2, [3]], { x: [] }], 3, false],
    [[1, [2, [3]], { x: [[]] }], 3, true],
  ])('%j deeper than %i: %s', (value, limit, deeper) => {
    expect(nestedDeeperThan(value, limit)).toBe(deeper);
  });
});

describe('rowToMessages with deep or inherited values', () => {
  it.each([
    [
      row(`{"messages": [{"role": ${JSON.stringify(nested(1))}, "content": "x"}]}`),
      'messages[0].role must be one of system, developer, user, assistant, got a list',
    ],
    [{ messages: [{ role: nested(100_000), content: 'x' }] }, 'got a list'],
    [{ messages: [{ role: 'r'.repeat(1000), content: 'x' }] }, `got "${'r'.repeat(40)}..."`],
    [{ messages: [{ content: 'x' }] }, 'messages[0].role must be one of system, developer, user, assistant, got none'],
    [{ messages: nested(100_000) }, 'messages[0] must be an object with role and content'],
    [{ prompt: nested(100_000) }, '"prompt" must be a string, got a list'],
    [{ body: { toString: 'x' } }, 'nothing to send'],
  ])('%#: a clear problem, no throw', (fields, problem) => {
    const result = rowToMessages(fields, { system: null, template: null });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(problem);
  });

  it('does not take messages, prompt or role from Object.prototype', () => {
    const message = Object.create({ role: 'user' }) as Record<string, unknown>;
    message.content = 'x';
    expect(rowToMessages({ messages: [message] }, { system: null, template: null })).toMatchObject({ ok: false });
    const inherited = Object.create({ prompt: 'from the prototype' }) as Record<string, unknown>;
    expect(rowToMessages(inherited, { system: null, template: null })).toMatchObject({ ok: false });
  });
});
