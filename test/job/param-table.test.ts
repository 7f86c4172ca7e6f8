import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KNOWN_PARAMS, NOT_PARAMS, REFUSED_PARAMS } from '../../src/job/param-table.js';
import { paramValueProblem } from '../../src/job/param-types.js';
import { allowedParamsProblems, checkParams, likelyTypoOf, paramProblem } from '../../src/job/params.js';
import { OPENAPI_DOCUMENT, type OpenApiValidator, openAiValidator } from '../support/openai-openapi.js';

let validator: OpenApiValidator;
beforeAll(() => {
  validator = openAiValidator();
});

/** Every request parameter OpenAI's document names for POST /chat/completions. */
function documentedParams(): Set<string> {
  const schemas = (parse(readFileSync(OPENAPI_DOCUMENT, 'utf8')) as { components: { schemas: Record<string, unknown> } }).components
    .schemas;
  const names = new Set<string>();
  const collect = (schema: unknown): void => {
    const s = schema as { allOf?: unknown[]; properties?: Record<string, unknown>; $ref?: string };
    if (s.$ref) collect(schemas[s.$ref.split('/').pop()!]);
    for (const part of s.allOf ?? []) collect(part);
    for (const name of Object.keys(s.properties ?? {})) names.add(name);
  };
  collect(schemas.CreateChatCompletionRequest);
  return names;
}

const OPENAI_PARAMS = Object.entries(KNOWN_PARAMS).filter(([, param]) => param.source === undefined);

/** Values of every JSON shape, to hold each parameter's check to the document's schema. */
const PROBES: unknown[] = [
  null,
  true,
  -101,
  -3,
  -2,
  -1,
  0,
  0.5,
  1,
  1.5,
  2,
  2.5,
  20,
  21,
  128,
  129,
  2 ** 40,
  '',
  'low',
  'x'.repeat(65),
  [],
  ['a'],
  ['a', 'b', 'c', 'd', 'e'],
  [1],
  {},
  { a: 'b' },
  { 12: 5 },
  { 12: 101 },
  { type: 'json_object' },
  { type: 'xml' },
];

/**
 * Where chatbatch accepts what the document refuses, on purpose: enumerations that vendors
 * extend (checked as strings), stop lists longer than OpenAI's 4 (vLLM takes more), and objects
 * whose inner shape is the endpoint's to judge.
 */
const LOOSER = new Set([
  'reasoning_effort',
  'verbosity',
  'service_tier',
  'prompt_cache_retention',
  'modalities',
  'stop',
  'prediction',
  'moderation',
]);
/** Where chatbatch refuses what the document accepts: 0 tokens can never be answered; logit_bias's documented -100..100. */
const STRICTER = new Set(['max_tokens', 'max_completion_tokens', 'logit_bias']);

const documentAccepts = (name: string, value: unknown) =>
  validator.request({ model: 'm', messages: [{ role: 'user', content: 'x' }], [name]: value }).length === 0;

describe("the parameter table against OpenAI's OpenAPI document", () => {
  it('names only parameters the document defines (vendor fields say their source), and every refused one is in it too', () => {
    const documented = documentedParams();
    expect(OPENAI_PARAMS.map(([name]) => name).filter((name) => !documented.has(name))).toEqual([]);
    expect(Object.keys(REFUSED_PARAMS).filter((name) => !documented.has(name))).toEqual([]);
    for (const [name, param] of Object.entries(KNOWN_PARAMS)) {
      if (param.source !== undefined) expect(documented.has(name), name).toBe(false);
    }
  });

  it.each(OPENAI_PARAMS)(
    '%s: accepts what the document accepts and refuses what it refuses, but for the deviations listed',
    (name, param) => {
      const disagreements: string[] = [];
      for (const value of PROBES) {
        const ours = paramValueProblem(value, param) === null;
        const theirs = documentAccepts(name, value);
        if (ours === theirs) continue;
        if (ours && LOOSER.has(name)) continue;
        if (theirs && STRICTER.has(name)) continue;
        disagreements.push(
          `${JSON.stringify(value)}: chatbatch ${ours ? 'accepts' : 'refuses'}, the document ${theirs ? 'accepts' : 'refuses'}`,
        );
      }
      expect(disagreements).toEqual([]);
    },
  );

  it('the deviations are real: each listed parameter differs from the document on some value', () => {
    for (const name of [...LOOSER, ...STRICTER]) {
      const param = KNOWN_PARAMS[name]!;
      const differs = PROBES.some((value) => (paramValueProblem(value, param) === null) !== documentAccepts(name, value));
      expect(differs, name).toBe(true);
    }
  });
});

