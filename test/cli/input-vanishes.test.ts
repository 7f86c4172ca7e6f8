import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

describe('an input file that disappears during the run', () => {
  let dir: TempDir;
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
    await dir?.remove();
  });

  it('is recorded as invalid input and described in the manifest; the run still ends with its files', async () => {
    dir = await makeTempDir();
    const first = await dir.write('a.jsonl', jsonlOf(Array.from({ length: 40 }, (_, i) => ({ id: `a${i}`, prompt: `p${i}` }))));
    const second = await dir.write('b.jsonl', jsonlOf([{ id: 'b0', prompt: 'q' }]));
    // Deleted once the first request arrives: after the pre-flight check, before b.jsonl is read.
    server = await startScriptedServer((request, response, index) => {
      if (index === 0) void rm(second, { force: true });
      replyWithEcho(request, response, index);
    });
    const result = await runCli(
      ['run', first, second, '--base-url', server.baseUrl, '--model', 'm', '--out', dir.file('out'), '--concurrency', '1', '--quiet'],
      {
        env: { CHATBATCH_API_KEY: 'sk-test-key-123456789' },
      },
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
    expect(await dir.jsonl('out/output.jsonl')).toHaveLength(40);
    const errors = await dir.jsonl<{ file: string; code: string }>('out/errors.jsonl');
    expect(errors).toEqual([expect.objectContaining({ file: second, code: 'invalid_input' })]);
    const manifest = JSON.parse(await dir.read('out/manifest.json')) as {
      status: string;
      inputs: Array<{ path: string; sha256: string | null; problem?: string }>;
    };
    expect(manifest.status).toBe('finished_with_failures');
    expect(manifest.inputs[1]).toMatchObject({ path: second, sha256: null, problem: expect.stringContaining('ENOENT') });
  });
});
