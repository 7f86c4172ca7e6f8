import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { readJournalView } from '../support/record-files.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import { runArgs } from '../support/run-args.js';
import type { TempDir } from '../support/temp-dir.js';

// A session that cannot put its compacted journal in place (a write failed, or a line it wrote
// read back changed) keeps the journal it appended to. A finished run's journal refers to its
// records by where they are in output.jsonl and errors.jsonl: a resume that keeps it must keep
// those files as they are too, or every record after the first one it moved no longer verifies
// and is paid for again.

/** Preloaded into the child: silent corruption of a byte written to the journal (see the file). */
const FAULTY_FS = fileURLToPath(new URL('../support/faulty-fs.mjs', import.meta.url));
const IDS = Array.from({ length: 10 }, (_, i) => `r${i}`);
/** Fails its first request (the simulator's directive: one 500), then succeeds. */
const FAILS_ONCE = new Set(['r3', 'r7']);
const KEY = 'sk-uncompacted-resume-00000';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
perTestRecordedRun(IDS, (fresh) => ({ dir, simulator, sent } = fresh));

const args = (...extra: string[]) => runArgs(simulator.url, '--concurrency', '1', ...extra);

describe('a session that keeps its journal as it was', () => {
  it('the disk fills up as the compacted journal is written: exit 5 naming the journal; --resume sends nothing and compacts', async () => {
    const env = { CHATBATCH_API_KEY: KEY, NODE_OPTIONS: `--import=${FAULTY_FS}` };
    // Only the compacted journal's temporary file (`.journal.jsonl.<pid>.<n>.<hex>.tmp`) fails: the
    // run itself had room for every row.
    const faults = { CHATBATCH_FAULT_PATHS: '.chatbatch/.journal.jsonl.', CHATBATCH_FAULT_AFTER: '300' };
    const full = await spawnCli(args(), { cwd: dir.path, env: { ...env, ...faults } });
    expect(full.code, full.stderr).toBe(5);
    expect(full.stderr).toMatch(
      /^chatbatch: no space left on device writing .*\.chatbatch\/journal\.jsonl; free space and rerun with --resume$/m,
    );
    expect(sent).toHaveLength(IDS.length);
    expect((await readJournalView(dir.file('out'))).parsed.filter((line) => line?.kind === 'record')).toHaveLength(IDS.length);

    sent.length = 0;
    const resumed = await runCli(args('--resume'), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent).toEqual([]);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(IDS);
    expect((await readJournalView(dir.file('out'))).parsed.filter((line) => line?.kind === 'reference')).toHaveLength(IDS.length);
    expect((await readdir(dir.file('out/.chatbatch'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['', false],
    [" (the journal's first line damaged, so nothing says it is one that refers to records)", true],
  ])(
    'a line of a retried row read back changed: output.jsonl stays as the journal refers to it, and the next resume sends nothing%s',
    async (_, damagedHeader) => {
      // A record line this session writes is copied to the output from the bytes it wrote, kept
      // in memory, unless it is too large to keep there (over 1 MiB): then it is read back from the
      // disk and checked. r7 keeps a field that makes its record that large (--keep-input).
      const row = (id: string) => ({
        id,
        prompt: FAILS_ONCE.has(id) ? `ask ${id} [[sim:500x1]]` : `ask ${id}`,
        ...(id === 'r7' ? { pad: 'x'.repeat(1_100_000) } : {}),
      });
      await dir.write('in.jsonl', IDS.map((id) => `${JSON.stringify(row(id))}\n`).join(''));
      const first = await runCli(args('--max-attempts', '1', '--keep-input'), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
      expect(first.code, first.stderr).toBe(1);
      const outputBefore = await dir.read('out/output.jsonl');
      const errorsBefore = await dir.read('out/errors.jsonl');
      if (damagedHeader) {
        const journal = await dir.read('out/.chatbatch/journal.jsonl');
        expect(journal).toMatch(/^#[0-9a-f]{8}\t\{"journal":2,/);
        await dir.write('out/.chatbatch/journal.jsonl', journal.replace('{"journal":2,', '{"journal":3,'));
      }

      // At concurrency 1 this session journals r3's line, then r7's: a byte ~100 bytes into r7's
      // line reaches the disk changed (r3's line is a record of that size and ~100 bytes of entry).
      // r7 ends pending; r3 succeeds and goes before r4..r9 in the new output.jsonl.
      const corruptAt = Buffer.byteLength(outputBefore.split('\n')[0]!) + 200;
      const env = { CHATBATCH_API_KEY: KEY, NODE_OPTIONS: `--import=${FAULTY_FS}` };
      const faults = { CHATBATCH_FAULT_PATHS: '.chatbatch/journal.jsonl', CHATBATCH_FAULT_CORRUPT_AT: String(corruptAt) };
      const retried = await spawnCli(args('--resume', '--retry-failed', '--keep-input'), { cwd: dir.path, env: { ...env, ...faults } });
      expect(retried.code, retried.stderr).toBe(5);
      expect(sent.slice(IDS.length).map((prompt) => prompt.split(' ')[0])).toEqual(['r3', 'r7']);
      // The journal still refers to the records where they were: those files are kept.
      expect(await dir.read('out/output.jsonl')).toBe(outputBefore);
      expect(await dir.read('out/errors.jsonl')).toBe(errorsBefore);

      sent.length = 0;
      const resumed = await runCli(args('--resume', '--keep-input'), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
      // r7's changed line is dropped: its earlier failure is the line of it that verifies.
      expect(resumed.code, resumed.stderr).toBe(1);
      expect(resumed.stderr).toContain(`dropped ${damagedHeader ? 2 : 1} damaged journal line(s)`);
      expect(resumed.stderr).not.toContain('not there as they were written');
      expect(sent).toEqual([]);
      const ids = async (file: string) => (await dir.jsonl<{ id: string }>(file)).map((record) => record.id);
      expect(await ids('out/output.jsonl')).toEqual(IDS.filter((id) => id !== 'r7'));
      expect(await ids('out/errors.jsonl')).toEqual(['r7']);
    },
  );
});
