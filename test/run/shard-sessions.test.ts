import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { NothingSentError, type RunOptions, run } from '../../src/index.js';
import { shardOf } from '../../src/input/shard.js';
import { perTestServedDir } from '../support/per-test.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// What a scheduler does to a shard (a Slurm array task requeued, resubmitted by hand, stopped at
// its time limit, killed): each session runs in process against a scripted server on loopback.

let dir: TempDir;
let server: ScriptedServer;
/** Called for each request; replies with an echo unless it answers itself (true). */
let intercept: (request: ReceivedRequest, response: ServerResponse, index: number) => boolean;

perTestServedDir(
  (fresh) => {
    ({ dir, server } = fresh);
    intercept = () => false;
  },
  (request, response, index) => {
    if (!intercept(request, response, index)) replyWithEcho(request, response, index);
  },
);

const ROWS = 300;
const ids = Array.from({ length: ROWS }, (_, i) => `r${i}`);

async function writeInput(): Promise<string> {
  return dir.write('in.jsonl', jsonlOf(ids.map((id) => ({ id, prompt: `p ${id}` }))));
}

function shardRun(shard: string, extra: Partial<RunOptions> = {}): ReturnType<typeof run> {
  return run({
    inputs: [dir.file('in.jsonl')],
    model: 'm',
    baseUrl: server.baseUrl,
    apiKey: 'sk-shard-sessions-0000000000',
    out: dir.file('shard'),
    shard,
    concurrency: 2,
    ...extra,
  });
}

async function manifest(): Promise<{
  status: string;
  job_fingerprint: string;
  counts: Record<string, number>;
  inputs: Array<{ rows: number }>;
}> {
  return JSON.parse(await dir.read('shard/manifest.json'));
}

describe('a shard resumed, stopped or killed by its scheduler', () => {
  it('refuses a --resume that changes which rows the directory holds: another K/N, no --shard, another id field', async () => {
    await writeInput();
    expect((await shardRun('1/4')).status).toBe('complete');
    const sentBefore = server.received.length;

    const refusal = async (extra: Partial<RunOptions>): Promise<string> => {
      const error = await shardRun(extra.shard ?? '1/4', { resume: true, ...extra }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NothingSentError);
      return (error as NothingSentError).explain();
    };
    const halves = await refusal({ shard: '1/2' });
    expect(halves).toContain('holds shard 1/4, but this run asks for shard 1/2');
    expect(halves).toContain('resume it with --shard 1/4');
    expect(await refusal({ shard: undefined })).toContain('holds shard 1/4, but this run asks for the whole input (no --shard)');
    expect(await refusal({ idField: 'prompt' })).toContain('picked by no --id-field, but this run has --id-field prompt');
    expect(server.received.length).toBe(sentBefore);

    // The same shard resumes as before: nothing to send.
    expect(await shardRun('1/4', { resume: true })).toMatchObject({ status: 'complete', attempts: 0 });
    expect(server.received.length).toBe(sentBefore);
  });

  it("counts an interrupted shard's unread rows as its pending rows, and every input row in the inputs' counts", async () => {
    await writeInput();
    const stop = new AbortController();
    intercept = (_request, _response, index) => {
      if (index === 2) stop.abort(); // as SIGTERM: the requests in flight still settle
      return false;
    };
    const report = await shardRun('0/2', { signal: stop.signal });
    const shardRows = ids.filter((id) => shardOf(id, 2) === 0).length;
    expect(report.status).toBe('interrupted');
    expect(report.rows).toBe(shardRows);
    expect(report.pending).toBe(shardRows - report.succeeded);
    const written = await manifest();
    expect(written.counts).toMatchObject({ rows: shardRows, succeeded: report.succeeded, pending: shardRows - report.succeeded });
    expect(written.inputs.map((input) => input.rows)).toEqual([ROWS]);

    // The resume sends exactly the rest.
    const sentBefore = server.received.length;
    intercept = () => false;
    expect(await shardRun('0/2', { resume: true })).toMatchObject({ status: 'complete', rows: shardRows, succeeded: shardRows });
    expect(server.received.length - sentBefore).toBe(shardRows - report.succeeded);
  });

  it('is complete, exit 0, when the stop came while its last rows were in flight and they settled in the grace period', async () => {
    await writeInput();
    const shardRows = ids.filter((id) => shardOf(id, 2) === 1).length;
    const stop = new AbortController();
    intercept = (_request, _response, index) => {
      if (index === shardRows - 1) stop.abort(); // the last row is out: a time limit's SIGTERM now stops nothing
      return false;
    };
    const report = await shardRun('1/2', { signal: stop.signal });
    expect(stop.signal.aborted).toBe(true);
    expect(report).toMatchObject({ status: 'complete', exitCode: 0, rows: shardRows, succeeded: shardRows, pending: 0 });
    expect((await manifest()).status).toBe('complete');
  });

  it("carries the job's fingerprint while it runs, the one it finishes with", async () => {
    await writeInput();
    const held: ServerResponse[] = [];
    intercept = (_request, response) => {
      held.push(response);
      return true;
    };
    const running = shardRun('0/2');
    let early = '';
    await waitFor(async () => {
      early = await manifest().then(
        (m) => (m.status === 'running' ? m.job_fingerprint : ''),
        () => '',
      );
      return early !== '';
    }, 5_000);
    intercept = () => false;
    for (const [index, response] of held.entries()) replyWithEcho(server.received[index]!, response, index);
    expect((await running).status).toBe('complete');
    expect((await manifest()).job_fingerprint).toBe(early);
  });
});
