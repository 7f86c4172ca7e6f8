import { readFile, stat } from 'node:fs/promises';
import { parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import type { TempDir } from '../support/temp-dir.js';

// --format csv and parquet files are written from output.jsonl and errors.jsonl as they are in
// place at a session's end: a finished run's journal refers to those records (it holds no copy),
// and a resume that keeps every record where it was writes no new record file. The derived files
// must still come out whole and the same.

const IDS = Array.from({ length: 10 }, (_, i) => `r${i}`);
/** Fails its first request (the simulator's directive: one 500), then succeeds. */
const FAILS_ONCE = new Set(['r2', 'r6']);
const KEY = 'sk-derived-resume-000000000';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
perTestRecordedRun(IDS, (fresh) => ({ dir, simulator, sent } = fresh));

const run = (format: string, ...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out', '--quiet', '--format', format, ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });

/** The ids in a derived file, in its order. */
async function derivedIds(format: string, name: 'output' | 'errors'): Promise<string[]> {
  if (format === 'csv') {
    const lines = (await dir.read(`out/${name}.csv`)).trim().split('\n').slice(1);
    return lines.map((line) => line.split(',')[0]!);
  }
  const bytes = await readFile(dir.file(`out/${name}.parquet`));
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return (await parquetReadObjects({ file })).map((row) => String(row.id));
}

describe.each(['csv', 'parquet'])('--format %s with the journal at rest referring to the records', (format) => {
  it('a failed first run, a resume that changes nothing, then --retry-failed: the files hold every row, in order', async () => {
    await dir.write(
      'in.jsonl',
      IDS.map((id) => `${JSON.stringify({ id, prompt: FAILS_ONCE.has(id) ? `ask ${id} [[sim:500x1]]` : `ask ${id}` })}\n`).join(''),
    );
    const first = await run(format, '--max-attempts', '1');
    expect(first.code, first.stderr).toBe(1);
    const ok = IDS.filter((id) => !FAILS_ONCE.has(id));
    expect(await derivedIds(format, 'output')).toEqual(ok);
    expect(await derivedIds(format, 'errors')).toEqual(['r2', 'r6']);
    const derived = await readFile(dir.file(`out/output.${format}`));
    const records = await stat(dir.file('out/output.jsonl'));

    sent.length = 0;
    const again = await run(format, '--resume');
    expect(again.code, again.stderr).toBe(1);
    expect(sent).toEqual([]);
    expect((await stat(dir.file('out/output.jsonl'))).ino).toBe(records.ino);
    expect(await readFile(dir.file(`out/output.${format}`))).toEqual(derived);

    const retried = await run(format, '--resume', '--retry-failed');
    expect(retried.code, retried.stderr).toBe(0);
    expect(sent.map((prompt) => prompt.split(' ')[0])).toEqual(['r2', 'r6']);
    expect(await derivedIds(format, 'output')).toEqual(IDS);
    expect(await derivedIds(format, 'errors')).toEqual([]);
  });
});
