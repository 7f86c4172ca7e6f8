import { readdir, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { readJournalView } from '../support/record-files.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import { runArgs } from '../support/run-args.js';
import type { TempDir } from '../support/temp-dir.js';

// A session ends by putting its compacted journal (references to the records) in place, then
// renaming its new output.jsonl and errors.jsonl into place. These runs are killed with kill -9
// as they rename one of the three: whatever was done, the next start finishes or forgets it, and
// no settled row is sent again.

const ROWS = 10;
const IDS = Array.from({ length: ROWS }, (_, i) => `r${i}`);
const KEY = 'sk-compaction-kill-0000000';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
perTestRecordedRun(IDS, (fresh) => ({ dir, simulator, sent } = fresh));

/** Kills the process (SIGKILL, as kill -9) when it renames a file over `CHATBATCH_TEST_KILL_AT` (a path's ending). */
const KILL_PRELOAD = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const at = process.env.CHATBATCH_TEST_KILL_AT;
const rename = fs.promises.rename;
fs.promises.rename = async (from, to) => {
  if (String(to).endsWith(at)) process.kill(process.pid, 'SIGKILL');
  return rename(from, to);
};
syncBuiltinESMExports();
`;

const args = (...extra: string[]) => runArgs(simulator.url, ...extra);

async function killedAt(target: string, ...extra: string[]) {
  const preload = await dir.write('kill.mjs', KILL_PRELOAD);
  const result = await spawnCli(args(...extra), {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}`, CHATBATCH_TEST_KILL_AT: target },
  });
  expect(result.signal, result.stderr).toBe('SIGKILL');
}

async function resume(...extra: string[]) {
  const result = await runCli(args('--resume', ...extra), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

async function outputIds(): Promise<string[]> {
  return (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id);
}

/** Every file of the directory that still has a temporary name. */
async function temporaries(): Promise<string[]> {
  const names = [...(await readdir(dir.file('out'))), ...(await readdir(dir.file('out/.chatbatch')))];
  return names.filter((name) => name.endsWith('.tmp'));
}

describe('a session killed with kill -9 while it ends', () => {
  it.each([
    ['before its journal goes in place', '/.chatbatch/journal.jsonl'],
    ['once its journal is in place, before output.jsonl is', '/output.jsonl'],
    ['between output.jsonl and errors.jsonl', '/errors.jsonl'],
  ])('%s: the resume sends nothing, and every record is in output.jsonl once', async (_when, target) => {
    await killedAt(target);
    expect(sent.sort()).toEqual([...IDS].sort());
    sent.length = 0;
    await resume();
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(IDS);
    expect(await temporaries()).toEqual([]);
    const journal = await readJournalView(dir.file('out'));
    expect(journal.parsed.filter((line) => line?.kind === 'reference')).toHaveLength(ROWS);
    expect(journal.parsed.some((line) => line?.kind === 'record')).toBe(false);
  });

  it('killed again as the next start renames the files the journal names: the start after finishes it, and sends nothing', async () => {
    await killedAt('/output.jsonl');
    expect((await temporaries()).filter((name) => name.startsWith('.output.jsonl.'))).toHaveLength(1);
    const header = (await readJournalView(dir.file('out'))).lines[0];
    sent.length = 0;
    // The next start renames output.jsonl's temporary file into place, then is killed renaming
    // errors.jsonl's: before a session of its own ended (the journal is the one that names them).
    await killedAt('/errors.jsonl', '--resume');
    expect((await readJournalView(dir.file('out'))).lines[0]).toBe(header);
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(IDS);
    expect((await temporaries()).filter((name) => name.startsWith('.errors.jsonl.'))).toHaveLength(1);
    await resume();
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(IDS);
    expect(await temporaries()).toEqual([]);
  });

  it('a resume that sent rows again, killed once its journal is in place: the old output.jsonl is replaced by its new one, nothing is sent again', async () => {
    await dir.write(
      'in.jsonl',
      IDS.map((id) => `${JSON.stringify({ id, prompt: id === 'r3' ? 'ask r3 [[sim:500x1]]' : `ask ${id}` })}\n`).join(''),
    );
    const first = await runCli(args('--max-attempts', '1'), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(first.code, first.stderr).toBe(1);
    expect((await dir.jsonl<{ id: string }>('out/errors.jsonl')).map((record) => record.id)).toEqual(['r3']);
    sent.length = 0;
    await killedAt('/output.jsonl', '--resume', '--retry-failed');
    expect(sent).toEqual(['r3 [[sim:500x1]]']);
    sent.length = 0;
    await resume();
    expect(sent).toEqual([]);
    expect(await outputIds()).toEqual(IDS);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    expect(await temporaries()).toEqual([]);
  });

  it('a resume that changes nothing writes no record file: output.jsonl stays the same file, and the journal says the same', async () => {
    const first = await runCli(args(), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(first.code, first.stderr).toBe(0);
    const before = await stat(dir.file('out/output.jsonl'));
    const journal = (await readJournalView(dir.file('out'))).lines.slice(1);
    sent.length = 0;
    await resume();
    expect(sent).toEqual([]);
    const after = await stat(dir.file('out/output.jsonl'));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect((await readJournalView(dir.file('out'))).lines.slice(1)).toEqual(journal);
    expect(await temporaries()).toEqual([]);
  });
});
