import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { echoReply, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;

// Each row's prompt says what usage its response reports.
const USAGE_BY_PROMPT: Record<string, unknown> = {
  p1: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  'no-usage': undefined,
  p4: { prompt_tokens: 7, completion_tokens: 3 }, // no total: 7 + 3
  'p5-hostile': { prompt_tokens: '9', total_tokens: -1 }, // nothing countable: as without usage
};

beforeEach(async () => {
  dir = await makeTempDir();
  server = await startScriptedServer((request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    if (prompt === 'bad') return sendJson(response, 400, { error: { code: 'invalid_request', message: 'no' } });
    // CJK text: 2 tokens a character, where characters / 4 guesses a quarter.
    const usage = /^[\u3040-\u9fff]/.test(prompt)
      ? { prompt_tokens: 2 * prompt.length, completion_tokens: 1, total_tokens: 2 * prompt.length + 1 }
      : USAGE_BY_PROMPT[prompt];
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: echoReply(request) }, finish_reason: 'stop' }],
      ...(usage === undefined ? {} : { usage }),
    });
  });
  await dir.write('in.jsonl', jsonlOf(['p1', 'no-usage', 'bad', 'p4', 'p5-hostile'].map((prompt, i) => ({ id: `a${i + 1}`, prompt }))));
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const env = { CHATBATCH_API_KEY: 'sk-usage-test-key-0000000000' };
const runInput = (input: string, ...extra: string[]) =>
  runCli(['run', input, '--base-url', server.baseUrl, '--model', 'm', '--concurrency', '1', '--quiet', ...extra], {
    cwd: dir.path,
    env,
  });
const run = (...extra: string[]) => runInput('in.jsonl', ...extra);

describe('token usage', () => {
  it('sums the usage responses report in the manifest, per session and in total; responses without usage are counted as such', async () => {
    const result = await run('--out', 'out');
    expect(result.code, result.stderr).toBe(1); // the 400
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    // One request at a time, so the estimates are known: p1 (2 characters, 10 prompt and 5
    // completion tokens) calibrates the estimator to 5 tokens a character and a 5-token
    // completion; "no-usage" (8 characters) is then estimated at 40 + 5. After p4 (2 characters,
    // 7 + 3) the ratio is 17 / 4 and the completion mean 4: "p5-hostile" (10 characters) is
    // estimated at ceil(42.5) + 4.
    const usage = {
      prompt_tokens: 17,
      completion_tokens: 8,
      total_tokens: 25,
      responses_with_usage: 2,
      responses_without_usage: 2,
      estimated_tokens: 45 + 47,
      reasoning_tokens: 0,
      cached_tokens: 0,
    };
    expect(manifest.usage).toEqual(usage);
    expect(manifest.sessions[0].usage).toEqual(usage);
    expect(result.stderr).toContain(
      'tokens:   25 tokens (prompt 17, completion 8) from 2 response(s); 2 response(s) without usage, estimated at 92 in this run; 25 in this directory',
    );
    // The note on what these figures are is in --help and the docs, once, not in every summary.
    expect(result.stderr).not.toContain('its spec leaves usage unconfirmed');
    const help = await runCli(['run', '--help'], { cwd: dir.path });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain("its spec leaves usage unconfirmed, and billing to the provider's console");

    // The report shows the totals, in text and HTML (the page keeps the note: it is read on its own).
    const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(
      'tokens: 25 tokens (prompt 17, completion 8) from 2 response(s); 2 response(s) without usage, estimated at 92, over every session',
    );
    expect(report.stdout).not.toContain('its spec leaves usage unconfirmed');
    const html = await dir.read('report.html');
    expect(html).toContain('<b>25</b>tokens');
    expect(html).toContain('its spec leaves usage unconfirmed, and billing to the provider&#39;s console');
  });

  it('counts responses without usage by their estimate against the budget', async () => {
    await dir.write('quiet.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, prompt: 'no-usage' }))));
    // Each row is estimated at 8 characters / 4 + 4 = 6 tokens (no usage ever calibrates it): 3 rows fit in 20.
    const result = await runInput('quiet.jsonl', '--out', 'out', '--max-total-tokens', '20');
    expect(result.code, result.stderr).toBe(4);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts).toMatchObject({ succeeded: 3, pending: 3 });
    expect(manifest.usage).toMatchObject({ total_tokens: 0, responses_with_usage: 0, responses_without_usage: 3, estimated_tokens: 18 });
    expect(result.stderr).toContain('stopped at the token budget: 18 tokens spent of 20');
  });

  it("keeps the budget with the endpoint's own token ratio once usage arrives (characters / 4 is far off for CJK)", async () => {
    const cjk = '東京の天気を教えてください。明日は雨が降りますか。'; // 25 characters: 51 tokens a row here
    await dir.write('cjk.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `c${i}`, prompt: cjk }))));
    const result = await runInput('cjk.jsonl', '--out', 'out', '--max-total-tokens', '120');
    expect(result.code, result.stderr).toBe(4);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    // Calibrated, the third row is estimated at 51 and refused (102 + 51 > 120); at characters / 4
    // (11) it would have gone out and spent 153.
    expect(manifest.counts).toMatchObject({ succeeded: 2, pending: 3 });
    expect(manifest.usage.total_tokens).toBe(102);
  });

  it('adds each session to the total; rows reused on resume and cached replies cost nothing', async () => {
    expect((await run('--out', 'out', '--cache', 'cache')).code).toBe(1);
    const sent = server.received.length;
    // The failed row is sent again and fails again: the session adds nothing.
    expect((await run('--out', 'out', '--cache', 'cache', '--retry-failed')).code).toBe(1);
    expect(server.received.length).toBe(sent + 1);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(
      manifest.sessions.map((s: { usage: { total_tokens: number; responses_with_usage: number } }) => [
        s.usage.total_tokens,
        s.usage.responses_with_usage,
      ]),
    ).toEqual([
      [25, 2],
      [0, 0],
    ]);
    expect(manifest.usage.total_tokens).toBe(25);

    // Another directory with the same cache: every success comes from the cache, nothing is sent or counted.
    const cached = await run('--out', 'other', '--cache', 'cache');
    expect(server.received.length).toBe(sent + 2); // only the failed row, which the cache does not hold
    const other = JSON.parse(await dir.read('other/manifest.json'));
    expect(other.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      responses_with_usage: 0,
      responses_without_usage: 0,
      estimated_tokens: 0,
      reasoning_tokens: 0,
      cached_tokens: 0,
    });
    expect(cached.stderr).toContain('tokens:   0 tokens (no response) in this run; 0 in this directory');
    const records = await dir.jsonl<{ cached?: boolean; usage?: unknown }>('other/output.jsonl');
    expect(records.every((r) => r.cached)).toBe(true);
    expect(records[0]!.usage).toEqual(USAGE_BY_PROMPT.p1); // the record keeps the original response's usage
  });
});
