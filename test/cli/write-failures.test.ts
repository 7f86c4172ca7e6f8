import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { readJournal } from '../../src/state/journal.js';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import type { TempDir } from '../support/temp-dir.js';

/** Preloaded into the child: short writes and, after a byte budget, ENOSPC (see the file). */
const FAULTY_FS = fileURLToPath(new URL('../support/faulty-fs.mjs', import.meta.url));
const ROWS = 120;
const ALL_IDS = Array.from({ length: ROWS }, (_, i) => `r${i}`);
const CONCURRENCY = 4;
/** Most rows open at once at this concurrency (the admission gate's working limit): what a stop can leave in flight. */
const OPEN_ROWS = CONCURRENCY + 8;

let dir: TempDir;
let simulator: RunningSimulator;
/** Row ids in the order the endpoint received their requests. */
let sent: string[];

perTestRecordedRun(ALL_IDS, (fresh) => ({ dir, simulator, sent } = fresh));

function run(extra: string[] = [], fault: Record<string, string> = {}) {
  const env: Record<string, string> = { CHATBATCH_API_KEY: 'sk-write-failures-0000000000' };
  if (Object.keys(fault).length > 0) Object.assign(env, { NODE_OPTIONS: `--import=${FAULTY_FS}` }, fault);
  const args = ['in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', dir.file('out'), '--concurrency', String(CONCURRENCY)];
  // The faulty file system is preloaded into a process of its own; a run without faults needs none.
  return (Object.keys(fault).length > 0 ? spawnCli : runCli)(['run', ...args, '--quiet', ...extra], { cwd: dir.path, env });
}

async function outputIds(): Promise<string[]> {
  return (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id);
}

/** The records of the journal lines that verify, as their exact bytes (read from a copy: reading repairs). */
async function verifiedRecords(): Promise<{ keys: string[]; records: Set<string>; torn: boolean }> {
  const journal = await readFile(dir.file('out/.chatbatch/journal.jsonl'));
  await dir.write('journal-copy.jsonl', journal);
  const keys: string[] = [];
  const records = new Set<string>();
  await readJournal(dir.file('journal-copy.jsonl'), (entry, location) => {
    keys.push(entry.k);
    const line = journal.toString('utf8', location.offset, location.offset + location.length);
    records.add(line.slice(line.indexOf('\t', 9) + 1));
  });
  return { keys, records, torn: journal.at(-1) !== 10 };
}

function expectOneLineAndNoStack(stderr: string, message: RegExp): void {
  expect(stderr.split('\n').filter((line) => message.test(line))).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toMatch(/Error\b/);
}

