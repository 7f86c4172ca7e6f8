import { appendFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-superset-test-0000000000';
let dir: TempDir;
let simulator: RunningSimulator;

beforeEach(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator({ apiKey: KEY });
});
afterEach(async () => {
  await simulator.close();
  await dir.remove();
});

async function writeRows(count: number, name = 'in.jsonl'): Promise<string> {
  return dir.write(name, jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `prompt ${i}` }))));
}

const options = (input: string, extra: Record<string, unknown> = {}) => ({
  inputs: [input],
  model: 'sim',
  baseUrl: simulator.url,
  apiKey: KEY,
  out: dir.file('out'),
  concurrency: 4,
  ...extra,
});

describe('a --resume that stops early keeps every earlier record (results are only replaced by a superset)', () => {
  it('a resume of a finished run stopped as it starts (SIGTERM) leaves output.jsonl whole', async () => {
    const input = await writeRows(40);
    expect((await run(options(input))).exitCode).toBe(0);
    const before = await dir.read('out/output.jsonl');
    // A torn journal line makes the resume say so as it opens the run: the stop comes right then,
    // after the inputs are listed and before any row is admitted.
    await appendFile(dir.file('out/.chatbatch/journal.jsonl'), '{"k":"torn');
    const stop = new AbortController();
    const resumed = await run(options(input, { resume: true, signal: stop.signal, onNotice: () => stop.abort() }));
    // Every row had settled: the stop stopped nothing, so the run is complete (issue 36), and whole.
    expect(resumed.exitCode).toBe(0);
    expect(await dir.read('out/output.jsonl')).toBe(before);
    expect(resumed).toMatchObject({ rows: 40, succeeded: 40, pending: 0 });
  });

  it('an exit 3 during --resume --retry-failed keeps the failures it could not retry', async () => {
    const input = await writeRows(30);
    // Odd rows fail with a row-level 400, even ones succeed; then the key is revoked (401 for everything).
    let revoked = false;
    const server = await startScriptedServer((request, response) => {
      const prompt = String(request.json?.messages?.at(-1)?.content ?? '');
      const odd = Number(prompt.split(' ')[1]) % 2 === 1;
      if (!revoked && !odd) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
        return;
      }
      response.writeHead(revoked ? 401 : 400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: revoked ? { code: 'invalid_api_key', message: 'no' } : { code: 'bad_row', message: 'no' } }));
    });
    try {
      const first = await run({ ...options(input), baseUrl: server.baseUrl });
      expect(first).toMatchObject({ exitCode: 1, failed: 15, succeeded: 15 });
      const before = [await dir.read('out/output.jsonl'), await dir.read('out/errors.jsonl')];
      revoked = true;
      const retried = await run({ ...options(input), baseUrl: server.baseUrl, resume: true, retryFailed: [] });
      expect(retried.exitCode).toBe(3);
      expect([await dir.read('out/output.jsonl'), await dir.read('out/errors.jsonl')]).toEqual(before);
      expect(retried).toMatchObject({ succeeded: 15, failed: 15, pending: 0 });
    } finally {
      await server.close();
    }
  });

  it('the dropped-rows refusal counts the records there are: refused while output.jsonl holds them; emptied by hand, none is left to lose', async () => {
    const input = await writeRows(40);
    expect((await run(options(input))).exitCode).toBe(0);
    const half = await writeRows(20, 'half.jsonl');
    await expect(run(options(half, { resume: true }))).rejects.toThrow(/20 record\(s\)/);
    // A finished run's journal refers to the records in output.jsonl: emptied by anything, they are
    // gone already, and the rows these inputs hold are sent again.
    await dir.write('out/output.jsonl', '');
    const resumed = await run(options(half, { resume: true }));
    expect(resumed).toMatchObject({ exitCode: 0, rows: 20, succeeded: 20, rowsSettledNow: 20 });
  });
});
