import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { echoReply, sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const USAGE = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
let fresh: ServedDir;
// Rows r0..r2 are answered at once; later rows hang until the second session, when everything is answered.
let answerAll = false;
perTestServedDir(
  (served) => {
    fresh = served;
    answerAll = false;
  },
  (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    if (!answerAll && !['r0', 'r1', 'r2'].includes(prompt)) return;
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: echoReply(request) }, finish_reason: 'stop' }],
      usage: USAGE,
    });
  },
);

describe('a session killed with kill -9', () => {
  it('has its token usage in the manifest, so the resume and its budget count what it paid for', async () => {
    const { dir, server } = fresh;
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    const args = ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--concurrency', '1'];
    const env = { CHATBATCH_API_KEY: 'sk-kill-usage-test-0000000000' };
    const { child, done } = startCli(args, { cwd: dir.path, env });
    const manifestTokens = async (): Promise<number> => {
      const manifest = JSON.parse(await dir.read('out/manifest.json').catch(() => '{}'));
      return manifest.usage?.total_tokens ?? 0;
    };
    let tokens = 0;
    await waitFor(() => {
      void manifestTokens().then((seen) => (tokens = seen));
      return tokens === 30;
    });
    child.kill('SIGKILL');
    await done;
    const killed = JSON.parse(await dir.read('out/manifest.json'));
    expect(killed.status).toBe('running');
    expect(killed.sessions[0].usage.total_tokens).toBe(30);
    expect(killed.sessions[0].attempts).toBeGreaterThanOrEqual(3);

    answerAll = true;
    // The budget counts the killed session's 30: three rows of 10 more would pass 55.
    const resumed = await runCli([...args, '--resume', '--max-total-tokens', '55'], { cwd: dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(4);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.usage.total_tokens).toBe(50);
    expect(manifest.sessions.map((session: { usage: { total_tokens: number } }) => session.usage.total_tokens)).toEqual([30, 20]);
  });
});
