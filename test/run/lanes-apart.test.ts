import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * Each model's lane reads the input for itself (issue 41): a model held back (its limit, an
 * outage) must not hold back the others. The server here holds every answer of model `slow`
 * until model `fast` has had all of its rows answered; before lanes read apart, `fast` could run
 * at most 2,048 rows ahead (the rows queued for `slow`), then the reader waited for `slow` and
 * the run never finished.
 */
const ROWS = 2_300;
let dir: TempDir | null = null;
let server: ScriptedServer | null = null;

afterEach(async () => {
  await server?.close();
  await dir?.remove();
  server = null;
  dir = null;
});

describe('lanes that do not wait for each other', () => {
  it('answers every row of a fast model while a slow one has not had one answer; the output stays in input order', async () => {
    const held: Array<() => void> = [];
    let fastAnswered = 0;
    let slowFirstAnsweredAfterFast: number | null = null;
    const respond = (request: ReceivedRequest, response: ServerResponse, index: number): void => {
      const answer = () => replyWithEcho(request, response, index);
      if (request.json?.model === 'fast') {
        answer();
        if (++fastAnswered === ROWS) for (const release of held.splice(0)) release();
        return;
      }
      if (fastAnswered < ROWS) {
        held.push(() => {
          slowFirstAnsweredAfterFast ??= fastAnswered;
          answer();
        });
        return;
      }
      answer();
    };
    dir = await makeTempDir();
    server = await startScriptedServer(respond);
    const rows = Array.from({ length: ROWS }, (_, i) => ({ id: `q${i}`, prompt: `question ${i}` }));
    await dir.write('in.jsonl', jsonlOf(rows));
    const result = await run({
      inputs: [dir.file('in.jsonl')],
      model: ['slow', 'fast'],
      baseUrl: server.baseUrl,
      apiKey: 'sk-lanes-apart-test-key-0123456789',
      out: dir.file('out'),
      concurrency: 8,
    });
    expect(result.exitCode).toBe(0);
    expect(slowFirstAnsweredAfterFast).toBe(ROWS);
    const output = await dir.jsonl<RowRecord>('out/output.jsonl');
    expect(output.map((record) => `${record.id}/${record.model}`)).toEqual(rows.flatMap((row) => [`${row.id}/slow`, `${row.id}/fast`]));
  });

  it("a resume stopped while the fast lane is ahead keeps the slow lane's earlier records of the rows it did not reach", async () => {
    dir = await makeTempDir();
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: `q${i}`, prompt: `question ${i}` }));
    await dir.write('in.jsonl', jsonlOf(rows));
    let session = 1;
    let fastAnswered = 0;
    const stop = new AbortController();
    const odd = (request: ReceivedRequest) => Number(/question (\d+)/.exec(request.body)?.[1]) % 2 === 1;
    server = await startScriptedServer((request, response, index) => {
      if (session === 1) {
        // The odd rows fail with a row's own 400, the even ones succeed: --retry-failed sends the odd ones again.
        if (odd(request))
          sendJson(response, 400, { error: { message: 'bad row', type: 'invalid_request_error', param: null, code: 'bad_row' } });
        else replyWithEcho(request, response, index);
        return;
      }
      if (request.json?.model === 'fast') {
        replyWithEcho(request, response, index);
        fastAnswered++;
      }
      // model slow: never answered in session 2 (cancelled once the grace period is over)
    });
    const options = {
      inputs: [dir.file('in.jsonl')],
      model: ['slow', 'fast'],
      baseUrl: server.baseUrl,
      apiKey: 'sk-lanes-apart-test-key-0123456789',
      out: dir.file('out'),
      concurrency: 4,
      graceMs: 0,
    };
    expect((await run(options)).exitCode).toBe(1);
    session = 2;
    // Stopped once the fast lane's rows are settled (not merely answered: an answer still on its
    // way when the grace period of 0 ends leaves its row pending, with its earlier record).
    const onProgress = (progress: { settled: number }) => {
      if (progress.settled >= rows.length / 2) stop.abort();
    };
    const resumed = await run({ ...options, resume: true, retryFailed: [], signal: stop.signal, onProgress, progressEveryMs: 5 });
    expect(fastAnswered).toBe(rows.length / 2);
    // Every fast row succeeded now; every odd slow row keeps its failure from the first session.
    expect(resumed).toMatchObject({ succeeded: rows.length * 1.5, failed: rows.length / 2, pending: 0 });
    const oddRows = rows.filter((_, i) => i % 2 === 1);
    const output = await dir.jsonl<RowRecord>('out/output.jsonl');
    const errors = await dir.jsonl<RowRecord>('out/errors.jsonl');
    expect(errors.map((record) => `${record.id}/${record.model}`)).toEqual(oddRows.map((row) => `${row.id}/slow`));
    expect(output.map((record) => `${record.id}/${record.model}`)).toEqual(
      rows.flatMap((row, i) => (i % 2 === 1 ? [`${row.id}/fast`] : [`${row.id}/slow`, `${row.id}/fast`])),
    );
  });
});
