import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// Issue 42 (what a llama.cpp server showed): replies cut at max_tokens (finish_reason "length")
// were counted ok with nothing said. They stay ok (text came, and was paid) but are counted apart.

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  // Rows whose prompt says "long" are cut: the start of the answer, finish_reason length.
  (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    const cut = prompt.includes('long');
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: cut ? '4' : '42' }, finish_reason: cut ? 'length' : 'stop' }],
      // A prompt marked "shifted" is read in part, as llama.cpp's context shift reads one: 100 tokens reported.
      usage: prompt.includes('shifted')
        ? { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 }
        : { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: 1, total_tokens: Math.ceil(prompt.length / 4) + 1 },
    });
  },
);

describe('replies cut at max_tokens', () => {
  it('are counted apart in the summary, its JSON line and the manifest; correct judges the cut text', async () => {
    const rows = [
      { id: 'a', prompt: 'a long question', gold: '42' },
      { id: 'b', prompt: 'short', gold: '42' },
      { id: 'c', prompt: 'another long one', gold: '42' },
      // Its own field holds the same text as a cut record: it is not counted.
      { id: 'd', prompt: 'short', gold: '42', finish_reason: 'length' },
    ];
    await served.dir.write('in.jsonl', jsonlOf(rows));
    const args = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--expect', 'gold', '--keep-input=all'];
    const env = { CHATBATCH_API_KEY: 'sk-cut-replies-000000000' };
    const result = await runCli([...args, '--out', 'out'], { cwd: served.dir.path, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('4 row(s): 4 ok (2 of them cut at max_tokens: finish_reason length), 0 failed');
    const manifest = JSON.parse(await served.dir.read('out/manifest.json')) as { counts: Record<string, unknown> };
    expect(manifest.counts).toMatchObject({ succeeded: 4, cut_at_max_tokens: 2 });
    const records = await served.dir.jsonl<{ id: string; correct: boolean | null }>('out/output.jsonl');
    expect(records.map((record) => [record.id, record.correct])).toEqual([
      ['a', false],
      ['b', true],
      ['c', false],
      ['d', true],
    ]);
    const json = await runCli([...args, '--out', 'json', '--log-format', 'json'], { cwd: served.dir.path, env });
    const summary = json.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event?: string; cut_at_max_tokens?: number })
      .find((line) => line.event === 'summary');
    expect(summary?.cut_at_max_tokens).toBe(2);
  });
});

describe('prompts the server read only in part (llama.cpp shifts the context)', () => {
  it('are said once at the end of the run, naming rows, when prompt_tokens is far below the estimate', async () => {
    const long = 'word '.repeat(6000); // about 7,500 tokens by the estimate
    const rows = [
      { id: 's1', prompt: `shifted ${long}` },
      { id: 'ok', prompt: long },
      { id: 's2', prompt: `shifted ${long}` },
      { id: 'short', prompt: 'shifted but short' },
    ];
    await served.dir.write('in.jsonl', jsonlOf(rows));
    const result = await runCli(['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--out', 'out'], {
      cwd: served.dir.path,
      env: { CHATBATCH_API_KEY: 'sk-cut-replies-000000000' },
    });
    expect(result.code, result.stderr).toBe(0);
    const notes = result.stderr.split('\n').filter((line) => line.includes('far fewer prompt tokens'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('2 answer(s) reported far fewer prompt tokens than their prompt holds (the first: 100 reported, about 7');
    expect(notes[0]).toContain('rows s1 (m), s2 (m).');
    expect(notes[0]).toContain('context size (-c)');
  });
});
