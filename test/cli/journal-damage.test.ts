import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import type { TempDir } from '../support/temp-dir.js';

const ROWS = 12;
const ALL_IDS = Array.from({ length: ROWS }, (_, i) => `r${i}`);
const JOURNAL = 'out/.chatbatch/journal.jsonl';

let dir: TempDir;
let simulator: RunningSimulator;
/** Row ids in the order the endpoint received their requests. */
let sent: string[];

perTestRecordedRun(ALL_IDS, (fresh) => ({ dir, simulator, sent } = fresh));

function run(extra: string[] = []) {
  return runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-journal-damage-000000000' },
  });
}

/** The journal's lines (no newlines) in file order, and the row key of each. */
async function journalLines(): Promise<{ lines: string[]; keys: string[] }> {
  const lines = (await dir.read(JOURNAL)).split('\n').slice(0, -1);
  return { lines, keys: lines.map((line) => JSON.parse(line.split('\t')[1]!).k as string) };
}

const recordOf = (line: string) => line.slice(line.indexOf('\t', 9) + 1);
const withoutRecord = (line: string) => line.slice(0, line.indexOf('\t', 9) + 1);

describe('a journal damaged in the middle', () => {
  it('is never copied into output.jsonl: --resume re-sends exactly the rows of the damaged lines and says how many lines it dropped', async () => {
    expect((await run()).code).toBe(0);
    const { lines, keys } = await journalLines();
    expect(lines).toHaveLength(ROWS);
    const damaged = [...lines];
    damaged[0] = lines[0]!.slice(0, -7); // cut short (its newline kept)
    damaged[2] = lines[2]!.replace('Simulated', 'Simulxted'); // bytes overwritten
    damaged[7] = withoutRecord(lines[7]!) + recordOf(lines[8]!); // another row's record pasted in
    damaged.splice(4, 2, lines[4]! + lines[5]!); // two lines merged: a newline lost
    await dir.write(JOURNAL, `${damaged.join('\n')}\n`);

    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      'dropped 4 damaged journal line(s) (checksum mismatch): rows with no other line that verifies are sent again',
    );

    expect(sent.sort()).toEqual([keys[0], keys[2], keys[4], keys[5], keys[7]].sort());
    const output = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(output.map((record) => record.id)).toEqual(ALL_IDS);
    // Each row has its own reply, the one whose line was given another row's record included.
    for (const record of output) expect(record.reply).toContain(`ask ${record.id}"`);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);

    // The damaged lines stay in the journal, so a later resume reports them again, but sends nothing.
    sent.length = 0;
    const again = await run(['--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('dropped 4 damaged journal line(s)');
    expect(sent).toEqual([]);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(ALL_IDS);
  });

  it('a journal of an older chatbatch (no checksums) does not crash a resume: its rows are sent again, and it says why', async () => {
    expect((await run()).code).toBe(0);
    const { lines } = await journalLines();
    // The format before checksums: `<entry>\t<record>`.
    await dir.write(JOURNAL, lines.map((line) => `${line.slice(9)}\n`).join(''));
    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`dropped ${ROWS} journal line(s) written by an older chatbatch without a checksum`);
    expect(sent.sort()).toEqual([...ALL_IDS].sort());
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(ALL_IDS);
  });
});
