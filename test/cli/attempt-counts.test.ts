import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliInProcess } from '../support/cli-in-process.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// Every request sent may be paid for, answered or not: the manifest and the summary count each
// one, including those of rows left pending when the run stopped.

const ROWS = 40;
let dir: TempDir;
let server: ScriptedServer;
let respond: (request: ReceivedRequest, response: ServerResponse, index: number) => void;

beforeEach(async () => {
  dir = await makeTempDir();
  server = await startScriptedServer((request, response, index) => respond(request, response, index));
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const args = (...extra: string[]) => ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...extra];
const env = { CHATBATCH_API_KEY: 'sk-attempt-count-key-000000000' };

async function manifest(): Promise<{ attempts_total: number; status: string; sessions: Array<{ attempts: number }> }> {
  return JSON.parse(await dir.read('out/manifest.json'));
}

const summaryAttempts = (stderr: string): number => Number(/(\d+) attempt\(s\)\)/.exec(stderr)?.[1]);

describe('attempts counted when sent', () => {
  it('fail fast: 8 requests in flight refused with a 401 count 8 attempts, beside the one row that settled', async () => {
    // Answers the first request (the run opens to full concurrency after a success), holds the
    // next ones until 8 are in flight, then refuses them all: the key was revoked meanwhile.
    const held: ServerResponse[] = [];
    respond = (request, response, index) => {
      if (index === 0) return replyWithEcho(request, response, index);
      held.push(response);
      if (held.length === 8)
        for (const r of held) sendJson(r, 401, { error: { code: 'invalid_api_key', message: 'Incorrect API key provided' } });
    };
    const result = await runCli(args('--concurrency', '8', '--quiet'), { cwd: dir.path, env });
    expect(result.code, result.stderr).toBe(3);
    expect(server.received).toHaveLength(9);
    expect((await manifest()).attempts_total).toBe(9);
    expect(summaryAttempts(result.stderr)).toBe(9);
  });

  it('Ctrl-C: requests abandoned in flight are counted, and a resume adds its own', async () => {
    // Answers the first 6 requests; holds the rest until the run gives up on them.
    respond = (request, response, index) => {
      if (index < 6) replyWithEcho(request, response, index);
    };
    const { stop, done } = startCliInProcess(args('--concurrency', '4', '--grace-ms', '50', '--quiet'), { cwd: dir.path, env });
    await waitFor(() => server.received.length === 10); // 6 answered, 4 held in flight
    stop();
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(server.received).toHaveLength(10);
    expect((await manifest()).attempts_total).toBe(10);
    expect(summaryAttempts(stopped.stderr)).toBe(10);

    respond = replyWithEcho;
    const resumed = await runCli(args('--resume', '--quiet'), { cwd: dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const final = await manifest();
    expect(final.attempts_total).toBe(server.received.length);
    expect(final.sessions.map((s) => s.attempts)).toEqual([10, server.received.length - 10]);
  });
});
