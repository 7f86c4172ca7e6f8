import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_ANSWER_CHARS } from '../../src/simulator/json-reply.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';

let simulator: RunningSimulator;
beforeEach(async () => {
  simulator = await startSimulator();
});
afterEach(async () => simulator.close());

const ask = (schema?: unknown) =>
  fetch(`${simulator.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      ...(schema === undefined ? {} : { response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }),
    }),
  });

describe('a response_format schema asking for a huge value', () => {
  for (const [what, schema] of [
    ['minLength: 1e9', { type: 'object', properties: { a: { type: 'string', minLength: 1e9 } } }],
    ['minItems: 1e9', { type: 'array', minItems: 1e9, items: { type: 'integer' } }],
    ['nested minItems', { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'string' } } }],
  ] as const) {
    it(`${what}: a 400 naming response_format, and the simulator answers the next request`, async () => {
      const refused = await ask(schema);
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { param: string; message: string } };
      expect(body.error.param).toBe('response_format');
      expect(body.error.message).toContain(`at most ${MAX_JSON_ANSWER_CHARS} characters`);
      expect((await ask()).status).toBe(200);
    });
  }

  it('a schema within the bound is still answered', async () => {
    const response = await ask({ type: 'object', properties: { a: { type: 'string', minLength: 5000 } }, required: ['a'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(JSON.parse(body.choices[0]!.message.content).a.length).toBe(5000);
  });
});
