import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import type { TempDir } from '../support/temp-dir.js';
import { LINE_ENDING_CASES } from './line-endings.js';

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

interface Rec {
  id: string;
  file: string;
  line: number;
  reply: string | null;
}

describe('chatbatch run: CSV files with mixed line endings', () => {
  it('sends every row of every mix once, with the physical line it starts on and no line ending in a prompt', async () => {
    const files = LINE_ENDING_CASES.map((_, i) => `mix${i}.csv`);
    for (const [i, testCase] of LINE_ENDING_CASES.entries()) await dir.write(files[i]!, testCase.content);
    const result = await runCli(
      ['run', ...files, '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--format', 'csv', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-test-line-endings' },
      },
    );
    expect(result.code, result.stderr).toBe(0);

    const output = await dir.jsonl<Rec>('out/output.jsonl');
    const expected = LINE_ENDING_CASES.flatMap((testCase, i) => testCase.rows.map(([line, prompt]) => ({ file: files[i]!, line, prompt })));
    expect(output.map((r) => [r.file, r.line, r.id, r.reply])).toEqual(
      expected.map(({ file, line, prompt }) => [file, line, `${file}:${line}`, `echo: ${prompt}`]),
    );
    for (const [i, { prompt }] of expected.entries()) {
      if (!prompt.includes('\r')) expect(output[i]!.reply, `${expected[i]!.file}:${expected[i]!.line}`).not.toContain('\r');
    }
    expect(server.received.map((r) => r.json?.messages?.[0]?.content).sort()).toEqual(expected.map((e) => e.prompt).sort());
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);

    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts).toMatchObject({ rows: expected.length, succeeded: expected.length, failed: 0, pending: 0 });
    expect(manifest.inputs.map((input: { path: string; rows: number }) => [input.path, input.rows])).toEqual(
      LINE_ENDING_CASES.map((testCase, i) => [files[i], testCase.rows.length]),
    );
    // The enriched CSV meets each record with its own input row.
    const enriched = parse(await dir.read('out/output.csv'), { columns: true }) as Array<{ n: string; prompt: string; reply: string }>;
    expect(enriched.map((r) => r.reply)).toEqual(expected.map((e) => `echo: ${e.prompt}`));
    expect(enriched.map((r) => r.prompt)).toEqual(expected.map((e) => e.prompt));
  });
});
