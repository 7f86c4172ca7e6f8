import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { skipAheadClock } from '../support/skip-ahead-clock.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * A learned limit that shrinks mid-run (a tier lowered, a shared key's limit split), on the
 * injected clock: the permit queue asks the rate controller afresh for each waiting request, so
 * the requests after the first answer with the smaller limit are spaced by it. Headers as OpenAI
 * documents them (https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers).
 */
let dir: TempDir | null = null;
let server: ScriptedServer | null = null;

afterEach(async () => {
  await server?.close();
  await dir?.remove();
  server = null;
  dir = null;
});

describe('a learned limit that shrinks mid-run', () => {
  it('spaces the requests by the new limit from the first answer that says it', async () => {
    const clock = skipAheadClock();
    const sentAt: number[] = [];
    const respond = (request: ReceivedRequest, response: ServerResponse, index: number): void => {
      sentAt.push(clock.now());
      // 60,000 RPM with room for the first 20 answers, then 600 RPM with nothing left.
      const shrunk = index >= 20;
      response.setHeader('x-ratelimit-limit-requests', shrunk ? '600' : '60000');
      response.setHeader('x-ratelimit-remaining-requests', shrunk ? '0' : '59000');
      response.setHeader('x-ratelimit-reset-requests', shrunk ? '100ms' : '1ms');
      replyWithEcho(request, response, index);
    };
    dir = await makeTempDir();
    server = await startScriptedServer(respond);
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 60 }, (_, i) => ({ id: `r${i}`, prompt: `prompt ${i}` }))));
    const result = await run({
      inputs: [dir.file('in.jsonl')],
      model: 'm',
      baseUrl: server.baseUrl,
      apiKey: 'sk-limit-shrinks-test-key-0123456789',
      out: dir.file('out'),
      concurrency: 4,
      clock,
    });
    expect(result).toMatchObject({ exitCode: 0, succeeded: 60 });
    // The last 30 requests, well after the shrink: 600 RPM is one every 100 ms (102 ms with the 2% margin).
    const late = sentAt.slice(-30);
    const spacing = (late.at(-1)! - late[0]!) / (late.length - 1);
    expect(spacing).toBeGreaterThanOrEqual(98);
    expect(spacing).toBeLessThan(130);
  });
});
