import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SENTIMENT_LABELS } from '../../src/simulator/json-reply.js';
import { type RunningSimulator, simulatedReply, startSimulator } from '../../src/simulator/server.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

async function answer(body: Record<string, unknown>): Promise<{ status: number; content: string }> {
  simulator ??= await startSimulator();
  const response = await fetch(`${simulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { choices?: Array<{ message: { content: string } }> };
  return { status: response.status, content: json.choices?.[0]?.message.content ?? '' };
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'sim', messages: [{ role: 'user', content }], ...extra });

describe('the simulator answers JSON when asked', () => {
  it('response_format json_object: {label, score}, the same for the same body, varying with it', async () => {
    const replies = await Promise.all(
      ['one', 'two', 'three', 'four', 'one'].map((p) => answer(ask(p, { response_format: { type: 'json_object' } }))),
    );
    for (const { status, content } of replies) {
      expect(status).toBe(200);
      const value = JSON.parse(content) as { label: string; score: number };
      expect(Object.keys(value)).toEqual(['label', 'score']);
      expect(SENTIMENT_LABELS).toContain(value.label);
      expect(value.score).toBeGreaterThanOrEqual(0);
      expect(value.score).toBeLessThan(1);
    }
    expect(replies[4]!.content).toBe(replies[0]!.content);
    expect(new Set(replies.map((r) => r.content)).size).toBeGreaterThan(1);
  });

  it('response_format json_schema: a value that fits the schema (checked with ajv)', async () => {
    const schema = {
      type: 'object',
      required: ['label', 'score', 'count', 'tags', 'ok', 'when', 'inner', 'kind', 'note'],
      additionalProperties: false,
      properties: {
        label: { enum: ['a', 'b', 'c'] },
        score: { type: 'number', minimum: 0.5, maximum: 0.75 },
        count: { type: 'integer', minimum: 3, maximum: 9 },
        tags: { type: 'array', items: { type: 'string', minLength: 12 }, minItems: 2, maxItems: 3 },
        ok: { type: 'boolean' },
        when: { type: 'string', format: 'date-time' },
        inner: { $ref: '#/$defs/inner' },
        kind: { const: 'review' },
        note: { type: ['string', 'null'], maxLength: 5 },
      },
      $defs: { inner: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
    };
    const ajv = new Ajv2020({ strict: false });
    ajv.addFormat('date-time', (text: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(text));
    const validate = ajv.compile(schema);
    for (const prompt of ['first', 'second', 'third']) {
      const { status, content } = await answer(
        ask(prompt, { response_format: { type: 'json_schema', json_schema: { name: 'thing', schema } } }),
      );
      expect(status).toBe(200);
      const value: unknown = JSON.parse(content);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('response_format text, or none: the usual text reply', async () => {
    expect((await answer(ask('hi', { response_format: { type: 'text' } }))).content).toBe(
      simulatedReply([{ role: 'user', content: 'hi' }]),
    );
    expect((await answer(ask('hi'))).content).toBe(simulatedReply([{ role: 'user', content: 'hi' }]));
  });

  it('directives: [[sim:json]] bare JSON, [[sim:json-fenced]] in a ```json block after a sentence, [[sim:badjsonx1]] not JSON once', async () => {
    expect(JSON.parse((await answer(ask('x [[sim:json]]'))).content)).toHaveProperty('label');
    const fenced = (await answer(ask('x [[sim:json-fenced]]'))).content;
    expect(fenced).toMatch(/^Here is the JSON you asked for:\n\n```json\n\{\n {2}"label": "\w+",\n {2}"score": [\d.]+\n\}\n```\n$/);
    const body = ask('y [[sim:badjsonx1]]', { response_format: { type: 'json_object' } });
    const first = (await answer(body)).content;
    expect(() => JSON.parse(first)).toThrow();
    expect(JSON.parse((await answer(body)).content)).toHaveProperty('score');
  });

  it('still refuses tools, tool_choice and stream', async () => {
    for (const extra of [{ tools: [] }, { tool_choice: 'auto' }, { stream: true }])
      expect((await answer(ask('x', extra))).status).toBe(400);
  });
});
