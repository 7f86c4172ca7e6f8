import { mkdir, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));
beforeEach(async () => {
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, prompt: `prompt ${i}` }))));
});

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-cache-failure-test-key-0000' },
  });

describe('response cache that cannot be written', () => {
  it('a --cache path that cannot be a directory stops the run before anything is sent (exit 2)', async () => {
    await dir.write('cache', 'a file, not a directory');
    const result = await run('--cache', 'cache');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot use the cache directory cache');
    expect(server.received).toHaveLength(0);
  });

  it('an entry that cannot be stored does not cost the reply: every row still lands in output.jsonl', async () => {
    // Files where the cache's fan-out folders (00..ff) would go: every store fails.
    await mkdir(dir.file('cache'));
    await Promise.all(Array.from({ length: 256 }, (_, i) => writeFile(dir.file(`cache/${i.toString(16).padStart(2, '0')}`), '')));
    const result = await run('--cache', 'cache');
    expect(result.code, result.stderr).toBe(0);
    expect(server.received).toHaveLength(8);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(Array.from({ length: 8 }, (_, i) => `c${i}`));
  });
});
