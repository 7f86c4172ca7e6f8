import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunProgress, run } from '../../src/index.js';
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
  const clock = skipAheadClock();
  const result = await run({
    inputs: [dir.file('in.jsonl')],
    model: 'gpt-4o',
    baseUrl: server.baseUrl,
    apiKey: KEY,
    out: dir.file('out'),
    concurrency: 2,
    clock,
    ...extra,
  });
  return {
    result,
    errors: await dir.jsonl<RowRecord>('out/errors.jsonl'),
    output: await dir.jsonl<RowRecord>('out/output.jsonl'),
  };
}

/** Requests the server received for row `id` (the prompt's id read whole: r1 is not r19). */
const sent = (id: string) => server!.received.filter((request) => /prompt (r\d+)/.exec(request.body)?.[1] === id).length;

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
    // the share of 429s among the other rows' first tries meanwhile (none of 34) taken at the most
    // it leaves likely (rate-limited-alone.ts, fresh-tries.ts).
    expect(sent('r5')).toBeGreaterThanOrEqual(4);
    expect(sent('r5')).toBeLessThanOrEqual(12);
    expect(errors[0]!.message).toMatch(/while (\d+) of \1 other rows' first requests \(as large or larger\) got through/);
  });
});

describe('a gateway that refuses one class of prompt for itself', () => {
  // A limit of its own per end user or content class, with bare 429s like the rest (Keywords
  // AI's per-customer rate_limit: https://docs.keywordsai.co/documentation/products/users/user_rate_limit).
  // 1 row in `every` always refused; the rest taken. Before the first tries' witness (issue 41,
  // helper-24's review): at 1 in 20, the refused rows' retries cut the pace to one request in
  // 10 s, filled the lane, and the run stopped after 5 min with 123 of 400 rows never sent.
  const classRefused = (every: number) => (request: ReceivedRequest, response: ServerResponse, index: number) => {
    const row = Number(/prompt r(\d+)/.exec(request.body)?.[1]);
    if (row % every === every - 1) {
      sendJson(response, 429, { error: { message: 'Too many requests', type: 'requests', code: 'rate_limit_exceeded' } });
      return;
    }
    replyWithEcho(request, response, index);
  };
  const rowsOf = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `prompt r${i}` }));

  it('1 row in 20: every other row succeeds, each refused row fails alone after a few tries, nothing is left pending', async () => {
    const { result, errors } = await runRows(rowsOf(400), classRefused(20), { concurrency: 16 });
    expect(result).toMatchObject({ exitCode: 1, succeeded: 380, failed: 20, pending: 0 });
    // No bound on the virtual time: the skip-ahead clock adds the refused rows' backoffs (decide.ts
    // ownBackoffMs), which run side by side, one after another. Real processes: docs/failures.md.
    expect(new Set(errors.map((record) => record.code))).toEqual(new Set(['rate_limited_alone']));
    // Each failed only once its streak had lasted a minute (a limit of its own that is a rate
    // would have let it through meanwhile).
    expect(errors.every((record) => (record.duration_ms as number) >= 60_000)).toBe(true);
    // 7 tries for most (seen: 7 for 13 of them, up to 22-23 for the last, whose streak the
    // fewest new rows' first tries followed); before, their 429s filled the lane and few got that far.
    const tries = errors.map((record) => sent(record.id as string)).sort((a, b) => a - b);
    expect(tries[10]).toBeLessThanOrEqual(8);
    expect(tries.at(-1)).toBeLessThanOrEqual(30);
    expect(server!.received.length).toBeLessThan(600);
  });

  it("1 row in 20, its replies growing longer as the run goes: each refused row is judged by its streak's first size", async () => {
    // The mean completion, and with it every request's estimated tokens (token-estimator.ts),
    // rises a token a request: a refused row's retries are a size class above its first 429's.
    // Counted from the larger size then, fewer first tries than as its streak began: no witness
    // at all, its 429s cut the pace again, and the run stopped on 5 minutes of nothing but 429s
    // with 7 refused rows pending (13 failed alone at 11-12 tries) before FreshTries.like.
    const growing = (request: ReceivedRequest, response: ServerResponse, index: number) => {
      const row = Number(/prompt r(\d+)/.exec(request.body)?.[1]);
      if (row % 20 === 19) {
        sendJson(response, 429, { error: { message: 'Too many requests', type: 'requests', code: 'rate_limit_exceeded' } });
        return;
      }
      const completion = 2 + index;
      sendJson(response, 200, {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: completion, total_tokens: completion + 5 },
      });
    };
    const { result, errors } = await runRows(rowsOf(400), growing, { concurrency: 16 });
    expect(result).toMatchObject({ exitCode: 1, succeeded: 380, failed: 20, pending: 0 });
    expect(new Set(errors.map((record) => record.code))).toEqual(new Set(['rate_limited_alone']));
  });

  it('1 row in 5: every other row succeeds and every refused row fails alone; nothing is left pending', async () => {
    // Refused rows whose 429s are their own queue for their next request resting (Pacer.rest),
    // so new rows go on being read beside them; without it, 93 of the 240 got through.
    let last: RunProgress | null = null;
    // A row deadline of hours: the skip-ahead clock adds the refused rows' side-by-side backoffs
    // one after another, and past the default 15 min of virtual time they failed on it instead.
    const { result, errors } = await runRows(rowsOf(300), classRefused(5), {
      concurrency: 16,
      rowDeadlineMs: 7_200_000,
      onProgress: (progress: RunProgress) => (last = progress),
    });
    // Every rest ended: none is counted as waiting once the run is over.
    expect(last!.retrying).toBe(0);
    // Before the retries' witness (retries-apart.ts): the last refused rows, refused after the
    // last new row's first request was answered, had nothing fresh to stand out against, and the
    // run stopped on nothing but 429s (exit 3) with 25-32 of them pending; with 100 ms answers a
    // fifth refused cut the pace to a request every 10 s (real processes: 172 of the 240 in 300 s).
    expect(result).toMatchObject({ exitCode: 1, succeeded: 240, failed: 60, pending: 0 });
    expect(errors.every((record) => Number(String(record.id).slice(1)) % 5 === 4)).toBe(true);
    expect(new Set(errors.map((record) => record.code))).toEqual(new Set(['rate_limited_alone']));
    expect(errors.every((record) => (record.duration_ms as number) >= 60_000)).toBe(true);
  });
});

