import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { MAX_JSON_DEPTH } from '../../src/record/json-depth.js';
import { computeStats } from '../../src/report/stats.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { rewriteRecords } from '../support/record-files.js';
import { startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

/** `{"a":{"a":...1...}}`, `levels` deep: JSON.parse reads it, JSON.stringify overflows the stack. */
const deepText = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deep = (levels = 20_000) => JSON.parse(deepText(levels)) as unknown;
const KEY = 'sk-deep-values-00000000';

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

const options = (input: string, extra: Record<string, unknown> = {}) => ({
  inputs: [input],
  model: 'sim',
  baseUrl: simulator.url,
  apiKey: KEY,
  out: dir.file('out'),
  ...extra,
});

describe(`values nested deeper than ${MAX_JSON_DEPTH} levels never end a run`, () => {
  it('a row holding one (kept by --keep-input) is that row invalid_input; the others run, and a resume finishes', async () => {
    const input = await dir.write('in.jsonl', `{"id":"ok","prompt":"x"}\n{"id":"deep","prompt":"y","meta":${deepText(20_000)}}\n`);
    const report = await run(options(input, { keepInput: 'all' }));
    expect(report).toMatchObject({ exitCode: 1, succeeded: 1, failed: 1 });
    const [failure] = await dir.jsonl<{ id: string; code: string; message: string; input?: unknown }>('out/errors.jsonl');
    // Its flat fields still name it: the record is under the row's own id.
    expect(failure).toMatchObject({ id: 'deep', code: 'invalid_input' });
    expect(failure).toMatchObject({ input: { id: 'deep', prompt: 'y' } }); // the deep field left out
    expect(failure).not.toHaveProperty('input.meta');
    expect(failure!.message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect((await run(options(input, { keepInput: 'all', resume: true }))).exitCode).toBe(1);
  });

  it('in params (job file, --param, the library): refused before anything is sent', async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    await expect(run(options(input, { params: { metadata: deep() } }))).rejects.toThrow(/params: a value nested deeper than 256 levels/);
    expect(simulator.stats().requests).toBe(0);
  });

  it('in a cache entry: a miss, the request is sent', async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    const cache = dir.file('cache');
    expect((await run(options(input, { cache }))).exitCode).toBe(0);
    const entries = (await readdir(cache, { recursive: true })).map(String).filter((name) => name.endsWith('.json'));
    const entryFile = path.join(cache, entries[0]!);
    const entry = JSON.parse(await readFile(entryFile, 'utf8'));
    entry.usage = { ...entry.usage, details: {} };
    await writeFile(entryFile, JSON.stringify(entry).replace('"details":{}', `"details":${deepText(20_000)}`));
    simulator.resetStats();
    const again = await run(options(input, { cache, force: true }));
    expect(again.exitCode).toBe(0);
    expect(simulator.stats().requests).toBe(1);
  });

  it('in a response body kept by --format openai-batch, or its usage: cut there, the row settles', async () => {
    const server = await startScriptedServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        `{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],` +
          `"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"details":${deepText(20_000)}},"extra":${deepText(20_000)}}`,
      );
    });
    try {
      const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
      const report = await run({ ...options(input), baseUrl: server.baseUrl, format: 'openai-batch' });
      expect(report.exitCode).toBe(0);
      const [record] = await dir.jsonl<{ reply: string }>('out/output.jsonl');
      expect(record!.reply).toBe('fine');
      expect(await dir.read('out/output.jsonl')).toContain(`[nested deeper than ${MAX_JSON_DEPTH} levels]`);
    } finally {
      await server.close();
    }
  });

  it('in an edited record line: report names it and skips it', async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    expect((await run(options(input))).exitCode).toBe(0);
    const line = (await dir.read('out/output.jsonl')).trim();
    await writeFile(dir.file('out/output.jsonl'), `${line}\n${line.replace('"id":"a"', `"id":"b","x":${deepText(20_000)}`)}\n`);
    const stats = await computeStats(dir.file('out/output.jsonl'), dir.file('out/errors.jsonl'));
    expect(stats.rows).toBe(1);
    expect(stats.damaged?.join('\n')).toContain('nested deeper than');
  });
});

describe('an edited record nested too deep (its checksum in the journal recomputed)', () => {
  it('is not rechecked against a new reply schema (it would overflow the stack): the row keeps it, the resume finishes', async () => {
    const server = await startScriptedServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '{"a": 1}' }, finish_reason: 'stop' }] }));
    });
    try {
      const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
      const strict = await dir.write(
        'strict.json',
        JSON.stringify({ type: 'object', properties: { b: { type: 'number' } }, required: ['b'] }),
      );
      const loose = await dir.write('loose.json', JSON.stringify({ type: 'object' }));
      const base = { ...options(input), baseUrl: server.baseUrl };
      expect((await run({ ...base, replySchema: strict, replyRetries: 0 })).exitCode).toBe(1);
      // The record is in errors.jsonl, and the journal refers to it there (its CRC recomputed).
      await rewriteRecords(dir.file('out'), (records) => {
        records.e[0] = `${records.e[0]!.slice(0, -1)},"x":${deepText(20_000)}}`;
      });
      const sentBefore = server.received.length;
      const resumed = await run({ ...base, replySchema: loose, resume: true });
      expect(resumed).toMatchObject({ exitCode: 1, failed: 1 });
      expect(server.received.length).toBe(sentBefore);
    } finally {
      await server.close();
    }
  });
});

describe('an edited success nested too deep (its checksum in the journal recomputed), then --format csv', () => {
  it('writes the CSV with the deep part cut, instead of overflowing the stack', async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    expect((await run(options(input))).exitCode).toBe(0);
    await rewriteRecords(dir.file('out'), (records) => {
      records.o[0] = `${records.o[0]!.slice(0, -1)},"data":{"k":${deepText(20_000)}}}`;
    });
    const resumed = await run(options(input, { resume: true, format: 'csv' }));
    expect(resumed.exitCode).toBe(0);
    expect(await dir.read('out/output.csv')).toContain('a,');
  });
});
