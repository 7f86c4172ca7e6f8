import { mkdir, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { MergeError, mergeShards } from '../../src/output/merge.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// merge's core in process, over shards run in process against a scripted server.

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

async function twoShards(): Promise<[string, string]> {
  const input = await dir.write('in.jsonl', jsonlOf(Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
  const shards: [string, string] = [dir.file('s0'), dir.file('s1')];
  for (const [k, out] of shards.entries()) {
    const report = await run({ inputs: [input], model: 'm', baseUrl: server.baseUrl, apiKey: 'sk-merge-0000000000', out, shard: `${k}/2` });
    expect(report.status).toBe('complete');
  }
  return shards;
}

async function editManifest(shard: string, edit: (manifest: Record<string, unknown>) => void): Promise<void> {
  const manifest = JSON.parse(await dir.read(`${shard}/manifest.json`));
  edit(manifest);
  await dir.write(`${shard}/manifest.json`, JSON.stringify(manifest));
}

describe('mergeShards', () => {
  it('names a shard killed before it knew its job as unfinished, not as another job', async () => {
    const shards = await twoShards();
    // What a shard killed in its first moment leaves (or one written by a chatbatch that fingerprinted only at the end).
    await editManifest('s1', (m) => Object.assign(m, { status: 'running', job_fingerprint: '' }));
    const error = await mergeShards(shards, dir.file('all')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MergeError);
    expect((error as Error).message).toBe(
      `unfinished shard(s): ${shards[1]} (running, or killed while running); resume them with --resume first`,
    );

    await editManifest('s1', (m) => Object.assign(m, { status: 'interrupted' }));
    expect((await mergeShards(shards, dir.file('all')).catch((e: Error) => e.message)) as string).toContain(`${shards[1]} (interrupted)`);
  });

  it('makes the merged directory with the permissions the umask gives, as the shards have', async () => {
    const before = process.umask(0o022);
    try {
      const shards = await twoShards();
      await mergeShards(shards, dir.file('all'));
      await mkdir(dir.file('made-by-mkdir'));
    } finally {
      process.umask(before);
    }
    const mode = async (name: string) => (await stat(dir.file(name))).mode & 0o777;
    expect(await mode('all')).toBe(0o755);
    expect(await mode('all')).toBe(await mode('made-by-mkdir'));
    expect(await mode('all')).toBe(await mode('s0'));
    expect((await stat(dir.file('all/output.jsonl'))).mode & 0o777).toBe(0o644);
  });
});
