import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { skipAheadClock } from '../support/skip-ahead-clock.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * 429s that are one row's own, not the pace's (issue 41), against a scripted server answering
 * as OpenAI documents: a request is counted against the tokens-per-minute limit as its prompt
 * plus its max_tokens, and one larger than the whole limit gets a 429 "Request too large" for
 * ever (body as https://github.com/TheR1D/shell_gpt/issues/653 quotes it), with the limit
 * headers of https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers.
 */
const KEY = 'sk-own-rate-limits-test-key-0123456789';
const TPM = 30_000;
let dir: TempDir | null = null;
let server: ScriptedServer | null = null;

afterEach(async () => {
  await server?.close();
  await dir?.remove();
  server = null;
  dir = null;
});

function limitHeaders(remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': '10000',
    'x-ratelimit-remaining-requests': '9999',
    'x-ratelimit-reset-requests': '6ms',
    'x-ratelimit-limit-tokens': String(TPM),
    'x-ratelimit-remaining-tokens': String(remaining),
    'x-ratelimit-reset-tokens': '1ms',
  };
}

/** OpenAI's answer: the request's size is its prompt (characters / 4) plus its max_tokens. */
function openAiLike(request: ReceivedRequest, response: ServerResponse, index: number): void {
  const maxTokens = Number(request.json?.max_tokens ?? 0);
  const requested = Math.ceil(request.body.length / 4) + maxTokens;
  if (requested > TPM) {
    sendJson(
      response,
      429,
      {
        error: {
          message: `Request too large for gpt-4o in organization org-test on tokens per min (TPM): Limit ${TPM}, Requested ${requested}. The input or output tokens must be reduced in order to run successfully.`,
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      limitHeaders(TPM - 10),
    );
    return;
  }
  response.setHeaders(new Map(Object.entries(limitHeaders(TPM - requested))));
  replyWithEcho(request, response, index);
}

async function runRows(rows: object[], respond: typeof openAiLike, extra: Record<string, unknown> = {}) {
  dir = await makeTempDir();
  server = await startScriptedServer(respond);
  await dir.write('in.jsonl', jsonlOf(rows));
  const result = await run({
    inputs: [dir.file('in.jsonl')],
    model: 'gpt-4o',
    baseUrl: server.baseUrl,
    apiKey: KEY,
    out: dir.file('out'),
    concurrency: 2,
    clock: skipAheadClock(),
    ...extra,
  });
  return { result, errors: await dir.jsonl<RowRecord>('out/errors.jsonl'), output: await dir.jsonl<RowRecord>('out/output.jsonl') };
}

const sent = (id: string) => server!.received.filter((request) => request.body.includes(`prompt ${id}`)).length;

describe("429s that are one row's own", () => {
  it('a row whose max_tokens is larger than the whole TPM limit fails as request_too_large on its first answer', async () => {
    const rows = Array.from({ length: 8 }, (_, i) => ({
      id: `r${i}`,
      body: { messages: [{ role: 'user', content: `prompt r${i}` }], max_tokens: i === 3 ? 32_000 : 50 },
    }));
    const { result, errors, output } = await runRows(rows, openAiLike, { rowParams: true });
    expect(result).toMatchObject({ exitCode: 1, succeeded: 7, failed: 1, pending: 0 });
    expect(output).toHaveLength(7);
    expect(errors).toEqual([expect.objectContaining({ id: 'r3', status: 429, code: 'request_too_large', attempts: 1 })]);
    expect(errors[0]!.message).toContain('Request too large');
    expect(sent('r3')).toBe(1);
  });

  it('a row that gets 429s again and again while the others get through fails alone after a few, not at its deadline', async () => {
    // A gateway that limits one class of request on its own (no limit headers): row r5 always gets a bare 429.
    const gateway = (request: ReceivedRequest, response: ServerResponse, index: number): void => {
      if (request.body.includes('prompt r5')) {
        sendJson(response, 429, { error: { message: 'Too many requests', type: 'requests', code: 'rate_limit_exceeded' } });
        return;
      }
      replyWithEcho(request, response, index);
    };
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, prompt: `prompt r${i}` }));
    const { result, errors } = await runRows(rows, gateway);
    expect(result).toMatchObject({ exitCode: 1, succeeded: 39, failed: 1, pending: 0 });
    expect(errors).toEqual([expect.objectContaining({ id: 'r5', status: 429, code: 'rate_limited_alone', category: 'rate_limited' })]);
    expect(errors[0]!.message).toMatch(/rate-limit answers in a row for this row/);
    // A handful of tries, not the 69 in 90 s that a row deadline of 15 minutes allowed: 9 here,
    // the others' share of 429s (none of 39) taken at the most it leaves likely (rate-limited-alone.ts).
    expect(sent('r5')).toBeGreaterThanOrEqual(4);
    expect(sent('r5')).toBeLessThanOrEqual(12);
    expect(errors[0]!.message).toMatch(/while 100% of the other recent answers got through/);
  });
});
