import { mkdir, readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// merge against shard directories that are reused, overlap, were edited or torn, and a re-merge
// killed at each step of replacing the previous merge (a test hook kills the process there).

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

const env = { CHATBATCH_API_KEY: 'sk-merge-safety-key-000000000' };
const ROWS = 40;

async function twoShards(): Promise<void> {
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
  for (const k of [0, 1]) {
    const args = ['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', `s${k}`, '--shard', `${k}/2`, '--quiet'];
    expect((await runCli(args, { cwd: dir.path, env })).code).toBe(0);
  }
}

const merge = (args: string[]) => runCli(['merge', ...args], { cwd: dir.path, env });
/** The test hook kills the process it runs in: a merge of its own. */
const killedMerge = (args: string[], step: string) =>
  spawnCli(['merge', ...args], { cwd: dir.path, env: { ...env, CHATBATCH_TEST_KILL_MERGE_AT: step } });

const lines = async (file: string) => (await dir.read(file)).split('\n').filter(Boolean);

/** The manifest fields these tests change. */
interface EditableManifest {
  config: { shard?: unknown };
  counts: { succeeded: number };
  marker?: string;
}

async function editManifest(shard: string, edit: (manifest: EditableManifest) => void): Promise<void> {
  const manifest = JSON.parse(await dir.read(`${shard}/manifest.json`));
  edit(manifest);
  await dir.write(`${shard}/manifest.json`, JSON.stringify(manifest));
}

function expectClearRefusal(result: { code: number | null; stderr: string }, text: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(text);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('merge refuses what would lose or double rows', () => {
  it('an --out that is, holds or lies inside a shard; a merged directory given as a shard', async () => {
    await twoShards();
    const before = await dir.read('s0/output.jsonl');
    expectClearRefusal(await merge(['s0', 's1', '--out', 's0']), '--out s0 is the shard directory s0');
    expectClearRefusal(await merge(['s0', 's1', '--out', 's1/inner']), 'is inside the shard directory s1');
    expectClearRefusal(await merge(['s0', 's1', '--out', '.']), '--out . holds the shard directory s0');
    expect(await dir.read('s0/output.jsonl')).toBe(before);

    expect((await merge(['s0', 's1', '--out', 'all'])).code).toBe(0);
    expect(await lines('all/output.jsonl')).toHaveLength(ROWS);
    expectClearRefusal(await merge(['all', 's1', '--out', 'again']), 'all already holds a merge, not a shard');
  });

  it('a shard index outside the shard count, records of one row in two shards, a record file that disagrees with its manifest', async () => {
    await twoShards();
    await editManifest('s1', (m) => (m.config.shard = { index: 5, count: 2 }));
    expectClearRefusal(await merge(['s0', 's1', '--out', 'all']), 's1 is shard 5/2, which is not one of s0');
    await editManifest('s1', (m) => (m.config.shard = { index: 1, count: 2 }));

    await editManifest('s1', (m) => (m.counts.succeeded += 1));
    const counted = await merge(['s0', 's1', '--out', 'all']);
    expect(counted.code, counted.stderr).toBe(2);
    expect(counted.stderr).toMatch(
      /s1\/output\.jsonl holds \d+ record\(s\) but its manifest counts \d+: it changed after the shard finished/,
    );

    // s0's first record, put into s1 at its place in input order (the count now agrees).
    const [firstOfS0] = await lines('s0/output.jsonl');
    const lineOf = (text: string) => JSON.parse(text).line as number;
    const s1 = [...(await lines('s1/output.jsonl')), firstOfS0!].sort((a, b) => lineOf(a) - lineOf(b));
    await dir.write('s1/output.jsonl', `${s1.join('\n')}\n`);
    expectClearRefusal(
      await merge(['s0', 's1', '--out', 'all']),
      'has two records, in s0/output.jsonl and s1/output.jsonl: the shards overlap',
    );
    await expect(readdir(dir.file('all'))).rejects.toThrow(/ENOENT/);
  });

  it('a torn line and a record out of input order name the file and line (exit 2, not a crash)', async () => {
    await twoShards();
    const s1 = await dir.read('s1/output.jsonl');
    const next = s1.split('\n').length;
    await dir.write('s1/output.jsonl', `${s1}{"id":"r9","fi`);
    expectClearRefusal(await merge(['s0', 's1', '--out', 'all']), `s1/output.jsonl line ${next} is not a whole record`);
    await dir.write('s1/output.jsonl', `${s1}${s1.split('\n')[0]}\n`);
    expectClearRefusal(await merge(['s0', 's1', '--out', 'all']), `s1/output.jsonl line ${next} is out of input order`);
  });

  it('an --out under a file, in /proc, or where the file system refuses folders: one line, exit 2, at once', async () => {
    await twoShards();
    await dir.write('plain-file', 'x');
    expectClearRefusal(await merge(['s0', 's1', '--out', 'plain-file/all']), 'plain-file is a file, not a folder');
    expectClearRefusal(await merge(['s0', 's1', '--out', 'plain-file']), '--out plain-file is a file');
    expectClearRefusal(await merge(['s0', 's1', '--out', '/proc/chatbatch-merge']), 'cannot make a folder in /proc');
    expectClearRefusal(await merge(['s0', 's1', '--out', '/sys/chatbatch-merge']), 'cannot make a folder in /sys');
  });

  it('a directory that is not an earlier merge is never replaced', async () => {
    await twoShards();
    await mkdir(dir.file('notes'));
    await dir.write('notes/mine.txt', 'keep me');
    expectClearRefusal(await merge(['s0', 's1', '--out', 'notes']), '--out notes already holds files a merge does not write (mine.txt)');
    expect(await dir.read('notes/mine.txt')).toBe('keep me');
  });
});

describe('a re-merge killed at any step leaves the previous merge or the new one', () => {
  it.each(['staged-output', 'set-aside'])('killed at %s', async (step) => {
    await twoShards();
    expect((await merge(['s0', 's1', '--out', 'all'])).code).toBe(0);
    await editManifest('all', (m) => (m.marker = 'previous merge'));

    const killed = await killedMerge(['s0', 's1', '--out', 'all'], step);
    expect(killed.signal).toBe('SIGKILL');
    if (step === 'staged-output') {
      // Nothing of the new merge is in place: the previous one is whole.
      expect(JSON.parse(await dir.read('all/manifest.json')).marker).toBe('previous merge');
      expect(await lines('all/output.jsonl')).toHaveLength(ROWS);
    }
    // The next merge puts back (or keeps) the previous one before it starts, then replaces it whole.
    const killedAgain = await killedMerge(['s0', 's1', '--out', 'all'], 'staged-output');
    expect(killedAgain.signal).toBe('SIGKILL');
    expect(JSON.parse(await dir.read('all/manifest.json')).marker).toBe('previous merge');
    const done = await merge(['s0', 's1', '--out', 'all']);
    expect(done.code, done.stderr).toBe(0);
    const manifest = JSON.parse(await dir.read('all/manifest.json'));
    expect(manifest.marker).toBeUndefined();
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: ROWS, failed: 0 });
    expect(await lines('all/output.jsonl')).toHaveLength(ROWS);
    expect((await readdir(dir.path)).filter((name) => name.startsWith('.all'))).toEqual([]);
    const report = await runCli(['report', 'all'], { cwd: dir.path, env });
    expect(report.stdout).toContain(`${ROWS}`);
  });
});