describe('a file system that takes short writes and fills up', () => {
  it('short writes everywhere in the output directory are continued: every row once, exit 0', async () => {
    const result = await run(['--format', 'csv'], { CHATBATCH_FAULT_PATHS: dir.file('out'), CHATBATCH_FAULT_SHORT: '1' });
    expect(result.code, result.stderr).toBe(0);
    expect(await outputIds()).toEqual(ALL_IDS);
    expect(
      (await dir.read('out/output.csv'))
        .trim()
        .split('\n')
        .map((line) => line.split(',')[0]),
    ).toEqual(['id', ...ALL_IDS]);
    expect((await verifiedRecords()).keys.sort()).toEqual([...ALL_IDS].sort());
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('complete');
  });

  it('ENOSPC mid-run on a disk holding everything: exit 5 and one line naming the journal; --resume sends exactly the rows not journaled', async () => {
    const full = await run([], { CHATBATCH_FAULT_PATHS: dir.file('out'), CHATBATCH_FAULT_SHORT: '1', CHATBATCH_FAULT_AFTER: '25000' });
    expect(full.code, full.stderr).toBe(5);
    expectOneLineAndNoStack(
      full.stderr,
      new RegExp(
        `^chatbatch: no space left on device writing ${dir.file('out/.chatbatch/journal.jsonl')}; free space and rerun with --resume$`,
      ),
    );
    // No output file could be written, and nothing half-written was left behind.
    expect(existsSync(dir.file('out/output.jsonl'))).toBe(false);
    const kept = await verifiedRecords();
    expect(kept.keys.length).toBeGreaterThan(0);
    expect(kept.keys.length).toBeLessThan(ROWS);
    // No new rows after the failure: only rows already open were sent beyond what was journaled.
    expect(sent.length - kept.keys.length).toBeLessThanOrEqual(OPEN_ROWS);

    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    if (kept.torn) expect(resumed.stderr).toContain('repaired the journal');
    expect(await outputIds()).toEqual(ALL_IDS);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    expect(sent.sort()).toEqual(ALL_IDS.filter((id) => !kept.keys.includes(id)).sort());
  });

  it('ENOSPC on the journal only: the manifest says write_failed and output.jsonl holds only verified records; --resume completes', async () => {
    // The failing write takes a while (the journal writes synchronously, so the process waits, as on a
    // struggling disk): the answers that arrive meanwhile settle after the failure and must not be kept.
    const full = await run([], {
      CHATBATCH_FAULT_PATHS: 'journal.jsonl',
      CHATBATCH_FAULT_SHORT: '1',
      CHATBATCH_FAULT_AFTER: '25000',
      CHATBATCH_FAULT_SLOW_FAILURE_MS: '50',
    });
    expect(full.code, full.stderr).toBe(5);
    expectOneLineAndNoStack(full.stderr, /no space left on device writing .*journal\.jsonl; free space and rerun with --resume$/);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('write_failed');
    expect(manifest.sessions.at(-1).status).toBe('write_failed');
    expect(manifest.counts.pending).toBeGreaterThan(0);
    const output = (await dir.read('out/output.jsonl')).split('\n').slice(0, -1);
    expect(output.length).toBe(manifest.counts.succeeded);
    expect(output.length).toBeGreaterThan(0);
    const { records } = await verifiedRecords();
    for (const line of output) expect(records.has(line)).toBe(true);
    expect(new Set(output.map((line) => JSON.parse(line).id)).size).toBe(output.length);

    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await outputIds()).toEqual(ALL_IDS);
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('complete');
  });

  it('EIO writing output.jsonl: exit 5 naming it; the journal kept every row, so --resume sends nothing', async () => {
    const failed = await run([], { CHATBATCH_FAULT_PATHS: 'output.jsonl', CHATBATCH_FAULT_CODE: 'EIO', CHATBATCH_FAULT_AFTER: '0' });
    expect(failed.code, failed.stderr).toBe(5);
    expectOneLineAndNoStack(
      failed.stderr,
      new RegExp(`^chatbatch: I/O error on ${dir.file('out/output.jsonl')}; check the disk .* and rerun with --resume$`),
    );
    expect(existsSync(dir.file('out/output.jsonl'))).toBe(false);
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('write_failed');
    expect(sent).toHaveLength(ROWS);

    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(ALL_IDS);
  });

  it('a journal line changed on its way to the disk is not what is copied: output.jsonl gets the record as written, the journal that replaces it verifies, --resume sends nothing', async () => {
    // Records this session wrote are copied to output.jsonl from the bytes it wrote, kept in
    // memory (issue 44), not read back from the disk: a byte the disk changed never reaches the
    // output, and the session's end replaces the damaged journal by one referring to output.jsonl.
    // (A session that ends before that leaves the damaged line to the next start, which drops it
    // and sends its row again: journal-damage.test.ts.)
    const corrupted = await run([], { CHATBATCH_FAULT_PATHS: 'journal.jsonl', CHATBATCH_FAULT_CORRUPT_AT: '5000' });
    expect(corrupted.code, corrupted.stderr).toBe(0);
    const output = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(output.map((record) => record.id)).toEqual(ALL_IDS);
    for (const record of output) expect(record.reply).toContain(`ask ${record.id}"`);
    const { keys } = await verifiedRecords();
    expect(keys).toEqual(ALL_IDS);

    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('dropped');
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(ALL_IDS);
  });

  it.skipIf(!existsSync('/dev/full'))('report --html to a full device: exit 5 and one line, no stack trace', async () => {
    expect((await run()).code).toBe(0);
    const report = await runCli(['report', 'out', '--html', '/dev/full'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(5);
    expectOneLineAndNoStack(
      report.stderr,
      /^chatbatch: no space left on device writing \/dev\/full; free space and run the command again$/,
    );
  });
});