describe('a limit of the endpoint that begins mid-run is not read as rows refused for themselves', () => {
  it('a quota spent after 250 requests at --concurrency 4: the run stops on nothing but 429s with the rest pending', async () => {
    // Bare 429s to every request from the 251st. The retries' witness (retries-apart.ts) once
    // compared the 4 rows' retries, all refused, with the last 200 first tries, nearly all
    // answered before the quota: the retries stood out, each 429 read as its row's own let a new
    // row go in its place, and the run walked its whole input into the quota (1,183 requests
    // where 354 were sent before the witness; 138 rows failed at their deadline in the skip-ahead
    // clock's time instead of being left pending for a --resume; helper-28's review).
    const spent = (request: ReceivedRequest, response: ServerResponse, index: number): void => {
      if (index >= 250) {
        sendJson(response, 429, { error: { message: 'Too many requests', type: 'requests', code: 'rate_limit_exceeded' } });
        return;
      }
      replyWithEcho(request, response, index);
    };
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, prompt: `prompt r${i}` }));
    const { result, errors } = await runRows(rows, spent, { concurrency: 4 });
    expect(result).toMatchObject({ exitCode: 3, succeeded: 250, failed: 0, pending: 150 });
    expect(errors).toEqual([]);
    expect(server!.received.length).toBeLessThan(600);
  });
});