describe('parameter values', () => {
  it.each([
    ['seed', 42, null],
    ['seed', -7, null],
    ['seed', 2 ** 53, 'too large to send exactly'],
    ['seed', '42', 'expected an integer, got "42"'],
    ['logprobs', true, null],
    ['logprobs', 'yes', 'expected true or false'],
    ['top_logprobs', 20, null],
    ['top_logprobs', 21, 'expected an integer from 0 to 20, got 21'],
    ['reasoning_effort', 'default', null],
    ['service_tier', 'on_demand', null],
    ['metadata', { team: 'eval' }, null],
    ['metadata', { run: 3 }, 'expected an object of string values'],
    ['user', null, 'expected a string, got null'],
    ['temperature', null, null],
    ['temperature', 2.5, 'expected a number from 0 to 2, got 2.5'],
    ['logit_bias', { '50256': -100 }, null],
    ['top_k', -1, null],
    ['top_k', 0.5, 'expected an integer, got 0.5'],
  ])('%s = %j: %s', (name, value, problem) => {
    const found = paramValueProblem(value, KNOWN_PARAMS[name]!);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});

describe('names: sent as given, refused, or a typo', () => {
  it.each([
    // Vendors' fields: unknown to the table, or known so that they are not taken for typos.
    ['chat_template_kwargs', { enable_thinking: false }],
    ['safe_prompt', true],
    ['models', ['a', 'b']],
    ['random_seed', 1],
    ['top_k', 40],
    ['top_a', 0.1],
    ['min_p', 0.05],
    ['min_tokens', 1],
    ['guided_json', { type: 'object' }],
    ['constructor', 1],
  ])('sends %s as given', (name, value) => {
    expect(paramProblem(name, value, [])).toBeNull();
  });

  it.each([
    ['temprature', 'temperature'],
    ['Temperature', 'temperature'],
    ['max-tokens', 'max_tokens'],
    ['max_token', 'max_tokens'],
    ['logprob', 'logprobs'],
    ['top_logprob', 'top_logprobs'],
    ['sed', 'seed'],
    ['seeed', 'seed'],
    ['reasoning_efort', 'reasoning_effort'],
    ['streem', 'stream'],
  ])('takes %s for a typo of %s', (typo, meant) => {
    expect(likelyTypoOf(typo)).toBe(meant);
    expect(paramProblem(typo, 1, [])).toContain(`unknown parameter; did you mean ${meant}?`);
    expect(paramProblem(typo, 1, [])).toContain(`To send "${typo}" as written, name it with --allow-param`);
  });

  it('a typo of a refused feature says so; an allowed name is sent as written, a known one unchecked', () => {
    expect(paramProblem('tool', [], [])).toContain('did you mean tools? (chatbatch does not support tool calling)');
    expect(paramProblem('temprature', 1, ['temprature'])).toBeNull();
    expect(paramProblem('temperature', 3, ['temperature'])).toBeNull();
    expect(paramProblem('temperature', 3, [])).toContain('expected a number from 0 to 2');
  });

  it.each(Object.keys(REFUSED_PARAMS))('refuses %s whatever its value, even when allowed', (name) => {
    expect(paramProblem(name, false, [name])).toMatch(/^chatbatch does not support .+; remove it$/);
    expect(allowedParamsProblems([name])).toEqual([expect.stringContaining(`${name} cannot be allowed: chatbatch does not support`)]);
  });

  it.each(Object.keys(NOT_PARAMS))('refuses %s as a parameter', (name) => {
    expect(paramProblem(name, 'x', [name])).toBe(NOT_PARAMS[name]);
    expect(checkParams(JSON.parse(`{"${name}": 1}`))).toEqual([`params.${name}: ${NOT_PARAMS[name]}`]);
  });

  it('refuses a parameter without a name, and params that are not an object', () => {
    expect(checkParams({ '': 1 })).toEqual(['params.: a parameter needs a name']);
    expect(checkParams([1], 'body')).toEqual(['body must be an object of request parameters']);
  });
});
