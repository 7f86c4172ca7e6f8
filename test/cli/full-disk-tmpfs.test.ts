import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

// A real, small tmpfs that fills up. Mounting needs privileges (root, or CAP_SYS_ADMIN): where
// it is not permitted these tests are skipped; test/cli/write-failures.test.ts (a preloaded fs
// wrapper) is the portable version.
const mountPoint = await mkdtemp(path.join(tmpdir(), 'chatbatch-tmpfs-'));
const mounted = tryMountTmpfs(mountPoint, '48k');

afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint], { stdio: 'ignore' });
  await rm(mountPoint, { recursive: true, force: true });
});

const ROWS = 150;
const ALL_IDS = Array.from({ length: ROWS }, (_, i) => `r${i}`);
let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
let out: string;

function run(extra: string[] = []) {
  return runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', out, '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-tmpfs-test-0000000000' },
  });
}

function expectWriteFailedLine(stderr: string): void {
  const message = new RegExp(`^chatbatch: no space left on device writing ${out}/\\S+; free space and rerun with --resume$`);
  expect(stderr.split('\n').filter((line) => message.test(line))).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function outputIds(): Promise<string[]> {
  const text = await readFile(path.join(out, 'output.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).id as string);
}

describe.skipIf(!mounted)('a real tmpfs that fills up', () => {
  beforeEach(async () => {
    dir = await makeTempDir();
    sent = [];
    simulator = await startSimulator({ latencyMs: 1, onRequest: () => sent.push('') });
    await dir.write('in.jsonl', jsonlOf(ALL_IDS.map((id) => ({ id, prompt: `ask ${id}` }))));
    out = await mkdtemp(path.join(mountPoint, 'run-'));
  });
  afterEach(async () => {
    await simulator.close();
    await dir.remove();
    await rm(out, { recursive: true, force: true });
    execFileSync('mount', ['-o', 'remount,size=48k', mountPoint], { stdio: 'ignore' });
  });

  it('mid-run: exit 5 naming the file; once space is freed, --resume gives every row exactly once', async () => {
    const full = await run();
    expect(full.code, full.stderr).toBe(5);
    expectWriteFailedLine(full.stderr);
    expect(sent.length).toBeLessThan(ROWS);

    execFileSync('mount', ['-o', 'remount,size=4m', mountPoint], { stdio: 'ignore' });
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await outputIds()).toEqual(ALL_IDS);
  });

  // Nothing was sent, so it is a setup problem (exit 2, the contract), not a lost write (5).
  it('full before the start: exit 2 naming the file, nothing sent', async () => {
    await writeFile(path.join(mountPoint, 'filler'), Buffer.alloc(1 << 20)).catch(() => {});
    try {
      const full = await run();
      expect(full.code, full.stderr).toBe(2);
      expect(full.stderr).toMatch(/^chatbatch: cannot .*no space left on .*device.*\n$/);
      expect(sent).toEqual([]);
    } finally {
      await rm(path.join(mountPoint, 'filler'), { force: true });
    }
    execFileSync('mount', ['-o', 'remount,size=4m', mountPoint], { stdio: 'ignore' });
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await outputIds()).toEqual(ALL_IDS);
  });
});
